import Foundation
import Testing

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

/// A publish after a few edits renders only the changed records. Whatever the edits, the
/// database must then hold exactly what a full export renders, and the bucket exactly the
/// objects its URLs name.
@Suite struct PublishIncrementalTests {
    let fixture: PublishFixture
    var cloud: FakeCloud { fixture.cloud }

    init() throws {
        fixture = try PublishFixture()
    }

    /// The tree a full export renders now, as the database holds it.
    /// The tree `target` would get, as `export --target` previews it (its own tokens).
    func fullTree(_ target: String) throws -> ExportJSON {
        let full = fixture.run("export", "--target", target)
        #expect(full.status == 0, "\(full.stderr)")
        return try ExportSupport.parse(full.stdout)
    }

    func databaseTree() throws -> ExportJSON {
        let data = try JSONSerialization.data(withJSONObject: cloud.tree, options: [.sortedKeys])
        return try ExportJSON(parsing: Array(data))
    }

    @Test(arguments: [1, 2] as [UInt64])
    func publishesOfChangesEqualAFullRenderOverRandomEdits(seed: UInt64) throws {
        var random = IncrementalExportTests.Random(state: seed)
        fixture.publish("game")
        fixture.publish("litter")
        var next = 0
        for round in 0..<8 {
            let workspace = try Workspace(path: fixture.sandbox.workspace)
            let database = workspace.testDatabase
            let keys = try database.query("SELECT key FROM treasures ORDER BY key") {
                $0.text(0) ?? ""
            }
            for _ in 0..<(1 + random.next(3)) {
                let key = keys.isEmpty ? "a" : keys[random.next(keys.count)]
                switch random.next(6) {
                case 0:
                    try workspace.fixture.editTreasure(key, name: "Renamed \(round)")
                case 1:
                    try fixture.setRendition(
                        "treasure", key, "full", source: "/art/\(key).png", version: round + 2)
                case 2:
                    #expect(fixture.run("storage", "rotate", "treasure:\(key)").status == 0)
                case 3 where keys.count > 2:
                    #expect(fixture.run("treasures", "rm", key, "-q").status == 0)
                case 4:
                    // A new treasure, written as a writer writes it: marked by itself.
                    let new = "n\(next)"
                    next += 1
                    try workspace.write {
                        try workspace.fixture.addTreasure(
                            new, name: "New \(new)", lat: 40.7, lon: -74, image: "/art/\(new).png")
                        workspace.markChanged(.treasure, new)
                    }
                    try fixture.setRendition(
                        "treasure", new, "full", source: "/art/\(new).png", version: 1)
                default:
                    let status = random.next(2) == 0 ? "approve" : "reject"
                    let post = ["ok", "fine", "wait"][random.next(3)]
                    var arguments = ["review", status, post, "--force"]
                    if status == "reject" { arguments += ["--reason", "spam"] }
                    _ = fixture.run(arguments)
                }
            }
            #expect(fixture.run("geohash", "-q").status == 0)
            for target in ["game", "litter"] {
                let plan = fixture.run(
                    "publish", "--target", target, "--dry-run", "--format", "json")
                #expect(plan.status == 0, "\(plan.stderr)")
                #expect(
                    plan.stdout.contains(#""rendered": "changes""#),
                    "round \(round): \(plan.stdout)")
                fixture.publish(target)
                let expected = try fullTree(target)
                let held = try databaseTree()
                for top in expected.objectValue?.keys.sorted() ?? [] {
                    #expect(
                        held.objectValue?[top] == expected.objectValue?[top],
                        "round \(round) \(target) \(top)")
                }
            }
            // The bucket holds exactly what the two trees' URLs name.
            let names = try database.query(
                """
                SELECT r.path FROM renditions AS r JOIN treasures AS t
                  ON r.owner_kind = 'treasure' AND t.key = r.owner_key AND t.image = r.source
                UNION SELECT r.path FROM renditions AS r JOIN posts AS p
                  ON r.owner_kind = 'post' AND p.id = r.owner_key AND p.photo = r.source
                  AND p.status = 'approved'
                """
            ) { $0.text(0) ?? "" }
            #expect(fixture.objectNames == Set(names), "round \(round)")
        }
    }
}
