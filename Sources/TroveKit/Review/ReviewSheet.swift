import Foundation
import TroveBase
import TroveImaging
import TroveStore

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
        posts: [Post], title: String, neighbours: [String: [MapPoint]] = [:]
    ) -> String {
        let cards = posts.map { card($0, neighbours: neighbours[$0.id] ?? []) }
            .joined(separator: "\n")
        // Every string through `HTML.scriptJSON`, for the page's script element.
        let entries = posts.map { post in
            var entry = JSONObject()
            entry.add("id", json: HTML.scriptJSON(post.id))
            entry.add("status", json: HTML.scriptJSON(post.status.rawValue))
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
        for post in posts { counts[post.status.rawValue, default: 0] += 1 }
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

    private func card(_ post: Post, neighbours: [MapPoint]) -> String {
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

    private func photo(_ post: Post) -> String {
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
                + "height=\"\(image.height)\" alt=\"photo of post \(HTML.attribute(post.id))\">"
        } catch {
            return "<p class=\"nophoto\">photo unreadable: \(HTML.text(error.description))</p>"
        }
    }
}
