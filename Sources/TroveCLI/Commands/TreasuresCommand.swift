import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

/// `trove treasures list|show|rm`: the treasures in the workspace, like `review` for posts.
enum TreasuresCommand {
    static let command = Command(
        "treasures", abstract: "List, show and remove the treasures in the workspace.",
        subcommands: [list, show, rm])

    // MARK: - list

    static let list = Command(
        "list", abstract: "List the treasures, in key order.",
        discussion: """
            --format csv and --format geojson write files that 'trove import treasures'
            reads back into the same treasures, extras included with the type the workspace
            stores (an RFC 7946 FeatureCollection opens in geojson.io and QGIS). Images are
            absolute paths or URLs, so the listing imports from any folder.
            """,
        formats: [.text, .json, .csv, .geojson]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        let listing = try TreasureListing(workspace: workspace)
        // Data to a terminal is escaped whatever the format (`Invocation.escapesData`).
        let out = invocation
        switch invocation.format {
        case .csv:
            let typed = try listing.writeCSV { out.write($0) }
            if let first = typed.first {
                let count =
                    typed.count == 1 ? "1 extra value is" : "\(typed.count) extra values are"
                invocation.warn(
                    "warning: \(count) a number, boolean, array or object (first: "
                        + "\(ReviewFormat.safe(first.key)), column "
                        + "'\(ReviewFormat.safe(first.column))'); CSV holds it as text. Use "
                        + "--format geojson to keep the types, or read the column with a typed "
                        + "placeholder such as {extra.\(ReviewFormat.safe(first.column)):int}")
            }
        case .geojson: try listing.writeGeoJSON { out.write($0) }
        case .json: try listing.writeJSON { out.write($0) }
        case .text:
            var count = 0
            out.write(tableHeader)
            try listing.forEach { treasure in
                out.write(tableRow(treasure))
                count += 1
            }
            invocation.note("\(count) treasures")
        }
        return .success
    }

    static let tableHeader =
        pad("KEY", 24) + pad("NAME", 28) + pad("POSITION", 24) + pad("GEOHASH", 12) + "SOURCE\n"

    static func tableRow(_ treasure: Treasure) -> String {
        var line = pad(ReviewFormat.safe(treasure.key), 24)
        line += pad(ReviewFormat.safe(treasure.name).replacingOccurrences(of: "\n", with: " "), 28)
        line += pad("\(jsonNumber(treasure.latitude)), \(jsonNumber(treasure.longitude))", 24)
        let geohash = treasure.geohash.map { treasure.geohashIsCurrent ? $0 : "stale" } ?? "-"
        line += pad(geohash, 12)
        return line + ReviewFormat.safe(treasure.sourceText ?? "-") + "\n"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        let cut = text.count >= width ? String(text.prefix(width - 2)) + "…" : text
        return cut + String(repeating: " ", count: max(1, width - cut.count))
    }

    // MARK: - show

    static let key = Argument<String>("key", help: "The treasure's key.")

    static let show = Command(
        "show", abstract: "Show one treasure: every field, its extras, source and renditions.",
        arguments: [key],
        formats: [.text, .json]
    ) { invocation in
        let workspace = try invocation.openWorkspace()
        let key = invocation[Self.key]
        let listing = try TreasureListing(workspace: workspace)
        guard let treasure = try listing.treasure(key) else {
            throw CommandFailure("no treasure '\(key)'")
        }
        let renditions = try listing.renditions(of: key)
        if invocation.format == .json {
            var made = JSONObject()
            for rendition in renditions {
                made.add(
                    rendition.name,
                    JSONObject([
                        "path": rendition.path, "width": rendition.width,
                        "height": rendition.height,
                    ]))
            }
            invocation.print(
                TreasureListing.object(treasure).merging(JSONObject(["renditions": made]))
                    .jsonText)
            return .success
        }
        invocation.write(details(treasure, renditions: renditions))
        return .success
    }

    static func details(_ treasure: Treasure, renditions: [TreasureRendition]) -> String {
        func field(_ label: String, _ value: String, width: Int = 14) -> String {
            let label = ReviewFormat.safe(label) + ":"
            return label + String(repeating: " ", count: max(1, width - label.count))
                + ReviewFormat.safe(value) + "\n"
        }
        var text = field("key", treasure.key) + field("name", treasure.name)
        text += field(
            "position", "\(jsonNumber(treasure.latitude)), \(jsonNumber(treasure.longitude))")
        let geohash: String
        switch (treasure.geohash, treasure.geohashIsCurrent) {
        case (nil, _): geohash = "none (run 'trove geohash')"
        case (let value?, true): geohash = value
        case (let value?, false): geohash = "\(value), stale (run 'trove geohash')"
        }
        text += field("geohash", geohash)
        text += field("description", treasure.description ?? "-")
        text += field("image", treasure.image ?? "-")
        text += field("source", treasure.sourceText ?? "-")
        if !treasure.extras.isEmpty {
            text += "extras:\n"
            for extra in treasure.extras { text += "  " + field(extra.name, extra.json, width: 12) }
        }
        if !renditions.isEmpty {
            text += "renditions:\n"
            for rendition in renditions {
                let size = "\(rendition.width)×\(rendition.height)"
                text += "  " + field(rendition.name, "\(rendition.path) (\(size))", width: 12)
            }
        }
        return text
    }

    // MARK: - rm

    static let rm = Command(
        "rm", abstract: "Remove treasures from the workspace.",
        discussion: """
            All or nothing: an unknown key removes none. The next 'export --update' writes
            null for every path the treasures had. A treasure whose row is still in its
            file comes back at that file's next import: delete the row, or use
            'import treasures FILE --sync' after editing the file.
            """,
        arguments: [keys], options: [dryRun]
    ) { invocation in
        var keys: [String] = []
        for key in invocation[Self.keys] {
            if key == "-" {
                let text = String(decoding: invocation.context.readStandardInput(), as: UTF8.self)
                keys += text.split(whereSeparator: \.isNewline).map(String.init).filter {
                    !$0.isEmpty
                }
            } else {
                keys.append(key)
            }
        }
        if keys.isEmpty { throw invocation.usageError("no treasure keys given") }
        let workspace = try invocation.openWorkspace()
        let dryRun = invocation[Self.dryRun]
        let outcome = try TreasureRemover.remove(keys, from: workspace, dryRun: dryRun)
        if !outcome.unknown.isEmpty {
            let names = outcome.unknown.map { "'\($0)'" }.joined(separator: ", ")
            throw CommandFailure(
                "no treasure \(names) in the workspace; nothing was removed "
                    + "('trove treasures list' lists the keys)")
        }
        let count = outcome.removed.count
        let noun = count == 1 ? "treasure" : "treasures"
        invocation.note(
            "\(dryRun ? "would remove" : "removed") \(count) \(noun): "
                + outcome.removed.joined(separator: ", "))
        return .success
    }

    static let keys = Argument<String>(
        "key", help: "Treasure keys, or - to read them from stdin, one a line."
    ).variadic(minimum: 1)
    static let dryRun = Flag("dry-run", help: "Say what would be removed, change nothing.")
}
