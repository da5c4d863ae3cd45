import Foundation
import TroveKit

#if canImport(Glibc)
    import Glibc
#endif

/// How posts, decisions and conflicts are written for people and programs.
enum ReviewFormat {
    // MARK: - list

    static let tableHeader =
        pad("ID", 16) + pad("STATUS", 9) + pad("DATE", 21) + pad("USER", 16)
        + pad("DESCRIPTION", 42) + "SIGNALS\n"

    static func tableRow(_ post: PostSummary) -> String {
        var line = pad(safe(post.id), 16) + pad(post.status, 9) + pad(safe(post.date ?? "-"), 21)
        line += pad(safe(post.user ?? "-"), 16)
        let description = safe(post.description ?? "").replacingOccurrences(of: "\n", with: " ")
        line += pad(description.isEmpty ? "-" : description, 42)
        return line + (post.signalNames.isEmpty ? "-" : post.signalNames) + "\n"
    }

    static func csv(_ post: PostSummary) -> String {
        let fields = [
            post.id, post.user ?? "", post.latitude.map(jsonNumber) ?? "",
            post.longitude.map(jsonNumber) ?? "", post.date ?? "", post.description ?? "",
            post.status, post.signalNames.replacingOccurrences(of: ",", with: ";"),
        ]
        return fields.map(csvField).joined(separator: ",") + "\r\n"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        let cut = text.count >= width ? String(text.prefix(width - 2)) + "…" : text
        return cut + String(repeating: " ", count: max(1, width - cut.count))
    }

    /// User text made harmless for a terminal (`TerminalText`).
    static func safe(_ text: String) -> String { TerminalText.safe(text) }

    // MARK: - show

    /// How the photo preview is drawn, and the window it must fit in.
    struct PreviewStyle {
        /// Colour blocks; false draws grey characters (`NO_COLOR`, `TERM=dumb`).
        var colour: Bool
        /// The window's width in cells.
        var columns: Int
        /// The window's height in cells.
        var rows: Int
        /// 24-bit colour (`COLORTERM=truecolor`); otherwise the 256-colour palette.
        var trueColor = true
    }

    /// The window from `TIOCGWINSZ`, else `$COLUMNS`/`$LINES`, else 80×24; colour unless
    /// `NO_COLOR` is set or the terminal is `dumb` (or unnamed), 24-bit only where
    /// `COLORTERM` says the terminal has it.
    static func previewStyle(_ context: Context) -> PreviewStyle {
        let environment = context.environment
        let measured = context.standardOutput.windowSize
        let columns =
            measured?.columns ?? environment["COLUMNS"].flatMap(Int.init).flatMap {
                $0 > 0 ? $0 : nil
            }
            ?? 80
        let rows =
            measured?.rows ?? environment["LINES"].flatMap(Int.init).flatMap { $0 > 0 ? $0 : nil }
            ?? 24
        let term = environment["TERM"] ?? ""
        let colour = environment["NO_COLOR"] == nil && !term.isEmpty && term != "dumb"
        let colourTerm = (environment["COLORTERM"] ?? "").lowercased()
        return PreviewStyle(
            colour: colour, columns: max(8, columns), rows: max(4, rows),
            trueColor: colourTerm == "truecolor" || colourTerm == "24bit")
    }

    /// `show` and the queue on a terminal: the photo as large as the window allows with
    /// the whole post still in view. `reservedRows` are lines the caller prints after.
    static func screen(
        _ post: PostRecord, history: [Decision], style: PreviewStyle, reservedRows: Int,
        photoFirst: Bool = false
    ) -> String {
        var head = fieldLines(post)
        var trail = historyLines(history)
        // Lines wider than the window wrap and take more rows.
        func height(_ lines: [String]) -> Int {
            lines.reduce(0) { $0 + max(1, ($1.count + style.columns - 1) / style.columns) }
        }
        var free = style.rows - reservedRows - height(head) - height(trail)
        // In the queue the photo is what a moderator judges: in a small window, the links
        // and bookkeeping give way to it ('trove review show ID' keeps them all).
        if photoFirst && post.photo != nil && free < minimumPreviewRows + 1 {
            head = fieldLines(post, compact: true)
            free = style.rows - reservedRows - height(head) - height(trail)
        }
        // A long history gives way first (the oldest entries), so the post stays in view.
        if free < 0 && trail.count > 2 {
            let keep = max(1, trail.count - 1 + free - 1)
            let dropped = trail.count - 1 - keep
            if dropped > 0 {
                trail =
                    [trail[0], "  … \(dropped) earlier entries ('trove review log ID')"]
                    + trail.suffix(keep)
                free = style.rows - reservedRows - height(head) - height(trail)
            }
        }
        if post.photo != nil {
            // The last column is left free: writing it makes some terminals wrap.
            if free >= 4, let lines = previewLines(post: post, style: style, rows: free - 1) {
                head = lines + head
            } else if free >= 1 {
                head.insert("(no room for the photo preview in this window)", at: 0)
            }
        }
        return (head + trail).map { $0 + "\n" }.joined()
    }

    /// Fewer rows than this draw a photo too small to judge.
    static let minimumPreviewRows = 8

    /// The preview for at most `rows` rows of the window, nil when it cannot be drawn.
    static func previewLines(post: PostRecord, style: PreviewStyle, rows: Int) -> [String]? {
        guard let path = post.photo else { return nil }
        let columns = style.columns - 1
        if style.colour {
            return PhotoPreview.lines(
                path: path, columns: columns, rows: rows,
                palette: style.trueColor ? .trueColor : .ansi256)
                ?? ["(photo preview unavailable)"]
        }
        return PhotoPreview.greyLines(path: path, columns: columns, rows: rows)
            ?? ["(photo preview unavailable)"]
    }

    /// Every field and signal of a post, for people (no preview).
    static func details(_ post: PostRecord, history: [Decision]) -> String {
        (fieldLines(post) + historyLines(history)).map { $0 + "\n" }.joined()
    }

    /// The fields, one a line; `compact` leaves out the map links, the fingerprint, the
    /// source and the import time, and puts the size beside the photo.
    static func fieldLines(_ post: PostRecord, compact: Bool = false) -> [String] {
        let summary = post.summary
        var lines: [String] = []
        func field(_ name: String, _ value: String?) {
            guard let value else { return }
            for (offset, line) in safe(value).split(
                separator: "\n", omittingEmptySubsequences: false
            )
            .enumerated() {
                lines.append(
                    (offset == 0 ? pad(name + ":", 13) : String(repeating: " ", count: 13)) + line)
            }
        }
        field("post", summary.id)
        field("status", summary.status + (post.statusNote.map { " (\($0))" } ?? ""))
        field("user", summary.user)
        field("date", summary.date)
        if let lat = summary.latitude, let lon = summary.longitude {
            field(
                "position",
                String(format: "%.6f, %.6f", lat, lon) + (post.geohash.map { " (\($0))" } ?? ""))
            if !compact { field("map", Places.openStreetMapURL(latitude: lat, longitude: lon)) }
        }
        field("description", summary.description)
        let size = post.photoWidth.flatMap { width in
            post.photoHeight.map { "\(width)×\($0) px" }
        }
        if compact, let photo = post.photo {
            field("photo", photo + (size.map { " (\($0))" } ?? ""))
        } else {
            field("photo", post.photo ?? post.photoReference.map { "\($0) (not available)" })
            field("size", size)
            field("fingerprint", post.photoHash)
        }
        if let lat = post.exifLatitude, let lon = post.exifLongitude {
            var text = String(format: "%.6f, %.6f", lat, lon)
            if let claimedLat = summary.latitude, let claimedLon = summary.longitude {
                let distance = PostDistance.meters(claimedLat, claimedLon, lat, lon)
                text += " (\(PostDistance.text(distance)) from the claimed position)"
            }
            field("exif gps", text)
            if !compact {
                field("photo map", Places.openStreetMapURL(latitude: lat, longitude: lon))
            }
        }
        field("exif time", post.exifTime)
        if !compact {
            field("source", post.source)
            field("imported", post.importedAt)
        }
        lines.append("signals:" + (post.signals.isEmpty ? " none" : ""))
        for signal in post.signals {
            lines.append("  ! \(signal.name.rawValue): \(safe(signal.detail))")
        }
        return lines
    }

    static func historyLines(_ history: [Decision]) -> [String] {
        ["history:" + (history.isEmpty ? " none" : "")] + history.map { "  " + logLine($0) }
    }

    /// `review show --format json`: every field, the signals with details, the history.
    static func detailsJSON(_ post: PostRecord, history: [Decision]) -> String {
        let summary = post.summary
        var object = JSONObject([
            "id": summary.id, "user": summary.user, "lat": summary.latitude,
            "lon": summary.longitude, "date": summary.date, "description": summary.description,
            "status": summary.status, "status_note": post.statusNote, "photo": post.photo,
            "photo_ref": post.photoReference, "photo_width": post.photoWidth,
            "photo_height": post.photoHeight, "photo_hash": post.photoHash,
            "exif_lat": post.exifLatitude, "exif_lon": post.exifLongitude,
            "exif_time": post.exifTime, "geohash": post.geohash, "source": post.source,
            "imported_at": post.importedAt, "updated_at": post.updatedAt,
            "signals": post.signals.map {
                JSONObject(["name": $0.name.rawValue, "detail": $0.detail])
            },
        ])
        object.add("history", json: AuditTrail.json(history))
        return object.jsonText
    }

    // MARK: - Decisions

    static func logLine(_ entry: Decision) -> String {
        var line = "\(entry.at)  \(safe(entry.postID))  \(safe(entry.moderator))  "
        line += "\(entry.from.rawValue) → \(entry.to.rawValue)"
        if let reason = entry.reason { line += "  (\(reason))" }
        if let note = entry.note { line += "  " + safe(note) }
        if let appliedBy = entry.appliedBy { line += "  (applied by \(safe(appliedBy)))" }
        return line
    }

    static func unreadable(_ id: String, _ detail: String) -> String {
        "\(safe(id)): its photo could not be read (\(safe(detail))), so nobody has seen it"
    }

    static func conflict(
        _ id: String, _ expected: PostStatus, _ current: PostStatus, _ last: Decision?
    ) -> String {
        let who = last.map { " by \(safe($0.moderator)) at \($0.at)" } ?? ""
        if expected != current {
            return "\(safe(id)) is now \(current.rawValue) (you saw it \(expected.rawValue)): "
                + "decided\(who); use --force to decide anyway"
        }
        return "\(safe(id)) was already \(current.rawValue)\(who); use --force to decide again"
    }
}
