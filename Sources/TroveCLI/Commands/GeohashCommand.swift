import TroveBase
import TroveCommandLine
import TroveKit

enum GeohashCommand {
    static let command = Command(
        "geohash",
        abstract: "Assign GeoFire geohashes to treasures and posts that lack a current one.",
        discussion: """
            Uses GeoFire's algorithm and base32 alphabet. --precision also becomes the
            workspace's geohash.precision, so status, validate and export agree with it.
            A point exactly on a cell edge goes to the cell below or west of it, as GeoFire's
            clients put it: (0, 0) is 7zzzzzzzzz, where python-geohash and libraries that
            take the cell above or east give s000000000.
            """,
        options: [precision],
        formats: [.text, .json]
    ) { invocation in
        let result = try GeohashAssignment.run(
            on: invocation.openWorkspace(), precision: invocation[Self.precision])
        if invocation.format == .json {
            invocation.print(
                JSONObject(["treasures": result.treasures, "posts": result.posts]).jsonText)
        } else {
            invocation.note(
                "geohashed \(result.treasures) treasures and \(result.posts) posts")
        }
        return .success
    }

    static let precision = Option<Int>(
        "precision", value: "n",
        help: "Geohash length, 1-22 (default: geohash.precision, else 10).",
        expected: "a whole number from 1 to 22"
    ) { Int($0).flatMap { (1...22).contains($0) ? $0 : nil } }
}
