import Foundation
import Testing

@testable import TroveBase
@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

@Suite struct ValidateTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
    }

    @Test func findingsAreCompilerStyleWithStableCodes() throws {
        try sandbox.write(
            "t.csv",
            """
            key,name,lat,lon,image
            a,Alpha,40.7,-74.0,
            b,Alpha,40.70001,-74.0,
            c,Null,0,0,
            123,Digits,41,-73,missing.png
            d, Spaced,42,-73,
            e,Swapped,-74.0,40.7,

            """)
        let result = sandbox.run("validate", "t.csv")
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                t.csv:3: warning[T206]: name 'Alpha' is used again (first at t.csv:2)
                t.csv:3: warning[T205]: only 1.1 m from 'a' (t.csv:2)
                t.csv:4: warning[T202]: position is (0, 0), "Null Island": usually a missing value
                t.csv:5: warning[T207]: key '123' is all digits; Firebase may turn the parent into an array (prefix it, e.g. 't123', or import the file with --ignore-numeric-ids to key it by its name)
                t.csv:5: error[T120]: image \(sandbox.path("missing.png")) does not exist
                t.csv:6: warning[T201]: name has surrounding spaces
                t.csv:7: warning[T203]: coordinates look swapped (lon/lat): [-74.0, 40.7] is 8666 km from the nearest other treasure; exchanged, it is 0 m from one (treasures usually lie 90 km apart)

                """)
        #expect(result.stderr == "1 error, 6 warnings\n")
    }

    @Test func strictFailsOnWarnings() throws {
        try sandbox.write("t.csv", "key,name,lat,lon\na,A,0,0\n")
        #expect(sandbox.run("validate", "t.csv").status == 0)
        #expect(sandbox.run("validate", "t.csv", "--strict").status == 1)
    }

    @Test func jsonHasTheDocumentedShape() throws {
        try sandbox.write("t.csv", "key,name,lat,lon\na,A,95,0\n")
        let result = sandbox.run("validate", "t.csv", "--format", "json")
        #expect(result.status == 1)
        #expect(
            result.stdout
                == "{\"findings\": [{\"code\": \"T101\", \"severity\": \"error\", "
                + "\"message\": \"latitude 95 is outside [-90, 90]\", \"file\": \"t.csv\", "
                + "\"line\": 2, \"key\": \"a\"}], \"errors\": 1, \"warnings\": 0}\n")
    }

    @Test func workspaceChecksUseBoundsAndGeohashes() throws {
        try sandbox.write(
            "t.csv", "key,name,lat,lon\nin,In,40.7,-74.0\nout,Out,10,10\nswap,Swap,-74.0,40.7\n")
        sandbox.run("import", "treasures", "t.csv")
        sandbox.run("config", "set", "game.bounds", "40.5,-74.3,41.0,-73.7")
        let before = sandbox.run("validate")
        #expect(
            before.stdout.contains(
                "workspace: warning[T130]: 3 treasures have no geohash yet (run 'trove geohash')"))
        #expect(
            before.stdout.contains(
                "t.csv:3: warning[T204]: position (10.0, 10.0) is outside game.bounds"))
        #expect(before.stdout.contains("t.csv:4: warning[T203]: coordinates look swapped"))
        sandbox.run("geohash")
        let after = sandbox.run("validate", "--format", "json")
        #expect(!after.stdout.contains("T130"))
        #expect(after.stdout.contains("\"key\": \"out\""))
        sandbox.run("config", "set", "geohash.precision", "6")
        #expect(sandbox.run("validate").stdout.contains("warning[T131]"))
    }

    @Test func anUnreadableFileExitsThree() throws {
        let result = sandbox.run("validate", "nope.csv")
        #expect(result.status == 3)
        #expect(result.stdout.hasPrefix("nope.csv"))
    }
}

@Suite struct GeohashAndNearTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
    }

    @Test func geohashesAreGeoFiresAtTheConfiguredPrecision() throws {
        try sandbox.write("t.csv", "key,name,lat,lon\nzero,Z,0,0\nfifty,F,50,50\n")
        sandbox.run("import", "treasures", "t.csv")
        let first = sandbox.run("geohash", "--format", "json")
        #expect(first.stdout == "{\"treasures\": 2, \"posts\": 0}\n")
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        let stored = try database.query("SELECT key, geohash FROM treasure_geohashes ORDER BY key")
        {
            "\($0.text(0)!)=\($0.text(1)!)"
        }
        #expect(stored == ["fifty=v0gs3y0zh7", "zero=7zzzzzzzzz"])
        #expect(
            sandbox.run("geohash", "--format", "json").stdout
                == "{\"treasures\": 0, \"posts\": 0}\n")
        sandbox.run("geohash", "--precision", "4")
        let short = try database.query("SELECT geohash FROM treasure_geohashes ORDER BY key") {
            $0.text(0)!
        }
        #expect(short == ["v0gs", "7zzz"])
    }

    /// Random treasures clustered near awkward places (the antimeridian, a pole, the
    /// equator); every query must return exactly what a full haversine scan returns.
    @Test(arguments: [
        (40.7, -74.0, 5_000.0),
        (0.0, 179.99, 50_000.0),
        (0.0, -179.99, 50_000.0),
        (89.9, 0.0, 40_000.0),
        (-89.95, 120.0, 30_000.0),
        (10.0, 10.0, 1.0),
    ])
    func nearEqualsABruteForceScan(latitude: Double, longitude: Double, radius: Double) throws {
        var generator = SeededGenerator(seed: UInt64(abs(latitude * 1000 + longitude)))
        var csv = "key,name,lat,lon\n"
        var points: [(String, Double, Double)] = []
        for index in 0..<400 {
            let lat = min(90, max(-90, latitude + Double.random(in: -1...1, using: &generator)))
            var lon = longitude + Double.random(in: -1.5...1.5, using: &generator)
            if lon > 180 { lon -= 360 }
            if lon < -180 { lon += 360 }
            let key = "p\(index)"
            points.append((key, lat, lon))
            csv += "\(key),P\(index),\(lat),\(lon)\n"
        }
        try sandbox.write("t.csv", csv)
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        sandbox.run("geohash")
        let result = sandbox.run(
            "near", "\(latitude)", "\(longitude)", "--radius", "\(radius)m", "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        let found =
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [[String: Any]]
        let keys = found.map { $0["key"] as! String }
        let expected = points.map { point in
            (
                point.0,
                greatCircleDistance(
                    fromLatitude: latitude, longitude: longitude, toLatitude: point.1,
                    longitude: point.2)
            )
        }.filter { $0.1 <= radius }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
        #expect(keys == expected)
        let distances = found.map { $0["distance_m"] as! Double }
        #expect(distances == distances.sorted())
    }

    @Test func nearRejectsBadArguments() {
        let latitude = sandbox.run("near", "91", "0")
        #expect(latitude.status == 2)
        #expect(latitude.stderr.contains("latitude 91 is outside [-90, 90]"))
        let longitude = sandbox.run("near", "40", "-180.5")
        #expect(longitude.status == 2)
        #expect(longitude.stderr.contains("longitude -180.5 is outside [-180, 180]"))
        #expect(sandbox.run("near", "40", "far").stderr.contains("invalid longitude 'far'"))
        #expect(sandbox.run("near", "40", "-74", "--radius", "far").status == 2)
    }
}

/// A small deterministic generator (SplitMix64) so randomized tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
