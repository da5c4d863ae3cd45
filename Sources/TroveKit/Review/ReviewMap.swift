import Foundation
import TroveBase
import TroveStore

/// Where posts are, for people: links to OpenStreetMap for every position shown.
public enum ReviewMap {
    /// `https://www.openstreetmap.org/?mlat=…&mlon=…#map=18/…/…`: a marker on the spot.
    public static func openStreetMapURL(latitude: Double, longitude: Double, zoom: Int = 18)
        -> String
    {
        let lat = String(format: "%.6f", latitude)
        let lon = String(format: "%.6f", longitude)
        return "https://www.openstreetmap.org/?mlat=\(lat)&mlon=\(lon)#map=\(zoom)/\(lat)/\(lon)"
    }
}

/// A basemap the moderator opted into (`review sheet --tiles URL-TEMPLATE`): slippy-map
/// tiles such as OpenStreetMap's `https://tile.openstreetmap.org/{z}/{x}/{y}.png`.
public struct TileSource: Equatable, Sendable {
    /// The template with `{z}`, `{x}` and `{y}`.
    public let template: String
    /// `https://host[:port]`, the only origin the page's policy then allows images from.
    public let origin: String

    /// Why a template cannot be used.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        /// What is wrong.
        public let description: String
    }

    /// - Throws: `Problem` when the template is not an http(s) URL with `{z}`, `{x}`, `{y}`
    ///   and a fixed host.
    public init(template: String) throws(Problem) {
        for placeholder in ["{z}", "{x}", "{y}"] where !template.contains(placeholder) {
            throw Problem(description: "the tile URL template needs \(placeholder)")
        }
        let probe = template.replacingOccurrences(of: "{z}", with: "0")
            .replacingOccurrences(of: "{x}", with: "0").replacingOccurrences(of: "{y}", with: "0")
        guard let components = URLComponents(string: probe),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.host, !host.isEmpty,
            host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" })
        else {
            throw Problem(
                description:
                    "the tile URL template must be an http(s) URL with a fixed host, e.g. "
                    + "https://tile.openstreetmap.org/{z}/{x}/{y}.png")
        }
        self.template = template
        self.origin = "\(scheme)://\(host.lowercased())" + (components.port.map { ":\($0)" } ?? "")
    }

    func url(z: Int, x: Int, y: Int) -> String {
        template.replacingOccurrences(of: "{z}", with: "\(z)")
            .replacingOccurrences(of: "{x}", with: "\(x)").replacingOccurrences(
                of: "{y}", with: "\(y)")
    }
}

/// One position on a post's map.
public struct MapPoint: Equatable, Sendable {
    /// What the point is.
    public enum Kind: String, Sendable {
        /// Where the post says it is.
        case claimed
        /// Where the photo's EXIF says it was taken.
        case photo
        /// Another post near it.
        case neighbour
    }

    public var kind: Kind
    public var latitude: Double
    public var longitude: Double
    /// A label: the neighbour's id, or nothing.
    public var label: String

    public init(_ kind: Kind, latitude: Double, longitude: Double, label: String = "") {
        self.kind = kind
        self.latitude = latitude
        self.longitude = longitude
        self.label = label
    }
}

/// A small map of one post drawn as inline SVG from coordinates, in Web Mercator like the
/// slippy-map tiles it can lie on: the claimed position in the middle, the photo's EXIF
/// position and the neighbours around it, a scale bar. Without tiles it needs nothing
/// from the network.
public struct PlaceMap {
    package static let width = 240.0
    package static let height = 160.0

    public var points: [MapPoint]
    public var tiles: TileSource?

    public init(points: [MapPoint], tiles: TileSource? = nil) {
        self.points = points
        self.tiles = tiles
    }

    /// World pixel coordinates at `zoom` (256-pixel tiles).
    package static func project(_ latitude: Double, _ longitude: Double, zoom: Int) -> (
        Double, Double
    ) {
        let scale = 256 * pow(2, Double(zoom))
        let lat = max(-85.05, min(85.05, latitude)) * .pi / 180
        let x = (longitude + 180) / 360 * scale
        let y = (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * scale
        return (x, y)
    }

    /// The closest zoom (19 at most) at which every point fits around the first.
    package func zoom() -> Int {
        guard let centre = points.first else { return 17 }
        for zoom in stride(from: 19, through: 1, by: -1) {
            let (cx, cy) = Self.project(centre.latitude, centre.longitude, zoom: zoom)
            let fits = points.allSatisfy { point in
                let (x, y) = Self.project(point.latitude, point.longitude, zoom: zoom)
                return abs(x - cx) <= Self.width / 2 - 14 && abs(y - cy) <= Self.height / 2 - 14
            }
            if fits { return zoom }
        }
        return 1
    }

    /// The SVG. Labels go through `HTML` escaping; numbers are ours.
    public func svg() -> String {
        guard let centre = points.first else { return "" }
        let zoom = zoom()
        let (cx, cy) = Self.project(centre.latitude, centre.longitude, zoom: zoom)
        let left = cx - Self.width / 2
        let top = cy - Self.height / 2
        func position(_ point: MapPoint) -> (Double, Double) {
            let (x, y) = Self.project(point.latitude, point.longitude, zoom: zoom)
            return (x - left, y - top)
        }
        var svg = "<svg class=\"map\" viewBox=\"0 0 240 160\" width=\"240\" height=\"160\" "
        svg += "role=\"img\" aria-label=\"map of the post's position\">"
        svg += "<rect width=\"240\" height=\"160\" fill=\"#eef3ea\" stroke=\"#889\"/>"
        if let tiles {
            let first = (Int(floor(left / 256)), Int(floor(top / 256)))
            let last = (
                Int(floor((left + Self.width) / 256)), Int(floor((top + Self.height) / 256))
            )
            let count = 1 << zoom
            for ty in first.1...last.1 where ty >= 0 && ty < count {
                for tx in first.0...last.0 {
                    let wrapped = ((tx % count) + count) % count
                    let href = HTML.attribute(tiles.url(z: zoom, x: wrapped, y: ty))
                    svg += "<image href=\"\(href)\" x=\"\(fmt(Double(tx * 256) - left))\" "
                    svg += "y=\"\(fmt(Double(ty * 256) - top))\" width=\"256\" height=\"256\"/>"
                }
            }
        }
        let claimed = points.first { $0.kind == .claimed }
        if let claimed {
            let (x1, y1) = position(claimed)
            for photo in points where photo.kind == .photo {
                let (x2, y2) = position(photo)
                let meters = PostDistance.meters(
                    claimed.latitude, claimed.longitude, photo.latitude, photo.longitude)
                svg += "<line class=\"gap\" x1=\"\(fmt(x1))\" y1=\"\(fmt(y1))\" "
                svg += "x2=\"\(fmt(x2))\" y2=\"\(fmt(y2))\" stroke=\"#1565c0\" "
                svg += "stroke-dasharray=\"4 3\"/>"
                svg += "<text x=\"\(fmt((x1 + x2) / 2 + 4))\" y=\"\(fmt((y1 + y2) / 2 - 4))\" "
                svg += "font-size=\"10\" fill=\"#0d47a1\">\(PostDistance.text(meters))</text>"
            }
        }
        for point in points.reversed() {
            let (x, y) = position(point)
            switch point.kind {
            case .neighbour:
                svg += "<circle class=\"neighbour\" cx=\"\(fmt(x))\" cy=\"\(fmt(y))\" r=\"4\" "
                svg += "fill=\"#78909c\" stroke=\"#fff\"><title>\(HTML.text(point.label))"
                svg += "</title></circle>"
            case .photo:
                svg += "<rect class=\"photo-position\" x=\"\(fmt(x - 5))\" y=\"\(fmt(y - 5))\" "
                svg += "width=\"10\" height=\"10\" fill=\"#1565c0\" stroke=\"#fff\">"
                svg += "<title>where the photo says it was taken</title></rect>"
            case .claimed:
                svg += "<circle class=\"claimed\" cx=\"\(fmt(x))\" cy=\"\(fmt(y))\" r=\"6\" "
                svg += "fill=\"#d32f2f\" stroke=\"#fff\" stroke-width=\"2\">"
                svg += "<title>where the post says it is</title></circle>"
            }
        }
        // A scale bar of a round length near 60 pixels.
        let metersPerPixel =
            156_543.033_92 * cos(centre.latitude * .pi / 180) / pow(2, Double(zoom))
        let target = 60 * metersPerPixel
        let magnitude = pow(10, floor(log10(max(target, 1))))
        let round = [1.0, 2, 5, 10].map { $0 * magnitude }.last { $0 <= target } ?? magnitude
        let bar = round / metersPerPixel
        svg += "<rect x=\"6\" y=\"148\" width=\"\(fmt(bar))\" height=\"4\" fill=\"#333\"/>"
        svg += "<text x=\"6\" y=\"144\" font-size=\"10\" fill=\"#333\">"
        svg += "\(PostDistance.text(round))</text>"
        if let tiles {
            // OpenStreetMap's tiles must carry its attribution; others name their host.
            let credit =
                tiles.origin.contains("openstreetmap.org")
                ? "© OpenStreetMap contributors" : "tiles: " + tiles.origin
            svg += "<text x=\"234\" y=\"156\" font-size=\"8\" text-anchor=\"end\" fill=\"#333\">"
            svg += "\(HTML.text(credit))</text>"
        }
        return svg + "</svg>"
    }

    private func fmt(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}

extension PostQuery {
    /// The other posts within `meters` of a post, nearest first, for its map.
    ///
    /// - Throws: `SQLiteError`.
    public func neighbours(of post: Post, within meters: Double = SignalRules.nearbyMeters)
        throws -> [MapPoint]
    {
        guard let lat = post.latitude, let lon = post.longitude else { return [] }
        // The circle's bounding box (two across the antimeridian, every longitude round a
        // pole), as the other neighbour searches pick candidates, then the exact distance.
        var latitudes = -90.0...90.0
        var longitudes = (first: -180.0...180.0, second: -180.0...180.0)
        if let extent = GeoCircle(latitude: lat, longitude: lon, radius: meters).extent {
            latitudes = max(extent.south, -90)...min(extent.north, 90)
            if let ranges = extent.longitudeRanges(around: lon) {
                longitudes = (ranges.first, ranges.second ?? ranges.first)
            }
        }
        let found = try PostStore(workspace).positions(
            latitudes: latitudes, longitudes: longitudes, excluding: post.id
        ).map { MapPoint(.neighbour, latitude: $0.latitude, longitude: $0.longitude, label: $0.id) }
        var near: [(point: MapPoint, meters: Double)] = []
        for point in found {
            let distance = PostDistance.meters(lat, lon, point.latitude, point.longitude)
            if distance <= meters { near.append((point, distance)) }
        }
        near.sort { a, b in
            a.meters != b.meters ? a.meters < b.meters : a.point.label < b.point.label
        }
        return near.prefix(12).map { $0.point }
    }
}
