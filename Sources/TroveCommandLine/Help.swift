/// Help text and usage lines, generated from a command's declaration.
package enum Help {
    /// `usage: trove near <lat> <lon> [--radius <distance>] [--posts]`
    package static func usageLine(_ command: Command, path: [String]) -> String {
        var parts = ["trove"] + path
        if command.action == nil && !command.subcommands.isEmpty {
            parts.append("<command>")
        } else {
            parts += command.arguments.map(\.usage)
            // A required option is part of the line itself, as swift-argument-parser shows it.
            parts += command.options.map { $0.missing != nil ? $0.usage : "[\($0.usage)]" }
        }
        return "usage: " + parts.joined(separator: " ")
    }

    package static func text(for command: Command, path: [String]) -> String {
        var lines: [String] = []
        lines.append("OVERVIEW: \(command.abstract)")
        if let discussion = command.discussion {
            lines.append("")
            lines.append(discussion)
        }
        lines.append("")
        lines.append(usageLine(command, path: path).replacingPrefix("usage: ", with: "USAGE: "))
        if !command.arguments.isEmpty {
            lines.append("")
            lines.append("ARGUMENTS:")
            for argument in command.arguments {
                lines.append(row(argument.usage, argument.help))
            }
        }
        lines.append("")
        lines.append("OPTIONS:")
        for option in command.allOptions(isRoot: path.isEmpty) {
            lines.append(row(option.label, option.help))
        }
        if !command.subcommands.isEmpty {
            lines.append("")
            lines.append("SUBCOMMANDS:")
            for sub in command.subcommands where !sub.isHidden {
                lines.append(row(sub.name, sub.abstract))
            }
            lines.append("")
            lines.append("  See 'trove help \((path + ["<command>"]).joined(separator: " "))'.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Two columns: the label padded to 26, then the help; long labels get a line alone.
    private static func row(_ label: String, _ help: String) -> String {
        let width = 26
        let indented = "  " + label
        if indented.count + 2 > width {
            return indented + "\n" + String(repeating: " ", count: width) + help
        }
        return indented + String(repeating: " ", count: width - indented.count) + help
    }
}

extension String {
    fileprivate func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
