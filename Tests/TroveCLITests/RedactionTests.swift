import Foundation
import Testing
import TroveBase
import TroveImaging
import TroveKit
import TroveSQLite

@testable import TroveCLI
@testable import TroveServe
@testable import TroveStore

/// `review approve --redact`: the published renditions hide the boxes beyond recovery,
/// the rest of the photo and the workspace's original are as they were.
@Suite struct RedactionTests {
    let sandbox: Sandbox
    static let width = 800
    static let height = 600
    /// The box, as fractions and in pixels of the photo.
    static let box = "0.25,0.25,0.25,0.25"
    static let pixels = (x: 200, y: 150, width: 200, height: 150)

    init() throws {
        sandbox = try Sandbox()
        sandbox.run("init")
        try sandbox.write("photos/a.jpg", Self.photo())
        try sandbox.write(
            "posts.csv",
            """
            id,user,lat,lon,description,date,photo
            p1,alice,40.7128,-74.0060,cans by a car,2022-01-24,a.jpg
            """)
        sandbox.run("import", "posts", "posts.csv", "--photos", "photos")
    }

    /// A smooth picture with EXIF GPS, with a checkerboard of 2-pixel squares (the finest
    /// detail, a face or a plate's digits) over the box and a margin around it.
    static func photo() throws -> Data {
        var bitmap = PostPhotos.bitmap(width: width, height: height, seed: 4)
        for y in (pixels.y - 20)..<(pixels.y + pixels.height + 20) {
            for x in (pixels.x - 20)..<(pixels.x + pixels.width + 20) {
                let value: UInt8 = (x / 2 + y / 2) % 2 == 0 ? 0 : 255
                for channel in 0..<3 { bitmap.pixels[(y * width + x) * 3 + channel] = value }
            }
        }
        let plain = try JPEG.encode(bitmap, quality: 95)
        let payload = Array("Exif".utf8) + [0, 0] + PostPhotos.tiff(latitude: 40.7, longitude: -74)
        let length = payload.count + 2
        let segment = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Data(Array(plain[0..<2]) + segment + Array(plain[2...]))
    }

    func renditions() -> [String: [UInt8]] {
        let root = sandbox.path("out")
        let names = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String }
        var found: [String: [UInt8]] = [:]
        for name in names ?? [] where name.hasPrefix("posts/p1/") && name.hasSuffix(".jpg") {
            let data = FileManager.default.contents(atPath: root + "/" + name) ?? Data()
            found[String(name.dropFirst("posts/p1/".count).prefix { $0 != "-" })] = Array(data)
        }
        return found
    }

    /// Grey level of a pixel (the mean of its channels).
    static func grey(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> Double {
        let offset = (y * bitmap.width + x) * bitmap.channels
        return (0..<bitmap.channels).map { Double(bitmap.pixels[offset + $0]) }.reduce(0, +)
            / Double(bitmap.channels)
    }

    static func deviation(_ values: [Double]) -> Double {
        let mean = values.reduce(0, +) / Double(values.count)
        return (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count))
            .squareRoot()
    }

    @Test func theRenditionsHideTheBoxAndKeepTheRestAndTheOriginal() throws {
        let originalBytes = try #require(
            FileManager.default.contents(atPath: sandbox.path("photos/a.jpg")))
        let original = try JPEG.decode(Array(originalBytes))
        let approved = sandbox.run("review", "approve", "p1", "--redact", Self.box, "--as", "ann")
        #expect(approved.status == 0, "\(approved.stderr)")
        let images = sandbox.run("images", "--posts", "--out", "out")
        #expect(images.status == 0, "\(images.stderr)")

        let made = renditions()
        #expect(made.keys.sorted() == ["full", "thumb"])
        let full = try JPEG.decode(try #require(made["full"]))
        #expect(full.width == Self.width && full.height == Self.height)
        let box = Self.pixels
        // Inside (a few pixels in from the edges, past JPEG's ringing): the checkerboard's
        // spread collapses, and no pixel keeps its black or white.
        var inside: [Double] = []
        var before: [Double] = []
        for y in (box.y + 4)..<(box.y + box.height - 4) {
            for x in (box.x + 4)..<(box.x + box.width - 4) {
                inside.append(Self.grey(full, x, y))
                before.append(Self.grey(original, x, y))
            }
        }
        #expect(Self.deviation(before) > 100)
        #expect(Self.deviation(inside) < 20, "spread inside the box: \(Self.deviation(inside))")
        #expect(inside.allSatisfy { (48...208).contains($0) }, "a pattern pixel survived")
        // Not reversible: the box is flat blocks whose side is at least a quarter of the
        // box's shorter side (150 / 4): within each, the spread is JPEG's noise alone.
        let block = (box.height + 3) / 4
        for top in stride(from: box.y, to: box.y + box.height - block + 1, by: block) {
            for left in stride(from: box.x, to: box.x + box.width - block + 1, by: block) {
                var values: [Double] = []
                for y in (top + 4)..<(top + block - 4) {
                    for x in (left + 4)..<(left + block - 4) {
                        values.append(Self.grey(full, x, y))
                    }
                }
                #expect(Self.deviation(values) < 4, "block at \(left),\(top) is not flat")
            }
        }
        // Outside (away from the checkerboard's margin): as the original, within JPEG's
        // tolerance.
        var difference = 0.0
        var count = 0
        for y in stride(from: 0, to: Self.height, by: 2) {
            for x in stride(from: 0, to: Self.width, by: 2)
            where x < box.x - 28 || x >= box.x + box.width + 28 || y < box.y - 28
                || y >= box.y + box.height + 28
            {
                difference += abs(Self.grey(full, x, y) - Self.grey(original, x, y))
                count += 1
            }
        }
        #expect(difference / Double(count) < 3, "outside differs by \(difference / Double(count))")
        // The thumbnail hides the box too.
        let thumb = try JPEG.decode(try #require(made["thumb"]))
        var small: [Double] = []
        let scale = Double(thumb.width) / Double(Self.width)
        for y in Int(Double(box.y + 8) * scale)..<Int(Double(box.y + box.height - 8) * scale) {
            for x in Int(Double(box.x + 8) * scale)..<Int(Double(box.x + box.width - 8) * scale) {
                small.append(Self.grey(thumb, x, y))
            }
        }
        #expect(Self.deviation(small) < 20)
        // Re-encoded without metadata: no EXIF in any rendition.
        for (name, bytes) in made {
            #expect(!bytes.starts(with: [0xFF, 0xD8, 0xFF, 0xE1]), "\(name) has an APP1")
            #expect(!String(decoding: bytes, as: UTF8.self).contains("Exif"), "\(name) has EXIF")
        }
        // The original is untouched.
        #expect(FileManager.default.contents(atPath: sandbox.path("photos/a.jpg")) == originalBytes)
    }

    @Test func theDecisionAndTheVersionRecordTheBoxes() throws {
        let workspace = try Workspace(path: sandbox.workspace)
        let store = PostStore(workspace)
        let seen = try #require(try store.post("p1")).version
        #expect(
            sandbox.run("review", "approve", "p1", "--redact", Self.box, "--as", "ann").status == 0)
        let redacted = try #require(try store.post("p1"))
        #expect(redacted.status == .approved && redacted.version != seen)
        let decision = try #require(try store.decisions(for: "p1").last)
        #expect(decision.redaction == "0.25,0.25,0.25,0.25")
        #expect(decision.version == redacted.version)
        let recorded = try workspace.database.query(
            "SELECT redaction FROM post_versions WHERE post_id = 'p1' AND version = ?",
            [.text(redacted.version)]
        ) { $0.text(0) }
        #expect(recorded == ["0.25,0.25,0.25,0.25"])
        let log = sandbox.run("review", "log", "p1", "--format", "json").stdout
        #expect(log.contains("\"redaction\": \"0.25,0.25,0.25,0.25\""), "\(log)")

        // The same boxes again change nothing; other boxes are another version.
        let again = sandbox.run("review", "approve", "p1", "--redact", Self.box, "--as", "ann")
        #expect(again.status == 0)
        #expect(try store.decisions(for: "p1").count == 1)
        let other = sandbox.run(
            "review", "approve", "p1", "--redact", Self.box, "--redact", "0.5,0.6,0.1,0.1",
            "--as", "ann")
        #expect(other.status == 0, "\(other.stderr)")
        let twice = try #require(try store.post("p1"))
        #expect(twice.version != redacted.version && twice.version != seen)
        #expect(
            try store.decisions(for: "p1").last?.redaction
                == "0.25,0.25,0.25,0.25;0.5,0.6,0.1,0.1")
        // Approving without boxes publishes the whole photo: the content's version again.
        #expect(sandbox.run("review", "approve", "p1", "--as", "ann").status == 0)
        #expect(try store.post("p1")?.version == seen)
        // Undo brings the boxes back with their version.
        #expect(sandbox.run("review", "undo", "p1", "--as", "ann").status == 0)
        #expect(try store.post("p1")?.version == twice.version)
    }

    @Test func renditionsFollowTheBoxesTheyWereMadeWith() throws {
        let workspace = try Workspace(path: sandbox.workspace)
        let lacking = {
            try RenditionStore(workspace).lackingRenditions(
                of: .post, names: ["full", "thumb"], keys: nil
            ).map(\.key)
        }
        #expect(sandbox.run("review", "approve", "p1", "--as", "ann").status == 0)
        #expect(sandbox.run("images", "--posts", "--out", "out").status == 0)
        let whole = renditions()
        #expect(try lacking().isEmpty)
        // Boxes added after the photo was published: what a publish renders first.
        let redacted = sandbox.run("review", "approve", "p1", "--redact", Self.box, "--as", "ann")
        #expect(redacted.status == 0, "\(redacted.stderr)")
        #expect(try lacking() == ["p1"])
        #expect(sandbox.run("images", "--posts", "--out", "out").status == 0)
        #expect(try lacking().isEmpty)
        let hidden = renditions()
        #expect(hidden.keys.sorted() == ["full", "thumb"])
        #expect(hidden["full"] != whole["full"] && hidden["thumb"] != whole["thumb"])
        // Approved whole again: the whole photo is published again.
        #expect(sandbox.run("review", "approve", "p1", "--as", "ann").status == 0)
        #expect(try lacking() == ["p1"])
        #expect(sandbox.run("images", "--posts", "--out", "out").status == 0)
        #expect(renditions()["full"] == whole["full"])
    }

    @Test func theServerTakesBoxesOnlyWithAnApproval() throws {
        let boxes = JSONValue.object([
            JSONMember(name: "redact", value: .array([.string(Self.box)]))
        ])
        #expect(try ReviewServer.redaction(boxes, .approve).get().map(\.text) == [Self.box])
        let refused: [(JSONValue, ReviewAction, String)] = [
            (boxes, .flag, "only an approval"),
            (
                .object([JSONMember(name: "redact", value: .array([.string("1,2,3")]))]),
                .approve, "x,y,w,h"
            ),
            (.object([JSONMember(name: "redact", value: .string(Self.box))]), .approve, "a list"),
            (
                .object([JSONMember(name: "redact", value: .array([.number("1")]))]),
                .approve, "not a number"
            ),
        ]
        for (body, action, words) in refused {
            guard case .failure(let error) = ReviewServer.redaction(body, action) else {
                Issue.record("\(body.jsonText) was taken")
                continue
            }
            #expect(error.description.contains(words), "\(error)")
        }
    }

    @Test func aBadBoxIsAUsageErrorThatSaysWhatToWrite() {
        for bad in [
            "0.1,0.2,0.3", "0.5,0.5,0.6,0.2", "a,0,0.1,0.1", "0.1,0.1,0,0.2", "20,30,40,50",
        ] {
            let result = sandbox.run("review", "approve", "p1", "--redact", bad, "--as", "ann")
            #expect(result.status == 2, "\(bad): \(result.stderr)")
            #expect(
                result.stderr.contains("--redact") && result.stderr.contains("x,y,w,h")
                    || result.stderr.contains("fractions"), "\(bad): \(result.stderr)")
        }
        #expect(sandbox.run("review", "show", "p1").stdout.contains("pending"))
    }
}
