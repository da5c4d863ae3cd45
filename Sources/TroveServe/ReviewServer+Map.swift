import TroveHTTP
import TroveKit
import TroveStore

// The map beside a post: its position, its neighbours and the review area.

extension ReviewServer {
    func map(_ id: String) throws -> ServerResponse {
        let found = try locked { () throws -> (Post, [MapPoint], GeoBounds?)? in
            let query = PostQuery(workspace: workspace)
            guard let post = try query.post(id) else { return nil }
            return (post, try query.neighbours(of: post), try workspace.settings().reviewArea)
        }
        guard let (post, neighbours, area) = found, let lat = post.latitude,
            let lon = post.longitude
        else { return Self.error(404, "post", "no position for this post") }
        var points = [MapPoint(.claimed, latitude: lat, longitude: lon)]
        if let exifLat = post.exifLatitude, let exifLon = post.exifLongitude {
            points.append(MapPoint(.photo, latitude: exifLat, longitude: exifLon))
        }
        points += neighbours
        let drawn = PlaceMap(points: points, tiles: configuration.tiles)
        var svg = drawn.svg()
        if let area, let outline = Self.outline(area, on: drawn),
            let marker = ["<line class=\"gap\"", "<circle", "<rect class=\"photo-position\""]
                .compactMap({ svg.range(of: $0)?.lowerBound }).min()
        {
            // Under the points, over the basemap.
            svg.insert(contentsOf: outline, at: marker)
        }
        svg = svg.replacingOccurrences(
            of: "<svg class=\"map\"",
            with: "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"map\"")
        return ServerResponse(status: 200, type: "image/svg+xml", body: Array(svg.utf8))
    }

    /// The review area's outline on a post's map (in the map's own projection), or nil
    /// when the area crosses the antimeridian.
    static func outline(_ area: GeoBounds, on map: PlaceMap) -> String? {
        guard let centre = map.points.first, area.minLongitude <= area.maxLongitude else {
            return nil
        }
        let zoom = map.zoom()
        let (cx, cy) = PlaceMap.project(centre.latitude, centre.longitude, zoom: zoom)
        let left = cx - PlaceMap.width / 2
        let top = cy - PlaceMap.height / 2
        let (x1, y1) = PlaceMap.project(area.maxLatitude, area.minLongitude, zoom: zoom)
        let (x2, y2) = PlaceMap.project(area.minLatitude, area.maxLongitude, zoom: zoom)
        func clamp(_ value: Double) -> Double { min(2000, max(-2000, value)) }
        let x = clamp(x1 - left)
        let y = clamp(y1 - top)
        let width = clamp(x2 - left) - x
        let height = clamp(y2 - top) - y
        return String(
            format: "<rect class=\"review-area\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                + "height=\"%.1f\" fill=\"none\" stroke=\"#2e7d32\" stroke-width=\"2\" "
                + "stroke-dasharray=\"6 3\"><title>the review area</title></rect>",
            x, y, width, height)
    }
}
