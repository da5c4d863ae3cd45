import Foundation

/// Where posts are, for people: links to OpenStreetMap for every position shown.
public enum Places {
    /// `https://www.openstreetmap.org/?mlat=…&mlon=…#map=18/…/…`: a marker on the spot.
    public static func openStreetMapURL(latitude: Double, longitude: Double, zoom: Int = 18)
        -> String
    {
        let lat = String(format: "%.6f", latitude)
        let lon = String(format: "%.6f", longitude)
        return "https://www.openstreetmap.org/?mlat=\(lat)&mlon=\(lon)#map=\(zoom)/\(lat)/\(lon)"
    }
}
