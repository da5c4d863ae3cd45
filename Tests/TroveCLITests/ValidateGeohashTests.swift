import Foundation
import Testing

@testable import TroveCLI

/// validate before the first geohash, in the README's order.
@Suite struct ValidateGeohashTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
    }

    @Test func missingGeohashesAreOneWarningWithTheCommandToRun() throws {
        var csv = "key,name,lat,lon\n"
        for index in 0..<40 { csv += "t\(index),Treasure \(index),40.\(100 + index),-74.0\n" }
        try sandbox.write("t.csv", csv)
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        for _ in 0..<2 {
            let result = sandbox.run("validate")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(
                lines.filter { $0.contains("T130") }
                    == [
                        "workspace: warning[T130]: 40 treasures have no geohash yet (run 'trove geohash')"
                    ],
                "\(result.stdout)")
            #expect(lines.count == 1, "\(result.stdout)")
            #expect(result.stderr.contains("0 errors, 1 warning"), "\(result.stderr)")
        }
        #expect(sandbox.run("geohash").status == 0)
        #expect(!sandbox.run("validate").stdout.contains("T130"))
    }
}
