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

    static func json(_ post: PostSummary) -> String {
        var text = "{\"id\": " + jsonString(post.id)
        text += ", \"user\": " + (post.user.map(jsonString) ?? "null")
        text += ", \"lat\": " + (post.latitude.map { "\($0)" } ?? "null")
        text += ", \"lon\": " + (post.longitude.map { "\($0)" } ?? "null")
        text += ", \"date\": " + (post.date.map(jsonString) ?? "null")
        text += ", \"description\": " + (post.description.map(jsonString) ?? "null")
        text += ", \"status\": " + jsonString(post.status)
        text += ", \"signals\": ["
        if !post.signalNames.isEmpty {
            text += "\"" + post.signalNames.replacingOccurrences(of: ",", with: "\", \"") + "\""
        }
        return text + "]}"
    }

    static func csv(_ post: PostSummary) -> String {
        let fields = [
            post.id, post.user ?? "", post.latitude.map { "\($0)" } ?? "",
            post.longitude.map { "\($0)" } ?? "", post.date ?? "", post.description ?? "",
            post.status, post.signalNames.replacingOccurrences(of: ",", with: ";"),
        ]
        return fields.map(csvField).joined(separator: ",") + "\r\n"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        let cut = text.count >= width ? String(text.prefix(width - 2)) + "…" : text
        return cut + String(repeating: " ", count: max(1, width - cut.count))
    }

    /// User text made harmless for a terminal: control characters (escape sequences
    /// could recolour, retitle or rewrite the screen) are shown as `�`.
    static func safe(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if (value < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(value) {
                result += "\u{FFFD}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    // MARK: - show

    /// How the photo preview is drawn: 24-bit colour, or grey characters under NO_COLOR.
    struct PreviewStyle {
        var colour: Bool
        var columns: Int
        var rows: Int
    }

    static func previewStyle(_ context: Context) -> PreviewStyle {
        var size = winsize()
        let measured =
            context.standardOutput.isTerminal && ioctl(1, UInt(TIOCGWINSZ), &size) == 0
            && size.ws_col > 0
        let columns =
            context.environment["COLUMNS"].flatMap(Int.init)
            ?? (measured ? Int(size.ws_col) : 80)
        return PreviewStyle(
            colour: context.environment["NO_COLOR"] == nil, columns: max(8, min(columns - 2, 64)),
            rows: 16)
    }

    static func details(_ post: PostRecord, history: [Decision], preview: PreviewStyle?)
        -> String
    {
        let summary = post.summary
        var text = ""
        if let preview, let path = post.photo {
            text += previewLines(path: path, style: preview).map { $0 + "\n" }.joined()
        }
        func field(_ name: String, _ value: String?) {
            guard let value else { return }
            text += pad(name + ":", 13) + safe(value) + "\n"
        }
        field("post", summary.id)
        field("status", summary.status + (post.statusNote.map { " (\($0))" } ?? ""))
        field("user", summary.user)
        field("date", summary.date)
        if let lat = summary.latitude, let lon = summary.longitude {
            field(
                "position",
                String(format: "%.6f, %.6f", lat, lon) + (post.geohash.map { " (\($0))" } ?? ""))
        }
        field("description", summary.description)
        field("photo", post.photo ?? post.photoReference.map { "\($0) (not available)" })
        if let width = post.photoWidth, let height = post.photoHeight {
            field("size", "\(width)×\(height) px")
        }
        field("fingerprint", post.photoHash)
        if let lat = post.exifLatitude, let lon = post.exifLongitude {
            field("exif gps", String(format: "%.6f, %.6f", lat, lon))
        }
        field("exif time", post.exifTime)
        field("source", post.source)
        field("imported", post.importedAt)
        text += "signals:" + (post.signals.isEmpty ? " none\n" : "\n")
        for signal in post.signals {
            text += "  ! \(signal.name.rawValue): \(safe(signal.detail))\n"
        }
        text += "history:" + (history.isEmpty ? " none\n" : "\n")
        for entry in history { text += "  " + logLine(entry) + "\n" }
        return text
    }

    static func previewLines(path: String, style: PreviewStyle) -> [String] {
        if style.colour {
            return PhotoPreview.lines(path: path, columns: style.columns, rows: style.rows)
                ?? ["(photo preview unavailable)"]
        }
        return PhotoPreview.greyLines(path: path, columns: style.columns, rows: style.rows)
            ?? ["(photo preview unavailable)"]
    }

    // MARK: - Decisions

    static func logLine(_ entry: Decision) -> String {
        var line = "\(entry.at)  \(safe(entry.postID))  \(safe(entry.moderator))  "
        line += "\(entry.from) → \(entry.to)"
        if let reason = entry.reason { line += "  (\(reason))" }
        if let note = entry.note { line += "  " + safe(note) }
        return line
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
