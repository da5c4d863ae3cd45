import TroveBase

/// Shell completion scripts for bash, zsh and fish, generated from the command tree, so
/// they list exactly the commands and flags the parser accepts.
package enum Completions {
    /// One command of the tree with the words that lead to it.
    package struct Entry {
        package let path: [String]
        package let command: Command
        var pathText: String { path.joined(separator: " ") }
        /// Its options, global ones included, as the parser accepts them.
        package var options: [OptionDeclaration] { command.declaredOptions(isRoot: path.isEmpty) }
        package var subcommands: [Command] { command.subcommands.filter { !$0.isHidden } }
    }

    /// Every visible command (and the hidden ones with `hidden`), depth first, the root
    /// first.
    package static func entries(_ root: Command, hidden: Bool = false) -> [Entry] {
        var result: [Entry] = []
        func walk(_ command: Command, _ path: [String]) {
            result.append(Entry(path: path, command: command))
            for sub in command.subcommands where hidden || !sub.isHidden {
                walk(sub, path + [sub.name])
            }
        }
        walk(root, [])
        return result
    }

    /// What a shell offers for one value: the mode the scripts switch on and its words.
    enum ValueKind: Equatable {
        /// Only these words (`--format` → its formats).
        case words([String])
        /// These words, and files when the word typed looks like a path (`./m`) or is
        /// none of them (`--layout` → the built-in layouts or a layout file).
        case wordsOrFiles([String])
        case files
        case directories
        /// Nothing: a value to type (a number, `name=WxH`), never a file.
        case nothing

        /// The scripts' name for it.
        package var mode: String {
            switch self {
            case .words: "words"
            case .wordsOrFiles: "wordsfiles"
            case .files: "files"
            case .directories: "dirs"
            case .nothing: "none"
            }
        }

        package var words: [String] {
            switch self {
            case .words(let words), .wordsOrFiles(let words): words
            default: []
            }
        }
    }

    /// What an option's value completes to, from its declaration: `--format` its formats,
    /// `--layout` the built-in layouts or a file, `a|b|c` the alternatives, `file` and
    /// `path` files, `dir` folders, anything else (a number, a name, `name=WxH[:fit|cover]`)
    /// nothing.
    static func valueKind(of option: OptionDeclaration, in entry: Entry, layouts: [String])
        -> ValueKind
    {
        if option.long == "format" {
            let formats =
                entry.command.formats.count > 1 ? entry.command.formats : [.text, .json, .csv]
            return .words(formats.map(\.rawValue))
        }
        if option.long == "layout" { return .wordsOrFiles(layouts) }
        let name = option.valueName ?? ""
        if name.contains("|") {
            let alternatives = name.split(separator: "|").map(String.init)
            let isPlain = alternatives.allSatisfy {
                !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" }
            }
            guard isPlain else { return .nothing }
            let words = alternatives.filter { $0 != "path" && $0 != "file" }
            return words.count < alternatives.count ? .wordsOrFiles(words) : .words(words)
        }
        switch name {
        case "file", "path": return .files
        case "dir": return .directories
        default: return .nothing
        }
    }

    /// What a positional argument completes to.
    static func valueKind(of argument: ArgumentDeclaration) -> ValueKind {
        switch argument.completion {
        case .files: .files
        case .words(let words): .words(words)
        case .nothing: .nothing
        }
    }

    static func optionWords(_ option: OptionDeclaration) -> [String] {
        ["--" + option.long] + (option.short.map { ["-\($0)"] } ?? [])
    }

    // MARK: - Lookup tables

    /// A word the shell may offer, with the help zsh shows beside it.
    struct Described {
        package let word: String
        package let help: String
    }

    /// What `_trove_data PATH` answers for one command.
    struct CommandWords {
        package let path: String
        package let subcommands: [Described]
        /// Every spelling of every option (`--long` and `-s`).
        package let options: [Described]
        /// The spellings of the options that take a value: the word after them is skipped.
        let valued: [String]
    }

    /// What `_trove_values PATH OPTION` answers for one spelling of a value-taking option,
    /// or `_trove_arg PATH INDEX` for one positional argument.
    struct OptionValues {
        /// The command path and the option's spelling (or the argument's index), one space
        /// between.
        package let key: String
        package let kind: ValueKind
        package var values: [String] { kind.words }
    }

    /// The one walk of the tree behind the scripts' lookup tables (bash's and zsh's
    /// `_trove_data` and `_trove_values`, fish's `__trove_subs` and `__trove_valued`), in
    /// the order the scripts list them.
    static func lookups(_ root: Command, layouts: [String]) -> (
        commands: [CommandWords], values: [OptionValues], arguments: [OptionValues]
    ) {
        var commands: [CommandWords] = []
        var values: [OptionValues] = []
        var arguments: [OptionValues] = []
        for entry in entries(root) {
            commands.append(
                CommandWords(
                    path: entry.pathText,
                    subcommands: entry.subcommands.map {
                        Described(word: $0.name, help: $0.abstract)
                    },
                    options: entry.options.flatMap { option in
                        optionWords(option).map { Described(word: $0, help: option.help) }
                    },
                    valued: entry.options.filter { !$0.isFlag }.flatMap(optionWords)))
            for option in entry.options where !option.isFlag {
                let kind = valueKind(of: option, in: entry, layouts: layouts)
                guard kind != .files else { continue }
                for spelling in optionWords(option) {
                    values.append(OptionValues(key: entry.pathText + " " + spelling, kind: kind))
                }
            }
            // Positional arguments by index; a variadic last one (`*`) takes the rest.
            for (index, argument) in entry.command.arguments.enumerated() {
                let kind = valueKind(of: argument)
                if case .variadic = argument.arity {
                    arguments.append(OptionValues(key: entry.pathText + " *", kind: kind))
                } else if kind != .files {
                    arguments.append(OptionValues(key: entry.pathText + " \(index)", kind: kind))
                }
            }
        }
        return (commands, values, arguments)
    }

    // MARK: - bash

    package static func bash(_ root: Command, layouts: [String]) -> String {
        let (commands, values, arguments) = lookups(root, layouts: layouts)
        var lines = [
            "# bash completion for trove; generated by 'trove completions bash'.",
            "",
            "# _trove_data PATH: the subcommands, options and value-taking options of a command.",
            "_trove_data() {",
            "    case \"$1\" in",
        ]
        for command in commands {
            let subs = command.subcommands.map(\.word).joined(separator: " ")
            let options = command.options.map(\.word).joined(separator: " ")
            let valued = command.valued.joined(separator: " ")
            lines.append("    \(ShellQuoting.quoted(command.path)))")
            lines.append(
                "        subs=\(ShellQuoting.quoted(subs)) opts=\(ShellQuoting.quoted(options)) valued=\(ShellQuoting.quoted(valued)) ;;"
            )
        }
        func cases(_ entries: [OptionValues], pattern: (String) -> String) -> [String] {
            entries.map { entry in
                let words = entry.values.joined(separator: " ")
                return
                    "    \(pattern(entry.key))) mode=\(entry.kind.mode) values=\(ShellQuoting.quoted(words)) ;;"
            }
        }
        lines += [
            "    *) subs='' opts='' valued='' ;;",
            "    esac",
            "}",
            "",
            "# _trove_values PATH OPTION: how an option's value completes (mode: words, wordsfiles,",
            "# files, dirs or none) and its words.",
            "_trove_values() {",
            "    case \"$1 $2\" in",
        ]
        lines += cases(values) { ShellQuoting.quoted($0) }
        lines += [
            "    *) mode=files values='' ;;",
            "    esac",
            "}",
            "",
            "# _trove_arg PATH INDEX: the same for the command's positional argument INDEX (0-based).",
            "_trove_arg() {",
            "    case \"$1 $2\" in",
        ]
        // Exact indexes first, then a variadic argument's `PATH *`.
        let exact = arguments.filter { !$0.key.hasSuffix(" *") }
        let rest = arguments.filter { $0.key.hasSuffix(" *") }
        lines += cases(exact) { ShellQuoting.quoted($0) }
        lines += cases(rest) { ShellQuoting.quoted(String($0.dropLast())) + "*" }
        lines += [
            "    *) mode=files values='' ;;",
            "    esac",
            "}",
            "",
            "# _trove_reply: COMPREPLY for $cur from $mode and $values.",
            "_trove_reply() {",
            "    case \"$mode\" in",
            "    words) COMPREPLY=($(compgen -W \"$values\" -- \"$cur\")) ;;",
            "    wordsfiles)",
            "        COMPREPLY=($(compgen -W \"$values\" -- \"$cur\"))",
            "        case \"$cur\" in",
            "        */* | .* | \"~\"*) COMPREPLY=($(compgen -f -- \"$cur\")) ;;",
            "        *) [ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- \"$cur\")) ;;",
            "        esac ;;",
            "    dirs) COMPREPLY=($(compgen -d -- \"$cur\")) ;;",
            "    none) COMPREPLY=() ;;",
            "    *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;",
            "    esac",
            "}",
            "",
            "_trove() {",
            "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"\" cmdpath=\"\" word i skip=0 argn=0",
            "    local subs opts valued values mode",
            "    [ \"$COMP_CWORD\" -gt 0 ] && prev=\"${COMP_WORDS[COMP_CWORD-1]}\"",
            "    for ((i = 1; i < COMP_CWORD; i++)); do",
            "        word=\"${COMP_WORDS[i]}\"",
            "        if [ \"$skip\" = 1 ]; then skip=0; continue; fi",
            "        _trove_data \"$cmdpath\"",
            "        case \"$word\" in",
            "        --*=*) ;;",
            "        -*) case \" $valued \" in *\" $word \"*) skip=1 ;; esac ;;",
            "        *)",
            "            case \" $subs \" in",
            "            *\" $word \"*) cmdpath=\"${cmdpath:+$cmdpath }$word\" argn=0 ;;",
            "            *) argn=$((argn + 1)) ;;",
            "            esac ;;",
            "        esac",
            "    done",
            "    _trove_data \"$cmdpath\"",
            "    if [ \"$skip\" = 1 ]; then",
            "        _trove_values \"$cmdpath\" \"$prev\"",
            "        _trove_reply",
            "        return 0",
            "    fi",
            "    if [[ \"$cur\" == -* ]]; then",
            "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))",
            "    elif [ -n \"$subs\" ]; then",
            "        COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))",
            "    else",
            "        _trove_arg \"$cmdpath\" \"$argn\"",
            "        _trove_reply",
            "    fi",
            "    return 0",
            "}",
            "complete -o filenames -F _trove trove",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - zsh

    package static func zsh(_ root: Command, layouts: [String]) -> String {
        let (commands, values, arguments) = lookups(root, layouts: layouts)
        func described(_ word: Described) -> String {
            ShellQuoting.quoted(
                word.word.replacingOccurrences(of: ":", with: "\\:") + ":" + word.help)
        }
        var lines = [
            "#compdef trove",
            "# zsh completion for trove; generated by 'trove completions zsh'.",
            "",
            "_trove_data() {",
            "    case \"$1\" in",
        ]
        for command in commands {
            lines.append("    \(ShellQuoting.quoted(command.path)))")
            lines.append(
                "        subs=(\(command.subcommands.map(described).joined(separator: " ")))")
            lines.append("        opts=(\(command.options.map(described).joined(separator: " ")))")
            lines.append(
                "        valued=(\(command.valued.map(ShellQuoting.quoted).joined(separator: " "))) ;;"
            )
        }
        lines += [
            "    *) subs=() opts=() valued=() ;;",
            "    esac",
            "}",
            "",
            "_trove_values() {",
            "    case \"$1 $2\" in",
        ]
        func cases(_ entries: [OptionValues], pattern: (String) -> String) -> [String] {
            entries.map { entry in
                let words = entry.values.map(ShellQuoting.quoted).joined(separator: " ")
                return "    \(pattern(entry.key))) mode=\(entry.kind.mode) values=(\(words)) ;;"
            }
        }
        lines += cases(values) { ShellQuoting.quoted($0) }
        lines += [
            "    *) mode=files values=() ;;",
            "    esac",
            "}",
            "",
            "_trove_arg() {",
            "    case \"$1 $2\" in",
        ]
        lines += cases(arguments.filter { !$0.key.hasSuffix(" *") }) { ShellQuoting.quoted($0) }
        lines += cases(arguments.filter { $0.key.hasSuffix(" *") }) {
            ShellQuoting.quoted(String($0.dropLast())) + "*"
        }
        lines += [
            "    *) mode=files values=() ;;",
            "    esac",
            "}",
            "",
            "# Offers what $mode says: words, files when the word typed looks like a path or",
            "# is none of the words (wordsfiles), folders, or nothing to insert.",
            "_trove_reply() {",
            "    local -a matching",
            "    case $mode in",
            "    words) compadd -a values ;;",
            "    wordsfiles)",
            "        matching=(${(M)values:#${PREFIX}*})",
            "        if [[ $PREFIX == */* || $PREFIX == .* || $PREFIX == \\~* ]] || (( ! $#matching )); then",
            "            _files",
            "        else",
            "            compadd -a values",
            "        fi ;;",
            "    dirs) _files -/ ;;",
            "    none) return 1 ;;",
            "    *) _files ;;",
            "    esac",
            "}",
            "",
            "_trove() {",
            "    local cmdpath=\"\" word i skip=0 argn=0 prev=\"${words[CURRENT-1]}\" mode",
            "    local -a subs opts valued values names",
            "    for ((i = 2; i < CURRENT; i++)); do",
            "        word=\"${words[i]}\"",
            "        if [[ $skip == 1 ]]; then skip=0; continue; fi",
            "        _trove_data \"$cmdpath\"",
            "        case \"$word\" in",
            "        --*=*) ;;",
            "        -*) (( ${valued[(Ie)$word]} )) && skip=1 ;;",
            "        *)",
            "            # A nested expansion inside (( )) does not take subscript flags.",
            "            names=(${subs%%:*})",
            "            if (( ${names[(Ie)$word]} )); then",
            "                cmdpath=\"${cmdpath:+$cmdpath }$word\" argn=0",
            "            else",
            "                (( argn++ ))",
            "            fi ;;",
            "        esac",
            "    done",
            "    _trove_data \"$cmdpath\"",
            "    if [[ $skip == 1 ]]; then",
            "        _trove_values \"$cmdpath\" \"$prev\"",
            "        _trove_reply",
            "        return",
            "    fi",
            "    if [[ $PREFIX == -* ]]; then",
            "        _describe -t options 'option' opts",
            "    elif (( $#subs )); then",
            "        _describe -t commands 'command' subs",
            "    else",
            "        _trove_arg \"$cmdpath\" \"$argn\"",
            "        _trove_reply",
            "    fi",
            "}",
            "",
            "_trove \"$@\"",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: - fish

    package static func fish(_ root: Command, layouts: [String]) -> String {
        let entries = entries(root)
        func fishQuoted(_ text: String) -> String {
            "'"
                + text.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "'", with: "\\'") + "'"
        }
        var lines = [
            "# fish completion for trove; generated by 'trove completions fish'.",
            "",
            "function __trove_subs",
            "    switch \"$argv[1]\"",
        ]
        let commands = lookups(root, layouts: layouts).commands
        for command in commands where !command.subcommands.isEmpty {
            lines.append("        case \(fishQuoted(command.path))")
            lines.append(
                "            printf '%s\\n' \(command.subcommands.map { fishQuoted($0.word) }.joined(separator: " "))"
            )
        }
        lines += ["    end", "end", "", "function __trove_valued", "    switch \"$argv[1]\""]
        for command in commands {
            lines.append("        case \(fishQuoted(command.path))")
            lines.append(
                "            printf '%s\\n' \(command.valued.map(fishQuoted).joined(separator: " "))"
            )
        }
        lines += [
            "    end",
            "end",
            "",
            "# The command path of the line so far, e.g. 'import treasures'.",
            "function __trove_path",
            "    set -l tokens (commandline -opc)",
            "    set -e tokens[1]",
            "    set -l cmdpath",
            "    set -l skip 0",
            "    for token in $tokens",
            "        if test $skip = 1",
            "            set skip 0",
            "            continue",
            "        end",
            "        switch $token",
            "            case '--*=*'",
            "            case '-*'",
            "                if contains -- $token (__trove_valued \"$cmdpath\")",
            "                    set skip 1",
            "                end",
            "            case '*'",
            "                if contains -- $token (__trove_subs \"$cmdpath\")",
            "                    set cmdpath (string join ' ' -- $cmdpath $token | string trim)",
            "                end",
            "        end",
            "    end",
            "    echo \"$cmdpath\"",
            "end",
            "",
            "# Whether the line so far is at the command path given: __trove_at import treasures.",
            "# (A command substitution inside double quotes is not expanded: hence a function.)",
            "function __trove_at",
            "    set -l cmdpath (__trove_path)",
            "    test \"$cmdpath\" = \"$argv\"",
            "end",
            "",
            "# The words given that start with the word typed, and files when it looks like a",
            "# path or none of the words do: a built-in layout or a layout file.",
            "function __trove_words_or_files",
            "    set -l token (commandline -ct)",
            "    set -l matching",
            "    for word in $argv",
            "        if string match -q -- \"$token*\" $word",
            "            set -a matching $word",
            "        end",
            "    end",
            "    printf '%s\\n' $matching",
            "    if test (count $matching) -eq 0; or string match -q -r -- '^[.~]|/' $token",
            "        __fish_complete_path $token",
            "    end",
            "end",
            "",
            "complete -c trove -f",
        ]
        for entry in entries {
            let condition =
                "-n "
                + fishQuoted(
                    (["__trove_at"] + entry.path).joined(separator: " "))
            for sub in entry.subcommands {
                lines.append(
                    "complete -c trove \(condition) -a \(fishQuoted(sub.name)) -d \(fishQuoted(sub.abstract))"
                )
            }
            for option in entry.options {
                var line = "complete -c trove \(condition) -l \(fishQuoted(option.long))"
                if let short = option.short { line += " -s \(fishQuoted(String(short)))" }
                if !option.isFlag {
                    let kind = valueKind(of: option, in: entry, layouts: layouts)
                    let words = kind.words.joined(separator: " ")
                    switch kind {
                    case .words: line += " -x -a \(fishQuoted(words))"
                    case .wordsOrFiles:
                        line += " -x -a \(fishQuoted("(__trove_words_or_files " + words + ")"))"
                    case .files: line += " -r -F"
                    case .directories:
                        line +=
                            " -x -a \(fishQuoted("(__fish_complete_directories (commandline -ct))"))"
                    case .nothing: line += " -x"
                    }
                }
                lines.append(line + " -d \(fishQuoted(option.help))")
            }
            // fish has no argument index here: the first argument decides.
            if entry.subcommands.isEmpty, let first = entry.command.arguments.first {
                switch valueKind(of: first) {
                case .words(let words):
                    lines.append(
                        "complete -c trove \(condition) -a \(fishQuoted(words.joined(separator: " ")))"
                    )
                case .nothing: break
                default: lines.append("complete -c trove \(condition) -F")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
