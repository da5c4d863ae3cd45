import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit

@Suite struct ExportNumberTests {
    @Test(arguments: [
        (41.0, "41"), (-74.006, "-74.006"), (0.1 + 0.2, "0.30000000000000004"),
        (1e-5, "0.00001"), (1e-7, "1e-7"), (1e21, "1e+21"), (1e20, "100000000000000000000"),
        (123_456_789_012_345_680, "123456789012345680"), (5e-324, "5e-324"),
        (-0.0, "-0"), (0.0, "0"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    ])
    func numbersPrintLikeJavaScript(value: Double, text: String) {
        #expect(JSONText.number(value) == text)
    }

    @Test func everyPrintedNumberReadsBackAsTheSameDouble() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = Double(
                bitPattern: random.next() & ~(0x7FF << 52) | (UInt64.random(in: 900...1150) << 52))
            #expect(Double(JSONText.number(value))?.bitPattern == value.bitPattern)
        }
    }

    @Test func coordinatesPrintAsTheirShortestDigits() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            // Positions as people write them: up to six places, often fewer.
            let places = Int.random(in: 1...6, using: &random)
            let units = Int64.random(in: -180_000_000...180_000_000, using: &random)
            let value = Double(units) / 1e6
            let text = JSONText.number(value)
            #expect(Double(text)?.bitPattern == value.bitPattern)
            if value.magnitude >= 1e-4 && value != value.rounded() {
                // Swift's description is the shortest text that reads back the same.
                #expect(text == value.description, "\(units) at \(places) places")
            }
            let rounded = (value * pow(10, Double(places))).rounded() / pow(10, Double(places))
            if rounded.magnitude >= 1e-4 && rounded != rounded.rounded() {
                #expect(JSONText.number(rounded) == rounded.description)
            }
        }
        #expect(JSONText.number(-74.0061) == "-74.0061")
        #expect(JSONText.number(0.000001) == "0.000001")
        #expect(JSONText.number(40.7128) == "40.7128")
    }
}

@Suite struct ExportLayoutTests {
    @Test func aLayoutSavedWithAByteOrderMarkReads() throws {
        let json = #"{"records": "posts", "paths": {"a/{key}": {"n": 1.5, "t": true}}}"#
        let layout = try Layout(name: "t", json: [0xEF, 0xBB, 0xBF] + Array(json.utf8))
        #expect(layout.paths.map(\.text) == ["a/{key}"])
    }

    @Test func aPlaceholderThatIsTheWholeStringKeepsItsType() throws {
        let layout = try Layout(
            name: "t",
            json: Array(
                #"{"records": "treasures", "paths": {"a/{key}": ["{lat}", "x{lat}"]}}"#.utf8))
        #expect(layout.paths[0].value.fields == [.lat, .lat])
        guard case .array(let elements) = layout.paths[0].value,
            case .text(.whole(.lat)) = elements[0], case .text(.interpolated) = elements[1]
        else {
            Issue.record("unexpected template \(layout.paths[0].value)")
            return
        }
    }

    @Test(arguments: [
        (#"{"records": "posts", "paths": {"a/{key}": "{name}"}}"#, "unknown placeholder '{name}'"),
        (
            #"{"records": "treasures", "paths": {"a/{key}": "{photo.full.url}"}}"#,
            "unknown placeholder"
        ),
        (#"{"records": "people", "paths": {"a": 1}}"#, "\"records\" must be"),
        (#"{"records": "posts", "paths": {"a.b/{key}": 1}}"#, "contains '.'"),
        (#"{"records": "posts", "paths": {"a/{key}": {"0": 1, "1": 2}}}"#, "array indices"),
        (#"{"records": "posts"}"#, "\"paths\" must be an object"),
        (
            #"{"records": "posts", "paths": {"a": 1, "a": 2}}"#,
            "invalid JSON: the key 'a' appears twice"
        ),
        (
            #"{"records": "posts", "paths": {"a": 1e999}}"#,
            "invalid JSON: number 1e999 is out of range"
        ),
        (
            "{\"records\": \"posts\", \"paths\": {\"a\": 1}}\n{}",
            "line 2, column 0: unexpected data"
        ),
        (
            #"{"records": "posts", "paths": {"a": 1}, "extra": 1, "more": 2}"#,
            "unknown member \"extra\""
        ),
    ])
    func brokenLayoutsAreRefusedWithTheReason(json: String, message: String) {
        #expect {
            _ = try Layout(name: "t", json: Array(json.utf8))
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func tooDeepAPathIsRefused() {
        let path = (0..<31).map { "l\($0)" }.joined(separator: "/")
        let json = #"{"records": "posts", "paths": {"\#(path)": {"x": 1}}}"#
        #expect(throws: LayoutError.self) { _ = try Layout(name: "t", json: Array(json.utf8)) }
    }

    @Test func builtInLayoutsLoadAndNameTheirGeoFireNodes() throws {
        let library = try TemplateLibrary(overrideFolder: nil)
        let flatirongo = try Layout(
            name: "flatirongo", json: #require(library.layout(named: "flatirongo")))
        let trashmapper = try Layout(
            name: "trashmapper", json: #require(library.layout(named: "trashmapper")))
        #expect(flatirongo.geoFireNodes == ["treasureLocations/{key}"])
        #expect(trashmapper.geoFireNodes == ["locationIndex/{key}"])
        #expect(trashmapper.records == .posts)
    }
}

@Suite struct ExportStorageAndLimitTests {
    @Test func storageURLsEncodeTheWholeObjectPathAsOneSegment() {
        let storage = StorageURL(bucket: "flatiron-go.appspot.com", template: nil)
        #expect(
            storage.url(for: "treasures/hairy harry/full-3fa2c9e1.jpg")
                == "https://firebasestorage.googleapis.com/v0/b/flatiron-go.appspot.com/o/"
                + "treasures%2Fhairy%20harry%2Ffull-3fa2c9e1.jpg?alt=media")
        #expect(StorageURL.percentEncode("a~b_c.d-é+") == "a~b_c.d-%C3%A9%2B")
        let custom = StorageURL(bucket: "x", template: "https://cdn.example.com/{path}")
        #expect(custom.url(for: "a/b.png") == "https://cdn.example.com/a%2Fb.png")
    }

    @Test(arguments: [
        ("ok-key", nil), ("", "is empty"), ("a.b", "'.'"), ("a$b", "'$'"), ("a#", "'#'"),
        ("[x", "'['"), ("x]", "']'"), ("a/b", "'/'"), ("tab\there", "control character"),
        (String(repeating: "é", count: 385), "770 bytes"),
    ])
    func keysAreCheckedAgainstFirebaseRules(key: String, problem: String?) {
        let found = FirebaseKey.problem(key)
        if let problem {
            #expect(found?.contains(problem) == true, "\(found ?? "nil")")
        } else {
            #expect(found == nil)
        }
    }

    @Test func arrayLikeKeysFollowFirebasesRule() {
        #expect(FirebaseLimits.looksLikeArray(["0", "1", "2"]))
        #expect(FirebaseLimits.looksLikeArray(["1", "2"]))
        #expect(!FirebaseLimits.looksLikeArray(["1", "9"]))
        #expect(!FirebaseLimits.looksLikeArray(["0", "1", "x"]))
        #expect(!FirebaseLimits.looksLikeArray(["007"]))
    }

    @Test func pathsOrderSegmentBySegment() {
        let sorted = ["a-c/x", "a/b", "a", "a/b/c", "ab"].map { Array($0.utf8) }
            .sorted { comparePaths($0, $1) < 0 }.map { String(decoding: $0, as: UTF8.self) }
        #expect(sorted == ["a", "a/b", "a/b/c", "a-c/x", "ab"])
        func order(_ previous: String, _ next: String) -> (Int, Bool) {
            Array(previous.utf8).withUnsafeBufferPointer { a in
                Array(next.utf8).withUnsafeBufferPointer { pathOrder(a, $0) }
            }
        }
        // Writing a path after itself or after one of its ancestors overlaps.
        #expect(order("a/b", "a/b/c") == (-1, true))
        #expect(order("a/b", "a/b") == (0, true))
        #expect(order("a/b", "a/bc") == (-1, false))
        #expect(order("a/b", "a/c") == (-1, false))
        #expect(order("a/c", "a/b") == (1, false))
    }

    /// Long paths are compared eight bytes at a time: the first differing byte, at any
    /// position and of any value, must still decide, with `/` before everything.
    @Test func longPathsOrderAsTheirSegments() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab/-~".utf8) + [0x00, 0x2E, 0x7F, 0xC3, 0xFF]
        let stem = Array("treasureProfiles/t0000".utf8)
        for _ in 0..<5000 {
            var a = Array(stem.prefix(Int.random(in: 0...stem.count, using: &generator)))
            var b = a
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                a.append(alphabet.randomElement(using: &generator)!)
            }
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                b.append(alphabet.randomElement(using: &generator)!)
            }
            if Bool.random(using: &generator) { b = a + b.suffix(2) }
            // The reference: bytes compared one by one, `/` ranked below every byte.
            let rank = { (byte: UInt8) in byte == UInt8(ascii: "/") ? 0 : Int(byte) + 1 }
            let expected =
                a.map(rank).lexicographicallyPrecedes(b.map(rank))
                ? -1 : (a == b ? 0 : 1)
            #expect(comparePaths(a, b) == expected, "\(a) \(b)")
        }
    }
}

@Suite struct EntryChannelTests {
    /// A batch of one entry whose path, value and key all spell `index`.
    private func batch(_ index: Int) -> EntryBatch {
        var batch = EntryBatch()
        for _ in 0..<3 {
            batch.bytes.append(contentsOf: String(index).utf8)
            batch.ends.append(batch.bytes.count)
        }
        batch.hashes.append(UInt64(index))
        return batch
    }

    @Test func aProducerWorksAheadOfAnIdleConsumerAndOrderIsKept() throws {
        let channel = BoundedChannel<EntryBatch>(capacity: 8, overflow: EntrySpill())
        // Far more than the queue keeps in memory; without the spill it would block here.
        for index in 0..<100 { #expect(channel.send(batch(index))) }
        var seen: [Int] = []
        for index in 100..<120 {
            // Taking some, then pushing more, keeps the order across memory and the spill.
            if let next = try channel.next() { seen.append(Int(next.hashes[0])) }
            #expect(channel.send(batch(index)))
        }
        channel.close()
        while let next = try channel.next() {
            #expect(
                String(decoding: next.bytes, as: UTF8.self)
                    == String(repeating: "\(next.hashes[0])", count: 3))
            seen.append(Int(next.hashes[0]))
        }
        #expect(seen == Array(0..<120))
    }
}
