import Foundation
import TroveKit

enum TemplateCommand {
    static let command = Command(
        "template", abstract: "List, show and copy the starter files and layouts.",
        usesWorkspace: false, subcommands: [list, show, copy])

    static let list = Command(
        "list", abstract: "List the templates.", usesWorkspace: false
    ) { invocation in
        for name in try library(invocation).names() { invocation.print(name) }
        return .success
    }

    static let show = Command(
        "show", abstract: "Print a template.",
        arguments: [Argument("name", help: "A name from 'trove template list'.")],
        usesWorkspace: false
    ) { invocation in
        let url = try find(invocation)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw InputError(url.path, "cannot read the template")
        }
        invocation.context.standardOutput.write(String(decoding: data, as: UTF8.self))
        return .success
    }

    static let copy = Command(
        "copy", abstract: "Copy a template into the current folder (or DEST).",
        arguments: [
            Argument("name", help: "A name from 'trove template list'."),
            Argument("dest", help: "Where to write it (default: its file name).", arity: .optional),
        ],
        options: [Option("force", help: "Overwrite an existing file.")],
        usesWorkspace: false
    ) { invocation in
        let url = try find(invocation)
        var destination = invocation.resolve(invocation.argument("dest") ?? url.lastPathComponent)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory),
            isDirectory.boolValue
        {
            destination = (destination as NSString).appendingPathComponent(url.lastPathComponent)
        }
        if FileManager.default.fileExists(atPath: destination) && !invocation.flag("force") {
            throw CommandFailure("\(destination) exists; pass --force to overwrite it")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw InputError(url.path, "cannot read the template")
        }
        try AtomicFile.write(data, to: destination)
        invocation.note("wrote \(destination)")
        return .success
    }

    static func library(_ invocation: Invocation) throws -> TemplateLibrary {
        try TemplateLibrary(environment: invocation.context.environment)
    }

    private static func find(_ invocation: Invocation) throws -> URL {
        let name = invocation.argument("name")!
        let library = try library(invocation)
        if let url = library.url(for: name) { return url }
        throw invocation.usageError(
            "unknown template '\(name)'" + suggestion(for: name, among: library.names()))
    }
}
