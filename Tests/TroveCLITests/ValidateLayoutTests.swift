import Foundation
import Testing
import TroveBase
import TroveStore

@testable import TroveCLI

/// `validate --layout L` runs the checks an export of L runs: what stops the export is an
/// error of validate, and a workspace that validates with L exports with it.
@Suite struct ValidateLayoutTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write(
            "layout.json",
            """
            {"records": "treasures", "paths": {"t/{key}": {
                "name": "{name}", "active": "{extra.active:bool}"}}}
            """)
    }

    @Test func whatStopsTheExportIsAnErrorOfValidate() throws {
        try sandbox.write(
            "t.csv",
            "key,name,lat,lon,active\nrossio,Rossio,38.7139,-9.1394,VERDADEIRO\n"
                + "belem,Belém,38.6916,-9.2160,talvez\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        let export = sandbox.run("export", "--layout", "layout.json")
        #expect(export.status == 1)
        for _ in 0..<2 {
            let plain = sandbox.run("validate")
            #expect(plain.status == 0, "\(plain.stdout)")
            let checked = sandbox.run("validate", "--layout", "layout.json")
            #expect(checked.status == 1)
            let lines = checked.stdout.split(separator: "\n")
            #expect(lines.count == 1, "\(checked.stdout)")
            #expect(lines.first?.contains("error[T140]: the export of ") == true)
            #expect(lines.first?.contains("treasure belem: ") == true, "\(checked.stdout)")
            #expect(!checked.stdout.contains("rossio"))
            let json = sandbox.run("validate", "--layout", "layout.json", "--format", "json")
            #expect(json.stdout.contains(#""code": "T140""#))
            #expect(json.stdout.contains(#""key": "belem""#), "\(json.stdout)")
        }
        try sandbox.write(
            "t.csv",
            "key,name,lat,lon,active\nrossio,Rossio,38.7139,-9.1394,VERDADEIRO\n"
                + "belem,Belém,38.6916,-9.2160,falso\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        for _ in 0..<2 {
            #expect(sandbox.run("validate", "--layout", "layout.json").status == 0)
            let exported = sandbox.run("export", "--layout", "layout.json")
            #expect(exported.status == 0, "\(exported.stderr)")
            #expect(exported.stdout.contains(#""active": true"#))
        }
    }

    /// A missing geohash is a warning of validate's own (T130), and an error with a layout
    /// whose export stops on it.
    @Test func aGeohashTheExportNeedsIsAnError() throws {
        try sandbox.write("t.csv", "key,name,lat,lon,active\nrossio,Rossio,38.7139,-9.1394,sim\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("validate").status == 0)
        let checked = sandbox.run("validate", "--layout", "layout.json")
        #expect(checked.status == 1)
        #expect(checked.stdout.contains("warning[T130]"), "\(checked.stdout)")
        #expect(
            checked.stdout.contains(
                "error[T140]: the export of \(sandbox.path("layout.json")) refuses it: treasures "
                    + "without a geohash (run 'trove geohash'): treasure rossio"),
            "\(checked.stdout)")
        #expect(sandbox.run("geohash").status == 0)
        #expect(sandbox.run("validate", "--layout", "layout.json").status == 0)
    }
}
