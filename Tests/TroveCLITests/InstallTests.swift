import Foundation
import Testing

@testable import TroveCLI
@testable import TroveStore

/// What `make install` installs beside the binary, generated from the declarations:
/// completions and the man page; and the overview and version a user sees first.
@Suite struct InstallTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    /// Runs the generated bash completion for a partial command line and returns the
    /// candidates, as bash would offer them after a Tab.
    func complete(_ words: [String]) throws -> [String] {
        let script = sandbox.run("completions", "bash").stdout
        try sandbox.write("trove.bash", script)
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let driver = """
            source '\(sandbox.path("trove.bash"))'
            COMP_WORDS=(\(quoted.joined(separator: " ")))
            COMP_CWORD=\(words.count - 1)
            _trove
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["--norc", "--noprofile", "-c", driver]
        process.currentDirectoryURL = sandbox.folder
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesTheCommandsRealFlags() throws {
        let flags = try complete(["trove", "import", "treasures", "--"])
        let declared = ImportCommand.command.subcommands.first { $0.name == "treasures" }!
            .declaredOptions(isRoot: false).map { "--" + $0.long }
        #expect(Set(flags) == Set(declared))
        #expect(flags.contains("--skip-invalid"))
        #expect(try complete(["trove", "import", "treasures", "--sk"]) == ["--skip-invalid"])
        #expect(try complete(["trove", "exp"]) == ["export"])
        #expect(Set(try complete(["trove", "review", "ap"])) == ["apply", "approve"])
        // Values: --layout offers the built-in layouts, also after options and -w PATH.
        #expect(
            try complete(["trove", "-w", "x.sqlite", "export", "--update", "--layout", ""])
                == ["flatirongo", "trashmapper"])
        #expect(try complete(["trove", "review", "list", "--format", "c"]) == ["csv"])
        // Hidden utility commands are not offered.
        #expect(!(try complete(["trove", ""])).contains("completions"))
    }

    /// Setting names for `config set`, files for a layout given as a path, nothing literal
    /// for a value to type.
    @Test func bashCompletesSettingsLayoutFilesAndNothingForValuesToType() throws {
        try sandbox.write("my-layout.json", "{}")
        try sandbox.write("maps/m2.json", "{}")
        let keys = Setting.all.map(\.key)
        #expect(try complete(["trove", "config", "set", ""]) == keys)
        #expect(try complete(["trove", "config", "get", "storage.b"]) == ["storage.bucket"])
        #expect(try complete(["trove", "-q", "config", "unset", "geo"]) == ["geohash.precision"])
        // The value after the key is typed, not a file.
        #expect(try complete(["trove", "config", "set", "storage.bucket", ""]) == [])
        #expect(
            try complete(["trove", "export", "--layout", "./m"]) == ["./maps", "./my-layout.json"])
        #expect(try complete(["trove", "export", "--layout", "my"]) == ["my-layout.json"])
        #expect(try complete(["trove", "export", "--layout", "maps/"]) == ["maps/m2.json"])
        #expect(try complete(["trove", "export", "--layout", "f"]) == ["flatirongo"])
        for words in [
            ["trove", "images", "--rendition", ""], ["trove", "images", "--rendition", "th"],
            ["trove", "near", "40.7", ""], ["trove", "near", "40.7", "-74", "--radius", ""],
        ] {
            #expect(try complete(words) == [], "\(words)")
        }
        // Files where files are meant, still.
        #expect(try complete(["trove", "import", "treasures", "my"]) == ["my-layout.json"])
        #expect(try complete(["trove", "export", "-o", "my"]) == ["my-layout.json"])
    }

    @Test func zshAndFishScriptsNameEveryCommandAndFlag() {
        let zsh = sandbox.run("completions", "zsh")
        let fish = sandbox.run("completions", "fish")
        #expect(zsh.status == 0 && fish.status == 0)
        #expect(zsh.stdout.hasPrefix("#compdef trove\n"))
        #expect(zsh.stdout.contains("'--skip-invalid:"))
        #expect(fish.stdout.contains("-l 'skip-invalid'"))
        #expect(fish.stdout.contains("-a 'treasures'"))
        let bad = sandbox.run("completions", "tcsh")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("use bash, zsh or fish"))
    }

    /// Runs `shell` with `arguments` in the sandbox; its standard output, or nil when the
    /// shell is not installed (`make test-deps` installs bash, zsh and fish).
    func runShell(_ shell: String, _ arguments: [String]) throws -> (status: Int32, out: String)? {
        guard
            let path = ["/usr/bin/\(shell)", "/bin/\(shell)"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            Issue.record("\(shell) is not installed: run make test-deps")
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = sandbox.folder
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": sandbox.folder.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func everyShellAcceptsItsScript() throws {
        for (shell, flags) in [("bash", ["-n"]), ("zsh", ["-n"]), ("fish", ["--no-execute"])] {
            let file = try sandbox.write("trove.\(shell)", sandbox.run("completions", shell).stdout)
            let result = try runShell(shell, flags + [file])
            #expect(result?.status == 0, "\(shell) rejects its completion script")
        }
    }

    /// fish offers what `complete -C` prints for a partial line: candidate, tab, help.
    @Test func fishCompletesTheCommandsRealFlags() throws {
        let file = try sandbox.write("trove.fish", sandbox.run("completions", "fish").stdout)
        func complete(_ line: String) throws -> [String] {
            let out = try runShell("fish", ["-c", "source '\(file)'; complete -C '\(line)'"])
            return (out?.out ?? "").split(separator: "\n").map {
                String($0.split(separator: "\t").first ?? "")
            }
        }
        #expect(try complete("trove import treasures --sk") == ["--skip-invalid"])
        #expect(try complete("trove exp") == ["export"])
        #expect(Set(try complete("trove review ap")) == ["apply", "approve"])
        #expect(
            try complete("trove -w x.sqlite export --update --layout ")
                == ["flatirongo", "trashmapper"])
        try sandbox.write("my-layout.json", "{}")
        #expect(try complete("trove export --layout ./m") == ["./my-layout.json"])
        #expect(try complete("trove config set storage.b") == ["storage.bucket"])
        #expect(try complete("trove images --rendition ") == [])
    }

    /// zsh's completion system is driven with its helpers replaced by ones that print
    /// what they were given; zsh itself then filters by the typed prefix.
    @Test func zshCompletesTheCommandsRealFlags() throws {
        let file = try sandbox.write("trove.zsh", sandbox.run("completions", "zsh").stdout)
        let driver = try sandbox.write(
            "drive.zsh",
            """
            _describe() { local -a entries; entries=("${(@P)4}"); print -l -- "${entries[@]%%:*}" }
            compadd() { print -l -- "${(@P)2}" }
            _files() { print -- "<files>" }
            source '\(file)' > /dev/null
            words=(trove "$@"); CURRENT=$#words; PREFIX="${words[-1]}"
            _trove
            """)
        func candidates(_ words: String...) throws -> [String] {
            let out = try runShell("zsh", [driver] + words)
            return (out?.out ?? "").split(separator: "\n").map(String.init)
        }
        let flags = try candidates("import", "treasures", "--sk")
        #expect(flags.contains("--skip-invalid") && flags.contains("--sync"))
        #expect(!flags.contains("--photos"), "the flags of import posts")
        #expect(try candidates("review", "ap").contains("approve"))
        #expect(
            try candidates("-w", "x.sqlite", "export", "--layout", "") == [
                "flatirongo", "trashmapper",
            ])
        #expect(try candidates("export", "--layout", "./m") == ["<files>"])
        #expect(try candidates("config", "set", "") == Setting.all.map(\.key))
        #expect(try candidates("config", "set", "storage.bucket", "") == [])
        #expect(try candidates("images", "--rendition", "") == [])
        #expect(try candidates("import", "treasures", "") == ["<files>"])
    }

    @Test func theManPageRendersWithManAndNamesEveryCommand() throws {
        let page = sandbox.run("man")
        #expect(page.status == 0)
        #expect(page.stdout.hasPrefix(".\\\" Generated by 'trove man'"))
        let file = try sandbox.write("trove.1", page.stdout)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/man")
        process.arguments = ["-l", file]
        process.environment = [
            "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100", "PATH": "/usr/bin:/bin",
        ]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: errors, as: UTF8.self) == "")
        for command in ["import treasures", "export", "review sheet", "storage rotate"] {
            #expect(text.contains(command), "\(command)")
        }
        #expect(text.contains("--skip-invalid"))
        #expect(text.contains("TROVE_TEMPLATES"))
    }

    @Test func bareTrovePrintsTheOverview() {
        let result = sandbox.run([])
        #expect(result.status == 0)
        #expect(result.stdout == sandbox.run("--help").stdout)
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        #expect(!result.stdout.contains("completions"))
    }

    @Test func versionNamesTheLibrariesItRunsOn() {
        let result = sandbox.run("--version")
        #expect(result.status == 0)
        let line = result.stdout
        #expect(line.hasPrefix("trove \(TroveCLI.version) (SQLite 3."))
        #expect(line.contains(", libjpeg-turbo "))
        #expect(line.contains(", libpng 1."))
    }
}

/// Commands read their values only through their typed declarations.
@Suite struct DeclarationTests {
    /// `flag("x")`, `option("x")`, `options("x")`, `argument("x")`, `arguments("x")` and
    /// `values["x"]` in the command-line sources, with the file they are in.
    static func namesRead() throws -> [(file: String, read: String)] {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
        let pattern = try NSRegularExpression(
            pattern: #"\.(flag|options?|arguments?)\("[a-z0-9-]+"|values\["[a-z0-9-]+"\]"#)
        var found: [(String, String)] = []
        var fileCount = 0
        for module in ["TroveCLI", "TroveCommandLine"] {
            let folder = sources.appendingPathComponent(module)
            let files =
                FileManager.default.enumerator(atPath: folder.path)?
                .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
            fileCount += files.count
            for file in files {
                let text = try String(
                    contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
                {
                    if let range = Range(match.range, in: text) {
                        found.append((module + "/" + file, String(text[range])))
                    }
                }
            }
        }
        #expect(fileCount > 30)
        return found
    }

    @Test func noCommandReadsAValueByName() throws {
        for (file, read) in try Self.namesRead() {
            Issue.record("\(file) reads \(read): read it with its declaration instead")
        }
    }
}
