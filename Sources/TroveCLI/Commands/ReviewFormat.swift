import Foundation
import TroveBase
import TroveCommandLine
import TroveKit
import TroveStore

#if canImport(Glibc)
    import Glibc
#endif

/// How posts, decisions and conflicts are written for people and programs.
enum ReviewFormat {
    // MARK: - list

    /// The `review list` table: ids whole (an id is for copying), the day of the date,
    /// users up to 20 characters, signals, and the description last, cut to end within
    /// `width` columns (whole when the width is unknown, as in a pipe). When the window is
    /// too narrow for a useful description beside the rest, it goes on a line of its own
    /// under its post, and the signals are cut instead of the id.
    static func table(_ posts: [PostSummary], width: Int?) -> String {
        let rows = posts.map { post in
            [
                safe(post.id), post.status, safe(day(post.date ?? "-")), safe(post.user ?? "-"),
                post.signalNames.isEmpty ? "-" : post.signalNames,
                oneLine(post.description ?? "").isEmpty ? "-" : oneLine(post.description ?? ""),
            ]
        }
        let header = ["ID", "STATUS", "DATE", "USER", "SIGNALS", "DESCRIPTION"]
        var widths = (0..<5).map { column in
            rows.reduce(header[column].count) { max($0, $1[column].count) }
        }
        widths[3] = min(widths[3], 20)
        var room = width.map { $0 - 1 - (widths.reduce(0, +) + 2 * widths.count) }
        let below = room.map { $0 < 20 } ?? false
        if below, let width {
            // The description goes under its post; the signals give way to the id.
            let rest = widths.prefix(4).reduce(0, +) + 2 * 4
            widths[4] = max(7, min(widths[4], width - 1 - rest))
            room = width - 1 - 4
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, cell) in cells.prefix(5).enumerated() {
                let shown = cut(cell, widths[column])
                text += shown
                if column < 4 || !below {
                    text += String(repeating: " ", count: widths[column] + 2 - shown.count)
                }
            }
            let description = room.map { cut(cells[5], $0) } ?? cells[5]
            return text + (below ? "\n    " : "") + description + "\n"
        }
        return line(header) + rows.map(line).joined()
    }

    /// The day of an ISO 8601 date and time (`2022-01-27` of `2022-01-27T09:30:00Z`).
    static func day(_ date: String) -> String {
        let bytes = Array(date.utf8)
        guard bytes.count > 10, bytes[10] == UInt8(ascii: "T") else { return date }
        return String(date.prefix(10))
    }

    /// `text` on one line: line breaks and tabs become spaces.
    static func oneLine(_ text: String) -> String {
        safe(text).replacingOccurrences(of: "\r\n", with: " ").replacingOccurrences(
            of: "\n", with: " "
        )
        .replacingOccurrences(of: "\t", with: " ")
    }

    /// `text` in at most `width` characters, ending in `…` when cut.
    static func cut(_ text: String, _ width: Int) -> String {
        text.count > width ? String(text.prefix(max(0, width - 1))) + "…" : text
    }

    static func csv(_ post: PostSummary) -> String {
        let fields = [
            post.id, post.user ?? "", post.latitude.map(jsonNumber) ?? "",
            post.longitude.map(jsonNumber) ?? "", post.date ?? "", post.description ?? "",
            post.status, post.signalNames.replacingOccurrences(of: ",", with: ";"),
        ]
        return CSVWriter.record(fields)
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
        let terminal = context.terminal
        let measured = context.standardOutput.windowSize
        return PreviewStyle(
            colour: !terminal.noColor && terminal.termHasColour,
            columns: max(8, measured?.columns ?? terminal.columns ?? 80),
            rows: max(4, measured?.rows ?? terminal.lines ?? 24),
            trueColor: terminal.trueColour)
    }

    /// `show` and the queue on a terminal: the photo as large as the window allows with
    /// the whole post still in view. `reservedRows` are lines the caller prints after.
    static func screen(
        _ post: Post, history: [Decision], style: PreviewStyle, reservedRows: Int,
        photoFirst: Bool = false, earlier: PostVersionRecord? = nil
    ) -> String {
        var head = fieldLines(post) + (earlier.map { changeLines(post, earlier: $0) } ?? [])
        var trail = historyLines(history)
        // Lines wider than the window wrap and take more rows.
        func height(_ lines: [String]) -> Int {
            lines.reduce(0) { $0 + max(1, ($1.count + style.columns - 1) / style.columns) }
        }
        var free = style.rows - reservedRows - height(head) - height(trail)
        // In the queue the photo is what a moderator judges: it keeps at least a third of
        // the window, and in a small one the links and bookkeeping give way to it
        // ('trove review show ID' keeps them all).
        let wanted =
            photoFirst && post.photo != nil ? max(minimumPreviewRows + 1, style.rows / 3) : 0
        if photoFirst && post.photo != nil && free < minimumPreviewRows + 1 {
            head = fieldLines(post, compact: true)
            free = style.rows - reservedRows - height(head) - height(trail)
        }
        // A long description is cut to the rows left, so the id, the user and the photo
        // stay on the screen (`trove review show ID` has it whole).
        if photoFirst, free < wanted, let description = post.description {
            let text = safe(description)
            let rows = text.split(separator: "\n", omittingEmptySubsequences: false).reduce(0) {
                $0 + max(1, (13 + $1.count + style.columns - 1) / style.columns)
            }
            let kept = max(1, rows - (wanted - free))
            if kept < rows {
                let cut = cutLines(text, rows: kept, width: max(8, style.columns - 1 - 13))
                head = fieldLines(post, compact: true, description: cut)
                free = style.rows - reservedRows - height(head) - height(trail)
            }
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

    /// `text` in at most `rows` lines of at most `width` characters, its line breaks kept,
    /// ending in `…` when cut.
    static func cutLines(_ text: String, rows: Int, width: Int) -> String {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = Substring(paragraph)
            repeat {
                lines.append(String(rest.prefix(width)))
                rest = rest.dropFirst(width)
            } while !rest.isEmpty
        }
        guard lines.count > rows else { return lines.joined(separator: "\n") }
        var kept = Array(lines.prefix(rows))
        kept[rows - 1] = String(kept[rows - 1].prefix(width - 1)) + "…"
        return kept.joined(separator: "\n")
    }

    /// Fewer rows than this draw a photo too small to judge.
    static let minimumPreviewRows = 8

    /// The preview for at most `rows` rows of the window, nil when it cannot be drawn.
    static func previewLines(post: Post, style: PreviewStyle, rows: Int) -> [String]? {
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
    static func details(
        _ post: Post, history: [Decision], earlier: PostVersionRecord? = nil
    ) -> String {
        let changes = earlier.map { changeLines(post, earlier: $0) } ?? []
        return (fieldLines(post) + changes + historyLines(history)).map { $0 + "\n" }.joined()
    }

    /// The fields that differ between an earlier version and the current one, the earlier
    /// value above the current one so they read side by side.
    static func changeLines(_ post: Post, earlier: PostVersionRecord) -> [String] {
        let summary = post.summary
        func position(_ lat: Double?, _ lon: Double?) -> String? {
            guard let lat, let lon else { return nil }
            return String(format: "%.6f, %.6f", lat, lon)
        }
        var moved = ""
        if let lat = summary.latitude, let lon = summary.longitude, let oldLat = earlier.latitude,
            let oldLon = earlier.longitude
        {
            moved = " (moved \(PostDistance.text(PostDistance.meters(oldLat, oldLon, lat, lon))))"
        }
        let pairs: [(String, String?, String?)] = [
            ("user", earlier.user, summary.user),
            (
                "position", position(earlier.latitude, earlier.longitude),
                position(summary.latitude, summary.longitude)
            ),
            ("date", earlier.date, summary.date),
            ("description", earlier.description, summary.description),
            ("photo", earlier.photoReference, post.photoReference),
            ("fingerprint", earlier.photoHash, post.photoHash),
        ]
        var lines = [
            "changed:     version \(line(earlier.version)) (\(line(earlier.seenAt))) → "
                + "\(post.version) (now)"
        ]
        for (name, then, now) in pairs where then != now {
            lines.append("  " + pad(name, 13) + "then: " + line(then ?? "-"))
            lines.append(
                "  " + String(repeating: " ", count: 13) + "now:  " + line(now ?? "-")
                    + (name == "position" ? moved : ""))
        }
        if lines.count == 1 { lines.append("  (the same fields; the photo reference moved)") }
        return lines
    }

    /// The fields, one a line; `compact` leaves out the map links, the fingerprint, the
    /// source and the import time, and puts the size beside the photo.
    static func fieldLines(_ post: Post, compact: Bool = false, description: String? = nil)
        -> [String]
    {
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
        // The queue decides on the version it drew, and needs the row for the photo.
        if !compact { field("version", post.version) }
        field("status", summary.status + (post.statusNote.map { " (\($0))" } ?? ""))
        field("user", summary.user)
        field("date", summary.date)
        if let lat = summary.latitude, let lon = summary.longitude {
            field(
                "position",
                String(format: "%.6f, %.6f", lat, lon) + (post.geohash.map { " (\($0))" } ?? ""))
            if !compact { field("map", ReviewMap.openStreetMapURL(latitude: lat, longitude: lon)) }
        }
        field("description", description ?? summary.description)
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
                field("photo map", ReviewMap.openStreetMapURL(latitude: lat, longitude: lon))
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
    static func detailsJSON(
        _ post: Post, history: [Decision], earlier: PostVersionRecord? = nil
    ) -> String {
        let summary = post.summary
        var object = JSONObject([
            "id": summary.id, "version": post.version, "user": summary.user,
            "lat": summary.latitude,
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
        if let earlier {
            object.add(
                "earlier_version",
                json: JSONObject([
                    "version": earlier.version, "seen_at": earlier.seenAt, "user": earlier.user,
                    "lat": earlier.latitude, "lon": earlier.longitude, "date": earlier.date,
                    "description": earlier.description, "photo_ref": earlier.photoReference,
                    "photo_hash": earlier.photoHash,
                ]).jsonText)
        }
        return object.jsonText
    }

    // MARK: - Decisions

    /// One line of the audit trail. Every text in it is kept to one line (`line`), so no
    /// name or note an older workspace holds can print a line of its own.
    ///
    /// What users and imports did is said in parentheses where a moderator's name goes
    /// (`(user u1)`, `(import)`), and every entry but a decision says its kind.
    static func logLine(_ entry: Decision) -> String {
        let who = entry.moderator.map(line) ?? "(\(line(entry.who)))"
        var text = "\(line(entry.at))  \(line(entry.postID))  \(who)  "
        if entry.kind != .decision { text += entry.kind.rawValue + "  " }
        text += "\(entry.from.rawValue) → \(entry.to.rawValue)"
        if let reason = entry.reason { text += "  (\(line(reason)))" }
        if let note = entry.note { text += "  " + line(note) }
        if let appliedBy = entry.appliedBy { text += "  (applied by \(line(appliedBy)))" }
        return text
    }

    /// User text kept to one harmless line: line breaks and tabs shown as `\n`, `\t`,
    /// other control characters and text-direction overrides as `�`.
    static func line(_ text: String) -> String {
        var result = ""
        for scalar in safe(text).unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\u{2028}", "\u{2029}", "\u{202A}"..."\u{202E}", "\u{2066}"..."\u{2069}":
                result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func alreadyDecided(_ id: String, _ status: PostStatus, _ last: Decision) -> String {
        "\(line(id)): already \(status.rawValue) by \(line(last.who))"
    }

    /// `review stats` as a table: a row per group, then the total.
    static func statsTable(_ stats: ReviewStats, grouping: ReviewStats.Grouping) -> String {
        let header = [
            grouping.rawValue, "decisions", "approved", "rejected", "flagged", "reopened",
            "undos", "overturned", "median time",
        ]
        let rows = (stats.rows + [stats.total]).map { row in
            [
                line(row.key), "\(row.decisions)", "\(row.approved)", "\(row.rejected)",
                "\(row.flagged)", "\(row.reopened)", "\(row.undos)", "\(row.overturned)",
                row.medianSeconds.map(duration) ?? "-",
            ]
        }
        let all = [header] + rows
        let widths = header.indices.map { column in
            all.map { $0[column].count }.max() ?? 0
        }
        return all.map { cells in
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                // Names to the left, numbers to the right.
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// Seconds in words a lead reads at a glance: 45s, 12m, 3h 5m, 2d 4h.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (days, hours, minutes) = (total / 86_400, total % 86_400 / 3600, total % 3600 / 60)
        if days > 0 { return "\(days)d \(hours)h" }
        if hours > 0 { return "\(hours)h \(minutes)m" }
        if minutes > 0 { return "\(minutes)m" }
        return "\(total)s"
    }

    /// Why an undo did nothing (any outcome but `.undone`).
    static func undoRefused(_ outcome: UndoOutcome) -> String {
        switch outcome {
        case .undone: return "undone"
        case .unknown(let id): return "no post '\(line(id))'"
        case .nothing(let id): return "\(line(id)): no decision of yours on it to undo"
        case .alreadyUndone(let id, let last):
            return "\(line(id)) is \(last.to.rawValue): its latest entry is already an undo "
                + "(by \(line(last.who)) at \(last.at)); nothing undone, decide again instead"
        case .overtaken(let id, let last):
            let what = last.kind == .decision ? "decided" : "changed"
            return "\(line(id)) was \(what) by \(line(last.who)) at \(last.at) since "
                + "(\(last.from.rawValue) → \(last.to.rawValue)): nothing undone"
        case .changed(let id, let last):
            return "\(line(id)) is no longer as your decision left it (\(last.to.rawValue), "
                + "version \(line(last.version ?? "?"))): nothing undone"
        }
    }

    static func stale(_ id: String, seen: String, current: String) -> String {
        "\(line(id)) changed since you saw it (version \(line(seen)), now \(current)): "
            + "not decided; see what changed with 'trove review show \(line(id))', "
            + "then decide on version \(current)"
    }

    static func superseded(_ id: String, _ seen: String, _ last: Decision) -> String {
        "\(line(id)) changed since you saw it (version \(line(seen))) and was "
            + "\(last.to.rawValue) by \(line(last.who)) since: nothing to do"
    }

    static func withdrawn(_ id: String, _ note: String?) -> String {
        "\(line(id)) was withdrawn by its user"
            + (note.map { " (\(line($0)))" } ?? "") + ": it takes no decision"
    }

    static func unreadable(_ id: String, _ detail: String) -> String {
        "\(safe(id)): its photo could not be read (\(safe(detail))), so nobody has seen it"
    }

    static func conflict(
        _ id: String, _ expected: PostStatus, _ current: PostStatus, _ last: Decision?
    ) -> String {
        let who = last.map { " by \(safe($0.who)) at \($0.at)" } ?? ""
        if expected != current {
            return "\(safe(id)) is now \(current.rawValue) (you saw it \(expected.rawValue)): "
                + "decided\(who); use --force to decide anyway"
        }
        return "\(safe(id)) was already \(current.rawValue)\(who); use --force to decide again"
    }
}
