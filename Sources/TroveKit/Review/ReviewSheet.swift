import Foundation
import TroveImaging

/// Escaping for the review sheet: user text only ever reaches the page through these.
public enum HTML {
    /// Text between tags: `&`, `<`, `>` escaped; NUL replaced.
    public static func text(_ value: String) -> String {
        escape(value, quotes: false)
    }

    /// A quoted attribute value: also both quote characters, so no value can end the
    /// attribute whichever quote surrounds it.
    public static func attribute(_ value: String) -> String {
        escape(value, quotes: true)
    }

    private static func escape(_ value: String, quotes: Bool) -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where quotes: result += "&quot;"
            case "'" where quotes: result += "&#39;"
            case "`" where quotes: result += "&#96;"
            case "\0": result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A JSON string literal safe inside `<script type="application/json">`: `<`, `>` and
    /// `&` become `\u003c`, `\u003e`, `\u0026`, so no text can close the element.
    public static func scriptJSON(_ value: String) -> String {
        var result = ""
        for scalar in jsonString(value).unicodeScalars {
            switch scalar {
            case "<": result += "\\u003c"
            case ">": result += "\\u003e"
            case "&": result += "\\u0026"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// Why the sheet could not be made.
public struct ReviewSheetError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let message: String
    /// The message.
    public var description: String { message }
}

/// The self-contained review page (`review sheet`).
///
/// Photos are inlined as small JPEG/PNG `data:` URIs; the page loads nothing from the
/// network. A Content-Security-Policy allows only the template's own script and style,
/// by their SHA-256, so even a missed escape could not run a script. The same workspace
/// gives the same bytes.
public struct ReviewSheet {
    /// The template text, with `{{csp}}`, `{{title}}`, `{{summary}}`, `{{cards}}` and
    /// `{{data}}`.
    let template: String
    /// The box thumbnails fit in.
    public var thumbnailSize = 320

    /// - Throws: `ReviewSheetError` when the template lacks its script or style block.
    public init(template: String) throws(ReviewSheetError) {
        guard Self.block("script", in: template) != nil, Self.block("style", in: template) != nil
        else {
            throw ReviewSheetError(
                message: "the review sheet template needs one <script> and one <style> block")
        }
        self.template = template
    }

    /// The content of the first `<NAME>` … `</NAME>` block (exactly `<NAME>`).
    static func block(_ name: String, in text: String) -> Substring? {
        guard let open = text.range(of: "<\(name)>"),
            let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
        else { return nil }
        return text[open.upperBound..<close.lowerBound]
    }

    /// `'sha256-…'` of a block, as CSP wants it.
    static func hashSource(_ content: Substring) -> String {
        "'sha256-" + Data(SHA256.digest(Array(content.utf8))).base64EncodedString() + "'"
    }

    /// The Content-Security-Policy of this template.
    public var contentSecurityPolicy: String {
        let script = Self.block("script", in: template).map(Self.hashSource) ?? "'none'"
        let style = Self.block("style", in: template).map(Self.hashSource) ?? "'none'"
        return
            "default-src 'none'; img-src data:; style-src \(style); script-src \(script); "
            + "base-uri 'none'; form-action 'none'"
    }

    /// Renders the page for `posts`.
    public func render(posts: [PostRecord], title: String) -> String {
        let bounds = MapBounds(
            posts.compactMap { post in
                guard let lat = post.summary.latitude, let lon = post.summary.longitude else {
                    return nil
                }
                return (lat, lon)
            })
        let cards = posts.map { card($0, bounds: bounds) }.joined(separator: "\n")
        let entries = posts.map { post in
            "{\"id\":\(HTML.scriptJSON(post.summary.id)),"
                + "\"status\":\(HTML.scriptJSON(post.summary.status))}"
        }
        let reasons = RejectionReason.allCases.map { HTML.scriptJSON($0.rawValue) }
        let data =
            "{\"format\":\"trove-review-decisions\",\"posts\":[" + entries.joined(separator: ",")
            + "],\"reasons\":[" + reasons.joined(separator: ",") + "]}"
        var counts: [String: Int] = [:]
        for post in posts { counts[post.summary.status, default: 0] += 1 }
        let summary =
            posts.count == 1 ? "1 post" : "\(posts.count) posts"
        return Self.fill(
            template,
            [
                // Our own text, free of '"', '<' and '&'; kept readable in the page.
                "csp": contentSecurityPolicy, "title": HTML.text(title),
                "summary": HTML.text(summary), "data": data, "cards": cards,
            ])
    }

    /// Replaces `{{name}}` placeholders in one pass, so text inserted for one placeholder
    /// is never searched for another.
    static func fill(_ template: String, _ values: [String: String]) -> String {
        var result = ""
        var rest = template[...]
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            guard let close = rest.range(of: "}}", range: open.upperBound..<rest.endIndex),
                let value = values[String(rest[open.upperBound..<close.lowerBound])]
            else {
                result += "{{"
                rest = rest[open.upperBound...]
                continue
            }
            result += value
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    // MARK: - Cards

    private func card(_ post: PostRecord, bounds: MapBounds) -> String {
        let summary = post.summary
        let id = HTML.attribute(summary.id)
        var html = "<article class=\"card\" data-id=\"\(id)\" "
        html += "data-status=\"\(HTML.attribute(summary.status))\">\n"
        html += "<div class=\"photo\">\(photo(post))</div>\n"
        html += "<div class=\"info\">\n"
        html += "<h2><span class=\"id\">\(HTML.text(summary.id))</span> "
        html += "<span class=\"status\">\(HTML.text(summary.status))</span></h2>\n<dl>\n"
        func row(_ name: String, _ value: String?) {
            guard let value else { return }
            html += "<dt>\(name)</dt><dd>\(HTML.text(value))</dd>\n"
        }
        row("user", summary.user)
        row("date", summary.date)
        if let lat = summary.latitude, let lon = summary.longitude {
            row("position", String(format: "%.6f, %.6f", lat, lon))
        }
        row("note", post.statusNote)
        html += "</dl>\n"
        html += "<p class=\"description\">\(HTML.text(summary.description ?? ""))</p>\n"
        if !post.signals.isEmpty {
            html += "<ul class=\"signals\">"
            for signal in post.signals {
                html += "<li class=\"badge\" title=\"\(HTML.attribute(signal.detail))\">"
                html += "\(HTML.text(signal.name.rawValue))<span class=\"detail\">: "
                html += "\(HTML.text(signal.detail))</span></li>"
            }
            html += "</ul>\n"
        }
        if let lat = summary.latitude, let lon = summary.longitude {
            html += bounds.svg(latitude: lat, longitude: lon) + "\n"
        }
        html += "<div class=\"actions\">"
        html += "<button type=\"button\" data-action=\"approve\">approve (a)</button>"
        html += "<button type=\"button\" data-action=\"reject\">reject (r, 1–8)</button>"
        html += "<button type=\"button\" data-action=\"flag\">flag (f)</button>"
        html += "<button type=\"button\" data-action=\"undo\">undo (u)</button>"
        html += "</div>\n<p class=\"decision\" aria-live=\"polite\"></p>\n</div>\n</article>"
        return html
    }

    private func photo(_ post: PostRecord) -> String {
        guard let path = post.photo else {
            let why = post.photoReference == nil ? "no photo" : "photo not available"
            return "<p class=\"nophoto\">\(why)</p>"
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            return "<p class=\"nophoto\">photo not readable</p>"
        }
        do {
            let image = try Thumbnailer.render(
                source: Array(data), box: (thumbnailSize, thumbnailSize), mode: .fit,
                quality: 70)
            let mime = image.format == .png ? "image/png" : "image/jpeg"
            let base64 = Data(image.bytes).base64EncodedString()
            return "<img src=\"data:\(mime);base64,\(base64)\" width=\"\(image.width)\" "
                + "height=\"\(image.height)\" alt=\"photo of post \(HTML.attribute(post.summary.id))\">"
        } catch {
            return "<p class=\"nophoto\">photo unreadable: \(HTML.text(error.description))</p>"
        }
    }
}

/// The rectangle around the sheet's posts, drawn as a small SVG "map" without tiles:
/// a frame, a graticule, and the post's position in it.
struct MapBounds {
    var minLatitude = 0.0
    var maxLatitude = 0.0
    var minLongitude = 0.0
    var maxLongitude = 0.0
    let width = 200.0
    let height = 120.0

    init(_ points: [(Double, Double)]) {
        guard let first = points.first else { return }
        minLatitude = first.0
        maxLatitude = first.0
        minLongitude = first.1
        maxLongitude = first.1
        for (lat, lon) in points {
            minLatitude = min(minLatitude, lat)
            maxLatitude = max(maxLatitude, lat)
            minLongitude = min(minLongitude, lon)
            maxLongitude = max(maxLongitude, lon)
        }
        // At least ~500 m across, so a single post sits in the middle of a city block.
        let pad = 0.0025
        minLatitude -= pad
        maxLatitude += pad
        minLongitude -= pad
        maxLongitude += pad
    }

    func svg(latitude: Double, longitude: Double) -> String {
        let x = (longitude - minLongitude) / max(maxLongitude - minLongitude, 1e-9) * width
        let y = (maxLatitude - latitude) / max(maxLatitude - minLatitude, 1e-9) * height
        let across = PostDistance.meters(
            (minLatitude + maxLatitude) / 2, minLongitude, (minLatitude + maxLatitude) / 2,
            maxLongitude)
        var svg = "<svg class=\"map\" viewBox=\"0 0 200 120\" width=\"200\" height=\"120\" "
        svg += "role=\"img\" aria-label=\"position within the posts of this sheet\">"
        svg += "<rect x=\"0\" y=\"0\" width=\"200\" height=\"120\" fill=\"#eef3ea\" "
        svg += "stroke=\"#889\"/>"
        for step in 1..<4 {
            let gx = Double(step) * width / 4
            let gy = Double(step) * height / 4
            svg += "<line x1=\"\(fmt(gx))\" y1=\"0\" x2=\"\(fmt(gx))\" y2=\"120\" stroke=\"#cdd\"/>"
            svg += "<line x1=\"0\" y1=\"\(fmt(gy))\" x2=\"200\" y2=\"\(fmt(gy))\" stroke=\"#cdd\"/>"
        }
        svg += "<circle cx=\"\(fmt(x))\" cy=\"\(fmt(y))\" r=\"5\" fill=\"#d22\" stroke=\"#fff\"/>"
        svg +=
            "<text x=\"4\" y=\"114\" font-size=\"9\" fill=\"#556\">\(PostDistance.text(across)) across</text>"
        svg += "</svg>"
        return svg
    }

    private func fmt(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}

/// A decision made in the sheet and downloaded as JSON, for `review apply`.
public struct SheetDecision: Equatable, Sendable {
    /// The post id.
    public var id: String
    /// The status the moderator saw the post in.
    public var expected: PostStatus
    /// What to do.
    public var action: ReviewAction
    /// The moderator's note.
    public var note: String?
    /// When the moderator decided, ISO 8601 UTC (absent in files of older sheets).
    public var decidedAt: String?
    /// Whether the moderator confirmed approving a post whose photo could not be read.
    public var confirmed = false
}

/// The decisions file the sheet downloads.
public struct SheetDecisionFile: Equatable, Sendable {
    /// The sheet's id (absent in files of older sheets).
    public var sheet: String?
    /// The id of the workspace the sheet was made from.
    public var workspace: String?
    /// The moderator who decided, as entered in the page.
    public var moderator: String?
    /// The decisions, in the order they were made.
    public var decisions: [SheetDecision]
}

/// Reads the decisions file the sheet downloads:
/// `{"format": "trove-review-decisions", "sheet", "workspace", "moderator", "decisions":
/// [{"id", "seen", "action", "reason", "note", "at", "confirmed"}]}` (`seen` was
/// `expected` in older files).
public enum SheetDecisions {
    /// - Throws: `InputError` naming the file and the entry.
    public static func parse(_ data: Data, name: String) throws(InputError) -> SheetDecisionFile {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw InputError(name, "not a JSON object")
        }
        guard root["format"] as? String == "trove-review-decisions",
            let items = root["decisions"] as? [Any]
        else {
            throw InputError(
                name, "not a decisions file from 'trove review sheet'",
                hint: "expected \"format\": \"trove-review-decisions\" and a \"decisions\" array")
        }
        func text(_ key: String) -> String? {
            (root[key] as? String).flatMap {
                $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0
            }
        }
        var result: [SheetDecision] = []
        for (index, item) in items.enumerated() {
            let location = "\(name): decisions[\(index)]"
            guard let object = item as? [String: Any], let id = object["id"] as? String else {
                throw InputError(location, "expected an object with an \"id\"")
            }
            guard let expectedText = (object["seen"] ?? object["expected"]) as? String,
                let expected = PostStatus(rawValue: expectedText)
            else { throw InputError(location, "missing or unknown \"seen\" status") }
            let note = (object["note"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            let action: ReviewAction
            switch object["action"] as? String {
            case "approve": action = .approve
            case "flag": action = .flag
            case "reopen": action = .reopen
            case "reject":
                guard let reasonText = object["reason"] as? String,
                    let reason = RejectionReason(rawValue: reasonText)
                else { throw InputError(location, "a rejection needs a known \"reason\"") }
                action = .reject(reason)
            default:
                throw InputError(location, "unknown \"action\" (approve, reject, flag, reopen)")
            }
            let decidedAt = object["at"] as? String
            if let decidedAt, parseTimestamp(decidedAt) == nil {
                throw InputError(location, "\"at\" is not an ISO 8601 time: \(decidedAt)")
            }
            result.append(
                SheetDecision(
                    id: id, expected: expected, action: action, note: note, decidedAt: decidedAt,
                    confirmed: object["confirmed"] as? Bool ?? false))
        }
        return SheetDecisionFile(
            sheet: text("sheet"), workspace: text("workspace"), moderator: text("moderator"),
            decisions: result)
    }

    /// Whether `text` is an ISO 8601 moment as browsers write them
    /// (`2026-01-02T03:04:05.678Z`, fractions optional).
    static func parseTimestamp(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
