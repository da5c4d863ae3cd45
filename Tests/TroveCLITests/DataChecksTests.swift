import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// Layout placeholders checked against the columns the treasures really have.
@Suite struct DataChecksTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write("t.csv", "name,lat,lon,city,state\nAda,40.7,-74.0,NYC,NY\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        try sandbox.write(
            "layout.json",
            """
            {"records": "treasures", "paths": {"t/{key}": {
                "city": "{extra.ciyt}", "state": "{extra.State}", "n": "{name}"}}}
            """)
    }

    static let warnings = """
        layout.json: warning[T222]: {extra.ciyt} in 't/{key}' names a column no treasure has; \
        did you mean 'city'? (no record writes anything for it)
        layout.json: warning[T222]: {extra.State} in 't/{key}' names a column no treasure \
        has; did you mean 'state'? (only the case differs) (no record writes anything for it)

        """

    @Test func exportWarnsAboutColumnsNoRecordHas() throws {
        for _ in 1...2 {
            let result = sandbox.run("export", "--layout", "layout.json")
            #expect(result.status == 0)
            #expect(
                result.stderr.hasPrefix(
                    Self.warnings.replacingOccurrences(
                        of: "layout.json", with: sandbox.path("layout.json"))), "\(result.stderr)")
        }
    }

    @Test func validateWithALayoutWarnsToo() throws {
        let result = sandbox.run("validate", "--layout", "layout.json")
        #expect(result.status == 0)
        #expect(
            result.stdout
                == Self.warnings.replacingOccurrences(
                    of: "layout.json", with: sandbox.path("layout.json")))
        #expect(result.stderr == "0 errors, 2 warnings\n")
        #expect(sandbox.run("validate", "--layout", "layout.json", "--strict").status == 1)
    }

    /// A workspace from before the columns were recorded: the treasures' own extras say.
    @Test func columnsComeFromTheTreasuresWhereNoneWereRecorded() throws {
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        // SQL: sources as an older trove recorded them, without their columns.
        try database.execute("UPDATE sources SET columns = NULL")
        let result = sandbox.run("export", "--layout", "layout.json")
        #expect(result.stderr.contains("did you mean 'city'?"))
    }
}

/// T203 judges a point by its neighbours: a point is called swapped only when, exchanged, it
/// fits the others far better than as given.
@Suite struct SwappedNeighbourTests {
    @Test func aWorldFileHasNoSwappedSuspects() throws {
        let sandbox = try Sandbox()
        // Towns on every continent, some close to where another would land exchanged.
        var rows = ["name,lat,lon"]
        let towns: [(String, Double, Double)] = [
            ("Reykjavik", 64.1466, -21.9426), ("Nuuk", 64.1814, -51.6941),
            ("Lagos", 6.5244, 3.3792), ("Accra", 5.6037, -0.1870), ("Lome", 6.1319, 1.2228),
            ("Cotonou", 6.3703, 2.3912), ("Porto-Novo", 6.4969, 2.6289),
            ("Nairobi", -1.2921, 36.8219), ("Perth", -31.9523, 115.8613),
            ("Ushuaia", -54.8019, -68.3030), ("Honolulu", 21.3069, -157.8583),
            ("Tromso", 69.6492, 18.9553), ("Longyearbyen", 78.2232, 15.6267),
        ]
        for (name, lat, lon) in towns { rows.append("\(name),\(lat),\(lon)") }
        try sandbox.write("world.csv", rows.joined(separator: "\n") + "\n")
        let clean = sandbox.run("validate", "world.csv")
        #expect(!clean.stdout.contains("T203"), "\(clean.stdout)")
    }

    /// A point `metres` from a position, on a bearing in degrees.
    static func offset(
        _ latitude: Double, _ longitude: Double, metres: Double, bearing: Double
    ) -> (Double, Double) {
        let angle = metres / 6_371_000
        let phi = latitude * .pi / 180
        let theta = bearing * .pi / 180
        let lat = asin(sin(phi) * cos(angle) + cos(phi) * sin(angle) * cos(theta))
        let lon =
            longitude * .pi / 180
            + atan2(sin(theta) * sin(angle) * cos(phi), cos(angle) - sin(phi) * sin(lat))
        let degrees = (lon * 180 / .pi + 540).truncatingRemainder(dividingBy: 360) - 180
        return ((lat * 180 / .pi * 1e5).rounded() / 1e5, (degrees * 1e5).rounded() / 1e5)
    }

    /// Rows of a real place, others at the distances (km) its nearest had as given and
    /// exchanged in the real file, and a grid elsewhere (not exchangeable) whose spacing is
    /// the file's usual one.
    static func neighbourhood(
        _ places: [(
            name: String, latitude: Double, longitude: Double, given: [Double],
            exchanged: [Double]
        )], gridSpacing: Double
    ) -> String {
        var rows = ["name,lat,lon"]
        for place in places {
            rows.append("\(place.name),\(place.latitude),\(place.longitude)")
            for (index, km) in place.given.enumerated() {
                let (lat, lon) = offset(
                    place.latitude, place.longitude, metres: km * 1000,
                    bearing: Double(index) * 137)
                rows.append("\(place.name) near \(index),\(lat),\(lon)")
            }
            for (index, km) in place.exchanged.enumerated() {
                let (lat, lon) = offset(
                    place.longitude, place.latitude, metres: km * 1000,
                    bearing: Double(index) * 137)
                rows.append("\(place.name) exchanged \(index),\(lat),\(lon)")
            }
        }
        for row in 0..<20 {
            for column in 0..<20 {
                let (lat, lon) = offset(
                    39, -100, metres: Double(row) * gridSpacing, bearing: 0)
                let (_, east) = offset(lat, lon, metres: Double(column) * gridSpacing, bearing: 90)
                rows.append("grid \(row) \(column),\(lat),\(east)")
            }
        }
        return rows.joined(separator: "\n") + "\n"
    }

    /// Rodrigues' airport lies 600 km from Mauritius and lands among Iceland's airfields
    /// exchanged, Nagurskoye 700 km from Svalbard and among Kazakhstan's, Longyearbyen
    /// 850 km from Norway's towns and among India's: real places, about as far from the
    /// others as given as they are close exchanged times 30, not swapped.
    @Test func remoteRealPlacesAreNotCalledSwapped() throws {
        let sandbox = try Sandbox()
        try sandbox.write(
            "airports.csv",
            Self.neighbourhood(
                [
                    (
                        "Sir Charles Gaetan Duval Airport", -19.7577, 63.361,
                        [597.5, 828.1, 844.3], [21.9, 26.9, 28.8, 37.8, 39.7]
                    ),
                    (
                        "Nagurskoye Air Base", 80.80321, 47.66359, [698.4, 717.3, 816.2],
                        [38.6, 90.9, 163.8]
                    ),
                ], gridSpacing: 25_000))
        try sandbox.write(
            "towns.csv",
            Self.neighbourhood(
                [
                    (
                        "Longyearbyen", 78.22334, 15.64689, [844.2, 857.9, 870.5],
                        [23.2, 23.8, 27.6, 33.2, 36.7]
                    )
                ], gridSpacing: 6_000))
        for file in ["airports.csv", "towns.csv"] {
            let result = sandbox.run("validate", file)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stdout.contains("T203"), "\(result.stdout)")
        }
    }

    /// A treasure of a city written lon/lat lies thousands of kilometres from the others,
    /// and among them exchanged.
    @Test func aSwappedRowOfACityIsReported() throws {
        let sandbox = try Sandbox()
        var rows = ["key,name,lat,lon"]
        for row in 0..<8 {
            for column in 0..<8 {
                let (lat, lon) = Self.offset(
                    38.7, -9.14, metres: Double(row) * 300, bearing: 0)
                let (_, east) = Self.offset(lat, lon, metres: Double(column) * 300, bearing: 90)
                rows.append("t\(row)\(column),Spot \(row) \(column),\(lat),\(east)")
            }
        }
        rows.append("swapped,Swapped,-9.139,38.7015")
        try sandbox.write("lisbon.csv", rows.joined(separator: "\n") + "\n")
        let result = sandbox.run("validate", "lisbon.csv")
        #expect(
            result.stdout == "lisbon.csv:66: warning[T203]: coordinates look swapped (lon/lat): "
                + "[-9.139, 38.7015] is 7259 km from the nearest other treasure; exchanged, it is "
                + "159 m from one (treasures usually lie 300 m apart)\n", "\(result.stdout)")
    }
}
