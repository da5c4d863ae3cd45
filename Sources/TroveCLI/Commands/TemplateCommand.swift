import Foundation
import TroveBase
import TroveCommandLine
import TroveKit

enum TemplateCommand {
    static let command = Command(
        "template", abstract: "List, show and copy the starter files and layouts.",
        discussion: """
            The templates are built into trove. Set TROVE_TEMPLATES to a folder to use
            its files (e.g. an edited layouts/flatirongo.json or review-sheet.html) in
            place of the built-in ones of the same name.
            """,
        usesWorkspace: false, subcommands: [list, show, copy])

    static let list = Command(
        "list", abstract: "List the templates.", usesWorkspace: false
    ) { invocation in
        for name in try library(invocation).names() { invocation.print(name) }
        return .success
    }

    static let show = Command(
        "show", abstract: "Print a template.",
        arguments: [name],
        usesWorkspace: false
    ) { invocation in
        let (_, data) = try find(invocation)
        invocation.context.standardOutput.write(String(decoding: data, as: UTF8.self))
        return .success
    }

    static let copy = Command(
        "copy", abstract: "Copy a template into the current folder (or DEST).",
        arguments: [name, destination], options: [force],
        usesWorkspace: false
    ) { invocation in
        let (name, data) = try find(invocation)
        let file = (name as NSString).lastPathComponent
        var destination = invocation.resolve(invocation[Self.destination] ?? file)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory),
            isDirectory.boolValue
        {
            destination = (destination as NSString).appendingPathComponent(file)
        }
        if FileManager.default.fileExists(atPath: destination) && !invocation[Self.force] {
            throw CommandFailure("\(destination) exists; pass --force to overwrite it")
        }
        try AtomicFile.write(data, to: destination)
        invocation.note("wrote \(destination)")
        return .success
    }

    static let name = Argument<String>("name", help: "A name from 'trove template list'.")
    static let destination = Argument<String>(
        "dest", help: "Where to write it (default: its file name)."
    ).optional
    static let force = Flag("force", help: "Overwrite an existing file.")

    static func library(_ invocation: Invocation) throws -> TemplateLibrary {
        try TemplateLibrary(overrideFolder: invocation.context.templatesFolder)
    }

    private static func find(_ invocation: Invocation) throws -> (name: String, data: Data) {
        let name = invocation[Self.name]
        let library = try library(invocation)
        if let found = library.name(for: name), let data = library.contents(of: found) {
            return (found, data)
        }
        throw invocation.usageError(
            "unknown template '\(name)'" + suggestion(for: name, among: library.names()))
    }
}
