import Foundation
import Testing
import TroveImaging

@testable import TroveCLI

/// Image messages name the format, counts are exact, advice is what can help.
@Suite struct ImageNitsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
        try sandbox.write(
            "good.jpg",
            Data(try JPEG.encode(ImagesTests.photo(width: 300, height: 200), quality: 85)))
        try sandbox.write("scan.jpg", Data([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 0, 0, 0, 0]))
        try sandbox.write("anim.png", Data(Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]))
        try sandbox.write(
            "t.csv",
            "key,name,lat,lon,image\ngood,Good,40.1,-74,good.jpg\nscan,Scan,40.2,-74,scan.jpg\n"
                + "anim,Anim,40.3,-74,anim.png\n")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        #expect(sandbox.run("geohash").status == 0)
        #expect(sandbox.run("config", "set", "storage.bucket", "gs://trove-test").status == 0)
    }

    @Test func failuresAreNamedByFormatAndCountedApart() throws {
        for _ in 1...2 {
            let result = sandbox.run("images", "--treasures")
            #expect(result.status == 1)
            #expect(
                result.stderr.contains(
                    "scan.jpg: not a JPEG or PNG image: it is a TIFF image; convert it to PNG or "
                        + "JPEG (treasure scan)"), "\(result.stderr)")
            #expect(result.stderr.contains("anim.png: not a JPEG or PNG image: it is a GIF image"))
            #expect(!result.stderr.contains("starts with bytes"))
            #expect(result.stderr.contains(" of 1 images "), "\(result.stderr)")
            #expect(result.stderr.hasSuffix("; 2 images failed\n"), "\(result.stderr)")
        }
        let validate = sandbox.run("validate")
        #expect(
            validate.stdout.contains(
                "scan.jpg is neither JPEG nor PNG: it is a TIFF image; convert it to PNG or JPEG"),
            "\(validate.stdout)")
    }

    @Test func exportNamesTheReasonInsteadOfAdvisingAnotherRun() throws {
        #expect(sandbox.run("images", "--treasures").status == 1)
        let export = sandbox.run("export", "--layout", "flatirongo")
        #expect(export.status != 0)
        #expect(
            export.stderr.contains("whose image 'trove images' could not read"), "\(export.stderr)")
        #expect(export.stderr.contains("treasure scan: \(sandbox.path("scan.jpg")): not a JPEG"))
        #expect(!export.stderr.contains("run 'trove images'"), "\(export.stderr)")
    }
}
