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
/// by their SHA-256, so even a missed escape could not run a script. The same posts and
/// credentials give the same bytes; each `review sheet` run has fresh credentials.
public struct ReviewSheet {
    /// The template text, with `{{csp}}`, `{{title}}`, `{{summary}}`, `{{cards}}` and
    /// `{{data}}`.
    let template: String
    /// The box thumbnails fit in.
    public var thumbnailSize = 320
    /// The id of the workspace the sheet is made from; the download carries it.
    public var workspaceID = ""
    /// The sheet's id, its secret and its moderator (`ReviewSheets.create`): the page
    /// signs its download with the secret and credits the moderator.
    public var credentials = SheetCredentials(id: "", secret: "", moderator: "")
    /// A basemap the moderator opted into; without it the page loads nothing.
    public var tiles: TileSource?

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
        let images = "data:" + (tiles.map { " " + $0.origin } ?? "")
        return
            "default-src 'none'; img-src \(images); style-src \(style); script-src \(script); "
            + "base-uri 'none'; form-action 'none'"
    }

    /// Renders the page for `posts`.
    ///
    /// - Parameter neighbours: for posts with `nearby-post`, the posts near them.
    public func render(
        posts: [PostRecord], title: String, neighbours: [String: [MapPoint]] = [:]
    ) -> String {
        let cards = posts.map { card($0, neighbours: neighbours[$0.summary.id] ?? []) }
            .joined(separator: "\n")
        // Every string through `HTML.scriptJSON`, for the page's script element.
        let entries = posts.map { post in
            var entry = JSONObject()
            entry.add("id", json: HTML.scriptJSON(post.summary.id))
            entry.add("status", json: HTML.scriptJSON(post.summary.status))
            entry.add("version", json: HTML.scriptJSON(post.version))
            return entry.compactJSONText
        }
        let reasons = RejectionReason.allCases.map { HTML.scriptJSON($0.rawValue) }
        var object = JSONObject()
        object.add("format", json: HTML.scriptJSON("trove-review-decisions"))
        object.add("sheet", json: HTML.scriptJSON(credentials.id))
        object.add("workspace", json: HTML.scriptJSON(workspaceID))
        object.add("moderator", json: HTML.scriptJSON(credentials.moderator))
        object.add("secret", json: HTML.scriptJSON(credentials.secret))
        object.add("posts", json: compactJSONArray(entries))
        object.add("reasons", json: compactJSONArray(reasons))
        let data = object.compactJSONText
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

    private func card(_ post: PostRecord, neighbours: [MapPoint]) -> String {
        let summary = post.summary
        let id = HTML.attribute(summary.id)
        var html = "<article class=\"card\" data-id=\"\(id)\" "
        html += "data-status=\"\(HTML.attribute(summary.status))\""
        if post.signals.contains(where: { $0.name == .photoUnreadable }) {
            html += " data-unreadable=\"true\""
        }
        html += ">\n"
        html += "<div class=\"photo\">\(photo(post))</div>\n"
        html += "<div class=\"info\">\n"
        html += "<h2><span class=\"id\">\(HTML.text(summary.id))</span> "
        html += "<span class=\"status\">\(HTML.text(summary.status))</span></h2>\n<dl>\n"
        func row(_ name: String, _ value: String?) {
            guard let value else { return }
            html += "<dt>\(name)</dt><dd>\(HTML.text(value))</dd>\n"
        }
        func place(_ name: String, _ lat: Double, _ lon: Double, _ extra: String = "") {
            let url = HTML.attribute(ReviewMap.openStreetMapURL(latitude: lat, longitude: lon))
            html += "<dt>\(name)</dt><dd><a href=\"\(url)\" target=\"_blank\" "
            html += "rel=\"noopener noreferrer\">" + String(format: "%.6f, %.6f", lat, lon)
            html += "</a>\(HTML.text(extra))</dd>\n"
        }
        row("user", summary.user)
        row("date", summary.date)
        if let lat = summary.latitude, let lon = summary.longitude {
            place("position", lat, lon)
        }
        if let lat = post.exifLatitude, let lon = post.exifLongitude {
            var extra = ""
            if let claimedLat = summary.latitude, let claimedLon = summary.longitude {
                let meters = PostDistance.meters(claimedLat, claimedLon, lat, lon)
                extra = " (\(PostDistance.text(meters)) from the claimed position)"
            }
            place("photo taken", lat, lon, extra)
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
            var points = [MapPoint(.claimed, latitude: lat, longitude: lon)]
            if let exifLat = post.exifLatitude, let exifLon = post.exifLongitude {
                points.append(MapPoint(.photo, latitude: exifLat, longitude: exifLon))
            }
            points += neighbours
            html += PlaceMap(points: points, tiles: tiles).svg() + "\n"
            if !neighbours.isEmpty {
                html += "<p class=\"neighbours\">nearby: "
                html += neighbours.map { neighbour in
                    let url = ReviewMap.openStreetMapURL(
                        latitude: neighbour.latitude, longitude: neighbour.longitude)
                    return "<a href=\"\(HTML.attribute(url))\" target=\"_blank\" "
                        + "rel=\"noopener noreferrer\">\(HTML.text(neighbour.label))</a>"
                }.joined(separator: ", ")
                html += "</p>\n"
            }
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
        guard let data = try? ImageFile.read(path) else {
            return "<p class=\"nophoto\">photo not readable</p>"
        }
        do {
            let image = try Thumbnailer.render(
                source: data, box: (thumbnailSize, thumbnailSize), mode: .fit,
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

/// A decision made in the sheet and downloaded as JSON, for `review apply`.
public struct SheetDecision: Equatable, Sendable {
    /// The post id.
    public var id: String
    /// The post's version the sheet showed (absent in files of older sheets).
    public var version: String? = nil
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

    /// Creates the value from its parts.
    public init(
        id: String, version: String? = nil, expected: PostStatus, action: ReviewAction,
        note: String? = nil, decidedAt: String? = nil, confirmed: Bool = false
    ) {
        self.id = id
        self.version = version
        self.expected = expected
        self.action = action
        self.note = note
        self.decidedAt = decidedAt
        self.confirmed = confirmed
    }
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
    /// The page's HMAC-SHA256 over all of it (`SheetSignature`), hex.
    public var signature: String? = nil

    /// Creates the value from its parts.
    public init(
        sheet: String?, workspace: String?, moderator: String?, decisions: [SheetDecision],
        signature: String? = nil
    ) {
        self.sheet = sheet
        self.workspace = workspace
        self.moderator = moderator
        self.decisions = decisions
        self.signature = signature
    }
}

/// Reads the decisions file the sheet downloads:
/// `{"format": "trove-review-decisions", "sheet", "workspace", "moderator", "decisions":
/// [{"id", "version", "seen", "action", "reason", "note", "at", "confirmed"}],
/// "signature"}` (`seen` was `expected` in older files, which had no versions and no
/// signature).
public enum SheetDecisions {
    /// - Throws: `InputError` naming the file and the entry.
    public static func parse(_ data: Data, name: String) throws(InputError) -> SheetDecisionFile {
        var parser = JSONParser(Array(data))
        let root: JSONValue
        do throws(JSONSyntaxError) {
            root = try parser.parseValue()
            if !parser.atEnd() {
                throw JSONSyntaxError(
                    message: "text after the JSON object", line: parser.nextLine(), column: 1)
            }
        } catch {
            throw InputError(
                "\(name):\(error.line):\(error.column)", "not valid JSON: \(error.message)")
        }
        guard case .object = root else { throw InputError(name, "not a JSON object") }
        guard root["format"]?.stringValue == "trove-review-decisions",
            case .array(let items)? = root["decisions"]
        else {
            throw InputError(
                name, "not a decisions file from 'trove review sheet'",
                hint: "expected \"format\": \"trove-review-decisions\" and a \"decisions\" array")
        }
        func text(_ key: String) -> String? {
            root[key]?.stringValue.flatMap {
                $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0
            }
        }
        var result: [SheetDecision] = []
        for (index, item) in items.enumerated() {
            let location = "\(name): decisions[\(index)]"
            guard case .object = item, let id = item["id"]?.stringValue else {
                throw InputError(location, "expected an object with an \"id\"")
            }
            let object = item
            guard let expectedText = (object["seen"] ?? object["expected"])?.stringValue,
                let expected = PostStatus(rawValue: expectedText)
            else { throw InputError(location, "missing or unknown \"seen\" status") }
            let note = object["note"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            let action: ReviewAction
            switch object["action"]?.stringValue {
            case "approve": action = .approve
            case "flag": action = .flag
            case "reopen": action = .reopen
            case "reject":
                guard let reasonText = object["reason"]?.stringValue,
                    let reason = RejectionReason(rawValue: reasonText)
                else { throw InputError(location, "a rejection needs a known \"reason\"") }
                action = .reject(reason)
            default:
                throw InputError(location, "unknown \"action\" (approve, reject, flag, reopen)")
            }
            let decidedAt = object["at"]?.stringValue
            if let decidedAt, parseTimestamp(decidedAt) == nil {
                throw InputError(location, "\"at\" is not an ISO 8601 time: \(decidedAt)")
            }
            result.append(
                SheetDecision(
                    id: id, version: object["version"]?.stringValue, expected: expected,
                    action: action, note: note, decidedAt: decidedAt,
                    confirmed: object["confirmed"]?.boolValue ?? false))
        }
        // The moderator as written: a name is checked, never trimmed into another one.
        return SheetDecisionFile(
            sheet: text("sheet"), workspace: text("workspace"),
            moderator: root["moderator"]?.stringValue, decisions: result,
            signature: root["signature"]?.stringValue)
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
