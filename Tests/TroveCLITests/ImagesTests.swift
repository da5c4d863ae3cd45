import Foundation
import Testing
import TroveImaging
import TroveKit

@testable import TroveCLI
@_spi(Testing) @testable import TroveStore

@Suite struct ImagesTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
    }

    /// A smooth photographic-looking picture.
    static func photo(width: Int, height: Int, channels: Int = 3) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let base = (y * width + x) * channels
                pixels[base] = UInt8((x * 255) / max(1, width - 1))
                if channels > 1 { pixels[base + 1] = UInt8((y * 255) / max(1, height - 1)) }
                if channels > 2 {
                    pixels[base + 2] = UInt8(((x + y) * 127) / max(1, width + height))
                }
                if channels > 3 { pixels[base + 3] = x < width / 2 ? 255 : 0 }
            }
        }
        return Bitmap(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// A JPEG carrying an EXIF block (orientation and a GPS latitude reference).
    static func jpegWithEXIF() throws -> [UInt8] {
        let jpeg = try JPEG.encode(photo(width: 640, height: 480), quality: 90)
        var tiff: [UInt8] = Array("II".utf8) + [42, 0, 8, 0, 0, 0]
        tiff += [1, 0]  // one entry
        tiff += [0x12, 0x01, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0]  // orientation = 1
        tiff += [0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff + Array("GPS secret 40.7128N".utf8)
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
            + jpeg.dropFirst(2)
    }

    func importTreasures(_ rows: [(key: String, image: String)]) throws {
        var csv = "key,name,lat,lon,image\n"
        for (index, row) in rows.enumerated() {
            csv += "\(row.key),Name \(index),40.\(index),-74,\(row.image)\n"
        }
        try sandbox.write("t.csv", csv)
        let result = sandbox.run("import", "treasures", "t.csv")
        #expect(result.status == 0, "\(result.stderr)")
    }

    func renditions() throws -> [String] {
        let database = try Workspace.testDatabase(at: sandbox.workspace)
        return try database.query(
            "SELECT owner_key, name, width, height, path FROM renditions ORDER BY owner_key, name"
        ) { "\($0.text(0)!) \($0.text(1)!) \($0.int64(2)!)x\($0.int64(3)!) \($0.text(4)!)" }
    }

    @Test func makesTheDefaultRenditionsAndRecordsThem() throws {
        try sandbox.write(
            "art/a.png", Data(try PNG.encode(Self.photo(width: 600, height: 400, channels: 4))))
        try sandbox.write(
            "art/b.jpg", Data(try JPEG.encode(Self.photo(width: 2000, height: 1000), quality: 90)))
        try importTreasures([("a", "art/a.png"), ("b", "art/b.jpg")])
        let result = sandbox.run("images")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("made 6 renditions of 2 images (0 already current)"))
        let rows = try renditions()
        #expect(rows.count == 6)
        #expect(rows[0].hasPrefix("a full 600x400 treasures/a/full-"))
        #expect(rows[1].hasPrefix("a pin 100x100 treasures/a/pin-"))
        #expect(rows[2].hasPrefix("a thumb 256x171 treasures/a/thumb-"))
        #expect(rows[3].hasPrefix("b full 1024x512 treasures/b/full-"))
        #expect(rows[5].hasPrefix("b thumb 256x128 treasures/b/thumb-"))
        for row in rows {
            let path = sandbox.path("build/images/" + String(row.split(separator: " ")[3]))
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let header = try ImageHeader.read(from: bytes)
            #expect("\(header.width)x\(header.height)" == String(row.split(separator: " ")[2]))
            #expect(header.format == (row.hasPrefix("a") ? .png : .jpeg))
            if row.hasPrefix("a") { #expect(header.hasAlpha) }
        }
    }

    /// 60 treasures over 3 artworks: each artwork is decoded once, and every treasure gets
    /// its own files, with the bytes of the others that share its artwork.
    @Test func sharedArtworkIsDecodedOnceAndEveryTreasureGetsItsOwnFiles() throws {
        let art = [
            try PNG.encode(Self.photo(width: 300, height: 200, channels: 4)),
            try JPEG.encode(Self.photo(width: 400, height: 300), quality: 90),
            try JPEG.encode(Self.photo(width: 320, height: 320), quality: 80),
        ]
        for (index, bytes) in art.enumerated() {
            try sandbox.write("art/\(index).\(index == 0 ? "png" : "jpg")", Data(bytes))
        }
        // The third artwork by two names: a copy has the same content.
        try sandbox.write("art/copy.jpg", Data(art[2]))
        let names = ["art/0.png", "art/1.jpg", "art/2.jpg", "art/copy.jpg"]
        try importTreasures((0..<60).map { ("t\($0)", names[$0 % 4]) })
        let workspace = try Workspace(path: sandbox.workspace)
        var options = Renditions.Options(outputFolder: sandbox.path("build/images"))
        options.jobs = 1
        let summary = try Renditions.run(workspace, options: options)
        #expect(summary.made == 180)
        #expect(summary.decoded == 3)
        let rows = try renditions()
        #expect(Set(rows.map { $0.split(separator: " ")[3] }).count == 180)
        func bytes(_ key: String, _ name: String) throws -> Data {
            let row = try #require(rows.first { $0.hasPrefix("\(key) \(name) ") })
            return try Data(
                contentsOf: URL(
                    fileURLWithPath: sandbox.path(
                        "build/images/" + String(row.split(separator: " ")[3]))))
        }
        #expect(try bytes("t2", "thumb") == bytes("t3", "thumb"))
        #expect(try bytes("t1", "full") == bytes("t5", "full"))
        #expect(try bytes("t1", "full") != bytes("t2", "full"))
        let again = sandbox.run("images", "--format", "json")
        #expect(again.stdout.contains("\"made\": 0, \"unchanged\": 180"), "\(again.stdout)")
    }

    /// 40 treasures over one artwork: each gets its own path, under its own key, whose
    /// file exists and holds the bytes of every other's; files deleted (the first one
    /// written among them too) are made again by the next run, and only they.
    @Test func manyRecordsOverOneArtworkGetTheirOwnPathsWithTheSameBytes() throws {
        try sandbox.write(
            "art/chest.jpg",
            Data(try JPEG.encode(Self.photo(width: 700, height: 500), quality: 90)))
        try importTreasures((0..<40).map { ("t\($0)", "art/chest.jpg") })
        let first = sandbox.run("images", "--format", "json")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("\"made\": 120, \"unchanged\": 0"), "\(first.stdout)")
        let rows = try renditions().map { $0.split(separator: " ").map(String.init) }
        #expect(rows.count == 120)
        #expect(Set(rows.map { $0[3] }).count == 120)
        func contents(_ path: String) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: sandbox.path("build/images/" + path)))
        }
        for name in ["full", "pin", "thumb"] {
            let mine = rows.filter { $0[1] == name }
            #expect(mine.count == 40)
            for row in mine {
                #expect(row[3].hasPrefix("treasures/\(row[0])/\(name)-"))
            }
            let bytes = try Set(mine.map { try contents($0[3]) })
            #expect(bytes.count == 1)
            #expect(bytes.first?.isEmpty == false)
        }
        let thumbs = rows.filter { $0[1] == "thumb" }
        let kept = try contents(thumbs[1][3])
        let deleted = [thumbs[0], thumbs[17]]
        for row in deleted {
            try FileManager.default.removeItem(atPath: sandbox.path("build/images/" + row[3]))
        }
        #expect(try contents(thumbs[1][3]) == kept)
        let again = sandbox.run("images", "--format", "json")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("\"made\": 2, \"unchanged\": 118"), "\(again.stdout)")
        // Made alone, a thumbnail is decoded at its own scale, so its bytes (and name) may
        // differ from those made beside the full rendition; the two made now share theirs.
        let after = try renditions().map { $0.split(separator: " ").map(String.init) }
        let restored = after.filter { row in deleted.contains { $0[0] == row[0] && $0[1] == row[1] }
        }
        #expect(restored.count == 2)
        #expect(try contents(restored[0][3]) == contents(restored[1][3]))
        #expect(after.filter { !restored.contains($0) } == rows.filter { !deleted.contains($0) })
        for row in after { #expect(try !contents(row[3]).isEmpty) }
        #expect(try contents(thumbs[1][3]) == kept)
    }

    @Test func aSecondRunProcessesAndRewritesNothing() throws {
        try sandbox.write(
            "a.jpg", Data(try JPEG.encode(Self.photo(width: 800, height: 600), quality: 90)))
        try importTreasures([("a", "a.jpg")])
        #expect(sandbox.run("images").status == 0)
        let files = try FileManager.default.subpathsOfDirectory(
            atPath: sandbox.path("build/images")
        )
        .filter { $0.contains(".") }.sorted()
        let times = try files.map {
            try FileManager.default.attributesOfItem(atPath: sandbox.path("build/images/\($0)"))[
                .modificationDate] as! Date
        }
        Thread.sleep(forTimeInterval: 0.05)
        let again = sandbox.run("images", "--format", "json")
        #expect(
            again.stdout
                == "{\"images\": 1, \"made\": 0, \"unchanged\": 3, \"removed\": 0, \"failed\": []}\n"
        )
        let timesAfter = try files.map {
            try FileManager.default.attributesOfItem(atPath: sandbox.path("build/images/\($0)"))[
                .modificationDate] as! Date
        }
        #expect(times == timesAfter)
        // A changed setting makes only that rendition again.
        let changed = sandbox.run("images", "--rendition", "thumb=128x128", "--format", "json")
        #expect(
            changed.stdout
                == "{\"images\": 1, \"made\": 1, \"unchanged\": 0, \"removed\": 0, \"failed\": []}\n"
        )
    }

    /// `--quality` is remembered, as `geohash --precision` is: the plain run a Makefile
    /// makes next remakes nothing. `--rendition` flags are for their run only, and it says so.
    @Test func qualityIsRememberedAndRenditionFlagsSayTheyAreForOneRun() throws {
        try sandbox.write(
            "a.jpg", Data(try JPEG.encode(Self.photo(width: 800, height: 600), quality: 90)))
        try importTreasures([("a", "a.jpg")])
        let first = sandbox.run("images", "--quality", "70", "--format", "json")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("\"made\": 3"), "\(first.stdout)")
        let plain = sandbox.run("images", "--format", "json")
        #expect(
            plain.stdout
                == "{\"images\": 1, \"made\": 0, \"unchanged\": 3, \"removed\": 0, \"failed\": []}\n"
        )
        #expect(sandbox.run("config", "get", "renditions.quality").stdout == "70\n")
        #expect(!plain.stderr.contains("for this run only"))
        let once = sandbox.run("images", "--rendition", "thumb=64x64")
        #expect(once.status == 0, "\(once.stderr)")
        #expect(
            once.stderr.contains(
                "note: the --rendition flags were for this run only; a run without them makes "
                    + "the configured set again (renditions.treasures, renditions.posts)\n"),
            "\(once.stderr)")
    }

    /// `artwork/Rossio.png` for `rossio.png` works on a Mac and fails on Linux CI: validate
    /// and images both point at the file whose name differs only in case.
    @Test func aMissingImageDifferingOnlyInCaseGetsADidYouMean() throws {
        try FileManager.default.createDirectory(
            atPath: sandbox.path("artwork"), withIntermediateDirectories: true)
        try sandbox.write(
            "artwork/rossio.png",
            Data(try PNG.encode(Self.photo(width: 300, height: 300, channels: 4))))
        try importTreasures([("r", "artwork/Rossio.png")])
        let missing = sandbox.path("artwork/Rossio.png")
        let validate = sandbox.run("validate", "t.csv")
        #expect(validate.status == 1)
        #expect(
            validate.stdout.contains(
                "t.csv:2: error[T120]: image \(missing) does not exist; did you mean "
                    + "'rossio.png'? (only the case differs)\n"), "\(validate.stdout)")
        let images = sandbox.run("images")
        #expect(images.status == 1)
        #expect(
            images.stderr.contains(
                "\(missing): no such file; did you mean 'rossio.png'? (only the case differs) "
                    + "(treasure r)\n"), "\(images.stderr)")
    }

    /// A 0-byte image is what it is, in the same words, in validate and in images.
    @Test func anEmptyImageIsCalledEmptyByValidateAndImages() throws {
        try sandbox.write("empty.png", Data())
        try importTreasures([("e", "empty.png")])
        let path = sandbox.path("empty.png")
        let validate = sandbox.run("validate", "t.csv")
        #expect(
            validate.stdout.contains(
                "t.csv:2: error[T121]: image \(path): empty image file (0 bytes)\n"),
            "\(validate.stdout)")
        let images = sandbox.run("images")
        #expect(
            images.stderr.contains("\(path): empty image file (0 bytes) (treasure e)\n"),
            "\(images.stderr)")
    }

    /// A source smaller than a rendition is not enlarged, and the run says so.
    @Test func aSmallSourceIsNotEnlargedAndTheRunSaysSo() throws {
        try sandbox.write(
            "tiny.png", Data(try PNG.encode(Self.photo(width: 32, height: 32, channels: 4))))
        try importTreasures([("t", "tiny.png")])
        let result = sandbox.run("images")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr.contains(
                "made 3 renditions of 1 images (0 already current) in "
                    + "\(sandbox.path("build/images")); 3 are smaller than asked, as images are "
                    + "never enlarged (first: treasure t's full, 32x32 for 1024x1024)\n"),
            "\(result.stderr)")
        #expect(try renditions().contains { $0.hasPrefix("t pin 32x32 ") })
    }

    @Test func renderingAgainUnderTheSamePathKeepsItsStorageToken() throws {
        try sandbox.write(
            "a.jpg", Data(try JPEG.encode(Self.photo(width: 800, height: 600), quality: 90)))
        try importTreasures([("a", "a.jpg")])
        let first = sandbox.run("images", "--out", "one")
        #expect(first.status == 0, "\(first.stderr)")
        func tokens() throws -> [String] {
            try Workspace.testDatabase(at: sandbox.workspace).query(
                "SELECT path || ' ' || token FROM storage_tokens ORDER BY path"
            ) { $0.text(0)! }
        }
        let before = try tokens()
        #expect(before.count == 3)
        // Another folder: the same renditions are made again, under the same paths.
        let second = sandbox.run("images", "--out", "two", "--format", "json")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(
            second.stdout
                == "{\"images\": 1, \"made\": 3, \"unchanged\": 0, \"removed\": 0, \"failed\": []}\n"
        )
        #expect(try tokens() == before)
        #expect(try renditions().allSatisfy { !$0.contains("one/") && !$0.contains("two/") })
    }

    @Test func outputsCarryNoMetadataButTheICCProfile() throws {
        try sandbox.write("exif.jpg", Data(try Self.jpegWithEXIF()))
        // An ICC-shaped block: the colour space (offset 16) must say RGB to be kept.
        var icc = [UInt8](repeating: 0x41, count: 300)
        icc.replaceSubrange(0..<4, with: [0, 0, 1, 44])
        icc.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        icc.replaceSubrange(36..<40, with: Array("acsp".utf8))
        try sandbox.write(
            "icc.jpg",
            Data(try JPEG.encode(Self.photo(width: 500, height: 500), quality: 90, iccProfile: icc))
        )
        try importTreasures([("exif", "exif.jpg"), ("icc", "icc.jpg")])
        #expect(sandbox.run("images").status == 0)
        for row in try renditions() {
            let path = sandbox.path("build/images/" + String(row.split(separator: " ")[3]))
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("Exif"), "\(row)")
            #expect(!text.contains("GPS secret"), "\(row)")
            #expect(!bytes.containsMarker(0xE1), "\(row)")  // no APP1 (EXIF/XMP)
            #expect(!bytes.containsMarker(0xFE), "\(row)")  // no COM
            #expect(text.contains("ICC_PROFILE") == row.hasPrefix("icc"), "\(row)")
        }
    }

    @Test func hostileImagesAreReportedAndTheRestAreProcessed() throws {
        let good = try JPEG.encode(Self.photo(width: 400, height: 300), quality: 90)
        try sandbox.write("good.jpg", Data(good))
        try sandbox.write("truncated.jpg", Data(good.prefix(good.count / 3)))
        try sandbox.write("garbage.jpg", Data("this is not a picture".utf8))
        try sandbox.write("empty.jpg", Data())
        var png = try PNG.encode(Self.photo(width: 64, height: 64, channels: 4))
        png[40] ^= 0xFF  // inside the first chunk after IHDR: its CRC no longer matches
        try sandbox.write("badcrc.png", Data(png))
        var huge = try PNG.encode(Self.photo(width: 8, height: 8))
        // IHDR width and height at bytes 16..<24: claim 100000 x 100000 (CRC fixed below).
        for (offset, value) in [(16, 100_000), (20, 100_000)] {
            huge[offset] = UInt8(value >> 24 & 0xFF)
            huge[offset + 1] = UInt8(value >> 16 & 0xFF)
            huge[offset + 2] = UInt8(value >> 8 & 0xFF)
            huge[offset + 3] = UInt8(value & 0xFF)
        }
        let crc = crc32(Array(huge[12..<29]))
        huge[29] = UInt8(crc >> 24 & 0xFF)
        huge[30] = UInt8(crc >> 16 & 0xFF)
        huge[31] = UInt8(crc >> 8 & 0xFF)
        huge[32] = UInt8(crc & 0xFF)
        try sandbox.write("huge.png", Data(huge))
        try importTreasures([
            ("good", "good.jpg"), ("truncated", "truncated.jpg"), ("garbage", "garbage.jpg"),
            ("empty", "empty.jpg"), ("badcrc", "badcrc.png"), ("huge", "huge.png"),
            ("missing", "missing.jpg"),
        ])
        let result = sandbox.run("images")
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        func line(_ name: String) -> String { lines.first { $0.contains("/\(name):") } ?? "" }
        #expect(line("truncated.jpg").contains("JPEG"), "\(result.stderr)")
        #expect(line("garbage.jpg").contains("not a JPEG or PNG image"), "\(result.stderr)")
        #expect(line("empty.jpg").contains("empty"), "\(result.stderr)")
        #expect(line("badcrc.png").lowercased().contains("crc"), "\(result.stderr)")
        #expect(line("huge.png").contains("100000"), "\(result.stderr)")
        #expect(line("missing.jpg").contains("no such file"), "\(result.stderr)")
        #expect(lines.last?.contains("6 images failed") == true, "\(result.stderr)")
        #expect(try renditions().filter { $0.hasPrefix("good ") }.count == 3)
    }

    @Test func renditionFlagsReplaceTheConfiguredSet() throws {
        try sandbox.write(
            "a.jpg", Data(try JPEG.encode(Self.photo(width: 800, height: 600), quality: 90)))
        try importTreasures([("a", "a.jpg")])
        #expect(sandbox.run("config", "set", "renditions.treasures", "big=500x500").status == 0)
        #expect(
            sandbox.run("images", "--rendition", "small=50x50:cover", "--out", "out").status == 0)
        #expect(
            try renditions().map { $0.split(separator: " ").prefix(3).joined(separator: " ") } == [
                "a small 50x50"
            ])
        #expect(sandbox.run("images", "--out", "out").status == 0)
        #expect(
            try renditions().map { $0.split(separator: " ").prefix(3).joined(separator: " ") } == [
                "a big 500x375", "a small 50x50",
            ])
        let bad = sandbox.run("images", "--rendition", "thumb=256")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("invalid rendition 'thumb=256'"))
    }
}

extension [UInt8] {
    /// Whether a JPEG marker segment `0xFF kind` appears before the image data.
    func containsMarker(_ kind: UInt8) -> Bool {
        guard count > 4, self[0] == 0xFF, self[1] == 0xD8 else { return false }
        var offset = 2
        while offset + 4 <= count, self[offset] == 0xFF {
            let marker = self[offset + 1]
            if marker == kind { return true }
            if marker == 0xDA { return false }  // start of scan: no more metadata
            offset += 2 + Int(self[offset + 2]) << 8 + Int(self[offset + 3])
        }
        return false
    }
}

/// PNG's CRC-32, to forge a header that is well-formed but claims a huge size.
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return crc ^ 0xFFFF_FFFF
}

@Suite struct ImageValidationTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test func validateReportsEveryImageThatImagesRefuses() throws {
        let photo = ImagesTests.photo(width: 320, height: 288)
        let jpeg = try JPEG.encode(photo, quality: 85)
        var badData = jpeg
        // Inside the entropy-coded data: the header reads fine, the pixels do not.
        for index in stride(from: jpeg.count / 2, to: jpeg.count / 2 + 400, by: 7) {
            badData[index] = 0xFF
        }
        var png = try PNG.encode(ImagesTests.photo(width: 300, height: 300, channels: 4))
        // Damage the zlib stream of the first IDAT and give the chunk a matching CRC, so
        // only inflating the data can tell.
        let idat = try #require(
            (8..<(png.count - 4)).first { png[$0..<($0 + 4)].elementsEqual(Array("IDAT".utf8)) })
        let length =
            Int(png[idat - 4]) << 24 | Int(png[idat - 3]) << 16 | Int(png[idat - 2]) << 8
            | Int(png[idat - 1])
        for index in stride(from: idat + 4 + length / 2, to: idat + 4 + length / 2 + 64, by: 1) {
            png[index] ^= 0x5A
        }
        let crc = crc32(Array(png[idat..<(idat + 4 + length)]))
        for offset in 0..<4 {
            png[idat + 4 + length + offset] = UInt8(crc >> (24 - 8 * UInt32(offset)) & 0xFF)
        }
        let files: [(String, [UInt8])] = [
            ("good.jpg", jpeg), ("truncated.jpg", Array(jpeg.prefix(jpeg.count * 2 / 3))),
            ("baddata.jpg", badData), ("badzlib.png", png),
            ("good.png", try PNG.encode(ImagesTests.photo(width: 300, height: 300))),
        ]
        var csv = "key,name,lat,lon,image\n"
        for (index, (name, bytes)) in files.enumerated() {
            try sandbox.write(name, Data(bytes))
            csv += "k\(index),Name \(index),40.\(index),-74,\(name)\n"
        }
        try sandbox.write("t.csv", csv)
        sandbox.run("init")
        #expect(sandbox.run("import", "treasures", "t.csv").status == 0)
        let images = sandbox.run("images")
        let refused = Set(
            files.map(\.0).filter { name in images.stderr.contains("/\(name):") })
        #expect(refused == ["truncated.jpg", "baddata.jpg", "badzlib.png"], "\(images.stderr)")
        let validate = sandbox.run("validate", "t.csv")
        #expect(validate.status == 1)
        let errors = Set(
            files.map(\.0).filter { name in
                validate.stdout.split(separator: "\n").contains {
                    $0.contains("error[T121]") && $0.contains("/\(name) cannot be read")
                }
            })
        #expect(errors == refused, "\(validate.stdout)")
    }

    @Test func validateChecksEachImagesHeader() throws {
        try sandbox.write(
            "ok.jpg", Data(try JPEG.encode(ImagesTests.photo(width: 300, height: 300), quality: 80))
        )
        try sandbox.write(
            "small.png", Data(try PNG.encode(ImagesTests.photo(width: 200, height: 100))))
        try sandbox.write("text.png", Data("plain text".utf8))
        let good = try JPEG.encode(ImagesTests.photo(width: 300, height: 300), quality: 80)
        try sandbox.write("cut.jpg", Data(good.prefix(100)))
        try sandbox.write(
            "t.csv",
            """
            key,name,lat,lon,image
            ok,Ok,1,1,ok.jpg
            small,Small,2,2,small.png
            text,Text,3,3,text.png
            cut, Cut ,4,4,cut.jpg
            gone,Gone,5,5,gone.jpg
            remote,Remote,6,6,https://example.com/a.png

            """)
        let result = sandbox.run("validate", "t.csv")
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        // Images are checked on every core; each one's findings still follow its row's.
        #expect(lines.count == 5, "\(result.stdout)")
        #expect(
            lines[0].hasPrefix("t.csv:3: warning[T209]: image ")
                && lines[0].hasSuffix("small.png is 200x100, under 256 px on its short side"))
        #expect(lines[1].hasPrefix("t.csv:4: error[T122]: image "))
        #expect(lines[2] == "t.csv:5: warning[T201]: name has surrounding spaces")
        #expect(lines[3].hasPrefix("t.csv:5: error[T121]: image "))
        #expect(lines[4].hasPrefix("t.csv:6: error[T120]: image "))
    }

    /// A chunk that claims more than the file holds is refused before anything is
    /// allocated for it: a 55-byte PNG declaring a 2 GB text chunk (found by the
    /// png_decode fuzz target) took 2 GB of memory and seconds to refuse.
    @Test func aChunkLongerThanTheFileCostsNoMemory() throws {
        try BuiltBinary.require()
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        png += Data([0, 0, 0, 13]) + Data("IHDR".utf8)
        png += Data([0, 0, 0, 24, 0, 0, 0, 20, 8, 2, 0, 0, 0, 0x18, 0xD7, 0x6A, 0xD4])
        png += Data([0x7F, 0, 0, 0x5E]) + Data("tEXt".utf8) + Data("Raw profile".utf8)
        try sandbox.write("huge-text.png", png)
        try sandbox.write("t.csv", "key,name,lat,lon,image\na,A,1,1,huge-text.png\n")
        try sandbox.write("ok.png", Data(try PNG.encode(ImagesTests.photo(width: 24, height: 20))))
        try sandbox.write("ok.csv", "key,name,lat,lon,image\na,A,1,1,ok.png\n")
        /// The peak memory (KB) and exit status of `trove validate FILE`. A spawned child's
        /// peak counts the test process's own until it execs, so only the difference
        /// between two runs tells anything.
        func peak(validating file: String) -> (kilobytes: Int, status: Int32) {
            var pid: pid_t = 0
            let arguments = [
                BuiltBinary.path, "-w", sandbox.workspace, "validate", sandbox.path(file),
            ]
            let argv = arguments.map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            guard posix_spawn(&pid, BuiltBinary.path, &actions, nil, argv, environ) == 0 else {
                return (0, -1)
            }
            var status: Int32 = 0
            var usage = rusage()
            _ = wait4(pid, &status, 0, &usage)
            return (usage.ru_maxrss, (status >> 8) & 0xFF)
        }
        let good = peak(validating: "ok.csv")
        let bad = peak(validating: "t.csv")
        #expect(good.status == 0 && bad.status == 1, "validate reports the image as an error")
        // Far below the claimed 2 GB: no more than a valid image costs, give or take.
        #expect(
            bad.kilobytes < good.kilobytes + 100_000, "\(bad.kilobytes) KB vs \(good.kilobytes) KB")
        let result = sandbox.run("validate", "t.csv")
        #expect(
            result.stdout.contains(
                "cannot be read: corrupt PNG: Unexpected end of PNG data: a 'tEXt' chunk claims "
                    + "2130706526 bytes, 11 are left (the file is truncated)"), "\(result.stdout)")
    }
}
