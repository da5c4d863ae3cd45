import Foundation
import TroveKit

enum ExportCommand {
    static let command = Command(
        "export",
        abstract: "Write the JSON tree the apps read, from a layout.",
        discussion: """
            Writes the nested tree for 'firebase database:set / FILE' (stdout without
            --out), or with --update a multi-path update of what changed since the
            layout's last export, for 'firebase database:update / FILE'. Every export
            is recorded in the workspace, so --update is relative to the last one of
            either kind. --max-bytes writes multi-path update parts OUT.part-001.json ...
            each smaller than N bytes, and OUT.manifest.json listing them in order.
            Keys are sorted by UTF-8 bytes; the tree is two-space indented with each
            path's value on one line; numbers print as JavaScript prints them. Nothing
            is written when a record lacks a current geohash or a rendition, or breaks
            a Realtime Database limit.
            """,
        options: [
            Option(
                "layout", value: "name|path",
                help: "A built-in layout (flatirongo, trashmapper) or a layout file."),
            Option("out", short: "o", value: "file", help: "Write here instead of stdout."),
            Option("update", help: "Write only what changed since the last export."),
            Option(
                "max-bytes", value: "n",
                help: "Split into multi-path update parts smaller than N bytes (needs --out)."),
            Option("rules", value: "file", help: "Also write the GeoFire .indexOn rules here."),
        ]
    ) { invocation in
        guard let layoutName = invocation.option("layout") else {
            throw invocation.usageError("missing option --layout <name|path>")
        }
        let maxBytes = try invocation.option("max-bytes", as: "a whole number of at least 64") {
            Int($0).flatMap { $0 >= 64 ? $0 : nil }
        }
        let output = invocation.option("out").map(invocation.resolve)
        if maxBytes != nil && output == nil {
            throw invocation.usageError("--max-bytes needs --out FILE to name the parts after")
        }
        let layout = try loadLayout(layoutName, invocation)
        var options = ExportOptions(
            update: invocation.flag("update"), output: output, maxBytes: maxBytes,
            rules: invocation.option("rules").map(invocation.resolve))
        options.now = Date()
        let workspace = try invocation.openWorkspace()
        let out = invocation.context.standardOutput
        let summary = try Exporter.run(workspace: workspace, layout: layout, options: options) {
            out.write(String(decoding: $0, as: UTF8.self))
        }
        let noun = layout.records == .treasures ? "treasures" : "approved posts"
        var message =
            "exported \(summary.records) \(noun) with \(layoutName): \(summary.paths) paths"
        message += ", \(summary.changed) new or changed, \(summary.removed) removed"
        invocation.note(message)
        for path in summary.written { invocation.note("wrote \(path)") }
        for path in summary.unchanged { invocation.note("\(path) is unchanged") }
        return .success
    }

    /// A built-in layout by name, or a layout file by path.
    private static func loadLayout(_ name: String, _ invocation: Invocation) throws -> Layout {
        let path = invocation.resolve(name)
        let looksLikePath = name.contains("/") || name.hasSuffix(".json")
        do {
            if looksLikePath || FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.fileExists(atPath: path) else {
                    throw InputError(name, "no such layout file")
                }
                return try Layout(contentsOf: URL(fileURLWithPath: path), name: path)
            }
            let library = try TemplateLibrary(environment: invocation.context.environment)
            guard let url = library.layout(named: name) else {
                let known = library.names().filter { $0.hasPrefix("layouts/") }.map {
                    (($0 as NSString).lastPathComponent as NSString).deletingPathExtension
                }
                throw invocation.usageError(
                    "unknown layout '\(name)' (built-in: \(known.joined(separator: ", ")))"
                        + suggestion(for: name, among: known))
            }
            return try Layout(contentsOf: url, name: name)
        } catch let error as LayoutError {
            throw CommandFailure(error.description, status: .usage)
        }
    }
}
