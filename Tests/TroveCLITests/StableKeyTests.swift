import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// Keys derived from names in other scripts: readable, and with their treasures for good.
@Suite struct StableKeyTests {
    let sandbox: Sandbox

    static let cities = """
        name,lat,lon
        Москва,55.7558,37.6173
        Санкт-Петербург,59.9311,30.3609
        Αθήνα,37.9838,23.7275
        東京,35.6762,139.6503
        القاهرة,30.0444,31.2357
        Aßlar,50.5911,8.4636
        Andøya,69.1425,15.8561

        """

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
    }

    func keysByName() throws -> [String: String] {
        let rows = try Workspace.testDatabase(at: sandbox.workspace).query(
            "SELECT name, key FROM treasures"
        ) { ($0.text(0) ?? "", $0.text(1) ?? "") }
        return Dictionary(rows, uniquingKeysWith: { $1 })
    }

    @Test func keysFromOtherScriptsAreReadable() throws {
        try sandbox.write("cities.csv", Self.cities)
        #expect(sandbox.run("import", "treasures", "cities.csv").status == 0)
        #expect(
            try keysByName() == [
                "Москва": "moskva", "Санкт-Петербург": "sankt-peterburg", "Αθήνα": "athena",
                "東京": "dong-jing", "القاهرة": "alqahrt", "Aßlar": "asslar",
                "Andøya": "andoya",
            ])
    }

    /// One Cyrillic row added at the top: one new treasure, every other key where it was,
    /// also in a workspace whose keys came from an older derivation (`treasure`, …).
    @Test func aRowAddedAtTheTopMovesNoKey() throws {
        try sandbox.write("cities.csv", Self.cities)
        #expect(sandbox.run("import", "treasures", "cities.csv").status == 0)
        // As an earlier trove derived them: every non-Latin name a `treasure` (SQL: this
        // trove no longer derives such keys).
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        try database.execute(
            "UPDATE treasures SET key = 'treasure' WHERE key = 'moskva';"
                + "UPDATE treasures SET key = 'treasure-2' WHERE key = 'athena';")
        let before = try keysByName()
        let added = Self.cities.replacingOccurrences(
            of: "name,lat,lon\n", with: "name,lat,lon\nНовосибирск,55.0084,82.9357\n")
        try sandbox.write("cities.csv", added)
        for run in 1...2 {
            let result = sandbox.run("import", "treasures", "cities.csv")
            #expect(result.status == 0)
            let counts =
                run == 1 ? "1 new, 0 updated, 7 unchanged" : "0 new, 0 updated, 8 unchanged"
            #expect(
                result.stderr == "imported 8 treasures (\(counts)) from cities.csv\n")
            var expected = before
            expected["Новосибирск"] = "novosibirsk"
            #expect(try keysByName() == expected)
        }
    }

    /// Rows moved about, one renamed, one moved a little, a second Springfield added
    /// above the first two: each treasure keeps its key.
    @Test func movedAndRenamedRowsKeepTheirKeys() throws {
        try sandbox.write(
            "towns.csv",
            "name,lat,lon\nSpringfield,39.78,-89.65\nSpringfield,42.10,-72.59\nShelbyville,39.40,-88.80\n"
        )
        #expect(sandbox.run("import", "treasures", "towns.csv").status == 0)
        try sandbox.write(
            "towns.csv",
            "name,lat,lon\nSpringfield,37.21,-93.29\nShelbyville,39.41,-88.80\n"
                + "Springfield (MA),42.10,-72.59\nSpringfield,39.78,-89.65\n")
        let result = sandbox.run("import", "treasures", "towns.csv", "--sync")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr == "imported 4 treasures (1 new, 2 updated, 1 unchanged) from towns.csv\n"
        )
        let rows = try Workspace.testDatabase(at: sandbox.workspace).query(
            "SELECT key, name, lat FROM treasures ORDER BY key"
        ) { "\($0.text(0) ?? "") \($0.text(1) ?? "") \($0.double(2) ?? 0)" }
        #expect(
            rows == [
                "shelbyville Shelbyville 39.41", "springfield Springfield 39.78",
                "springfield-2 Springfield (MA) 42.1", "springfield-3 Springfield 37.21",
            ])
    }

    @Test func aColumnThatWouldServeBetterIsNamedOnce() throws {
        try sandbox.write(
            "cities.csv",
            "name,lat,lon,geonameid\nМосква,55.7558,37.6173,524901\nΑθήνα,37.9838,23.7275,264371\n")
        let result = sandbox.run("import", "treasures", "cities.csv")
        #expect(result.status == 0)
        #expect(
            result.stderr == """
                cities.csv:2: warning[T220]: keys are derived from the names (first 'Москва'), \
                while 'geonameid' would serve better (name that column 'key': keys from it stay \
                the same whatever the names become)
                imported 2 treasures (2 new, 0 updated, 0 unchanged) from cities.csv

                """)
    }
}
