import Testing

@testable import TroveBase

@Suite struct LexicalPathTests {
    /// Every absolute path of up to 7 characters drawn from `/`, `.` and `a`: a path the
    /// quick look takes as normalised comes out of the full normalisation unchanged, and
    /// every other path is normalised all the same.
    @Test func theQuickLookAgreesWithTheFullNormalisation() {
        var paths = ["/"]
        var frontier = ["/"]
        for _ in 1...6 {
            frontier = frontier.flatMap { path in ["/", ".", "a"].map { path + $0 } }
            paths += frontier
        }
        for path in paths {
            let full = "/" + LexicalPath.components(path).joined(separator: "/")
            #expect(LexicalPath.normalized(path) == full, "\(path)")
            #expect(LexicalPath.isNormalized(path) == (path == full), "\(path)")
        }
    }

    @Test func resolvesAgainstAFolder() {
        #expect(LexicalPath.resolve("art/x.png", against: "/data/game") == "/data/game/art/x.png")
        #expect(LexicalPath.resolve("../x.png", against: "/data/game") == "/data/x.png")
        #expect(LexicalPath.resolve("/srv//x.png", against: "/data") == "/srv/x.png")
        #expect(LexicalPath.relative("/data/x.png", to: "/data/game") == "../x.png")
    }
}
