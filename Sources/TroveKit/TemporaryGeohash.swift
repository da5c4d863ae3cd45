// Replaced by Geo/Geohash.swift when the readers land.
enum Geohash {
    static func encode(latitude: Double, longitude: Double, precision: Int) -> String {
        let alphabet = Array("0123456789bcdefghjkmnpqrstuvwxyz")
        var lat = (-90.0, 90.0)
        var lon = (-180.0, 180.0)
        var result = ""
        var bits = 0
        var value = 0
        var even = true
        while result.count < precision {
            if even {
                let mid = (lon.0 + lon.1) / 2
                if longitude > mid {
                    value = value << 1 | 1; lon.0 = mid
                } else {
                    value <<= 1; lon.1 = mid
                }
            } else {
                let mid = (lat.0 + lat.1) / 2
                if latitude > mid {
                    value = value << 1 | 1; lat.0 = mid
                } else {
                    value <<= 1; lat.1 = mid
                }
            }
            even.toggle()
            bits += 1
            if bits == 5 { result.append(alphabet[value]); bits = 0; value = 0 }
        }
        return result
    }
}
