import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit
@_spi(Testing) @testable import TroveStore

/// Facts by file content, so tests describe photos without encoding any: a file holds a
/// JPEG signature (photos are read only when they start with one) and then its name.
struct FakeInspector: PhotoInspecting {
    let facts: [String: PhotoFacts]

    static let signature: [UInt8] = [0xFF, 0xD8, 0xFF]

    func inspect(_ bytes: [UInt8]) -> PhotoFacts {
        let name = String(
            decoding: bytes.starts(with: Self.signature) ? bytes.dropFirst(3) : bytes[...],
            as: UTF8.self)
        var result = facts[name] ?? PhotoFacts(fingerprint: "", problem: "not a picture")
        result.fingerprint = ContentHash.hex(bytes)
        return result
    }
}

/// Counts the photos it is given.
final class CountingInspector: PhotoInspecting, @unchecked Sendable {
    private let lock = NSLock()
    private var inspected = 0
    let inner: any PhotoInspecting

    init(_ inner: any PhotoInspecting) { self.inner = inner }

    var count: Int { lock.withLock { inspected } }

    func inspect(_ bytes: [UInt8]) -> PhotoFacts {
        lock.withLock { inspected += 1 }
        return inner.inspect(bytes)
    }
}

@Suite struct PostSignalTests {
    let folder: URL
    let workspace: Workspace
    let now = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-signals-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        workspace = try Workspace(
            path: folder.appendingPathComponent("w.sqlite").path, create: true)
    }

    static let good = PhotoFacts(
        fingerprint: "", width: 1024, height: 768, exifLatitude: 40.7128, exifLongitude: -74.006,
        perceptualHash: 0xF0F0_F0F0_0F0F_0F0F)

    func importPosts(_ posts: [PostInput], photos: [String: PhotoFacts] = [:]) throws
        -> PostImportSummary
    {
        for name in photos.keys {
            try Data(FakeInspector.signature + Array(name.utf8)).write(
                to: folder.appendingPathComponent(name))
        }
        let resolver = try #require(PhotoResolver(folder: folder.path))
        let importer = PostImporter(
            workspace: workspace, photos: resolver, inspector: FakeInspector(facts: photos),
            now: now)
        return try importer.run(PostFile(posts: posts))
    }

    func signals(_ id: String) throws -> [String: String] {
        let record = try #require(try PostQuery(workspace: workspace).post(id))
        return Dictionary(
            record.signals.map { ($0.name.rawValue, $0.detail) }, uniquingKeysWith: { a, _ in a })
    }

    func post(
        _ id: String, lat: Double = 40.7128, lon: Double = -74.006, photo: String? = nil,
        date: String? = "2023-11-01", user: String? = "u", text: String? = nil
    ) -> PostInput {
        PostInput(
            id: id, user: user, latitude: lat, longitude: lon, description: text, date: date,
            photo: photo, source: "test:\(id)")
    }

    @Test func exifPositionFarFromTheClaimIsShownWithItsDistance() throws {
        var far = Self.good
        far.exifLatitude = 40.7228  // about 1.1 km north
        try importPosts(
            [post("near", photo: "a"), post("far", lat: 10, photo: "b")],
            photos: ["a": Self.good, "b": far])
        #expect(try signals("near")["exif-gps-mismatch"] == nil)
        let detail = try #require(try signals("far")["exif-gps-mismatch"])
        #expect(detail.contains("km from the claimed position"))
    }

    /// A photo whose GPS position is there but unreadable is not said to have none, at
    /// import and at every scan after.
    @Test func unreadableGPSIsSaidSo() throws {
        var text = Self.good
        text.exifLatitude = nil
        text.exifLongitude = nil
        text.exifGPSProblem =
            "GPSLatitude is stored as ASCII text (8 values), not as three rationals"
        try importPosts([post("t", photo: "t")], photos: ["t": text])
        let detail =
            "the photo carries a GPS position that cannot be read: GPSLatitude is stored as "
            + "ASCII text (8 values), not as three rationals"
        #expect(try signals("t")["no-exif-gps"] == detail)
        try workspace.write { try SignalScanner(workspace: workspace, now: now).scan() }
        #expect(try signals("t")["no-exif-gps"] == detail)
    }

    @Test func missingGPSAndSmallAndUnreadablePhotos() throws {
        var small = Self.good
        small.exifLatitude = nil
        small.exifLongitude = nil
        small.width = 200
        try importPosts(
            [
                post("small", photo: "s"), post("broken", lat: 0, photo: "x"),
                post("missing", lat: 1, photo: "nothere.jpg"),
            ],
            photos: ["s": small, "x": PhotoFacts(fingerprint: "", problem: "corrupt JPEG")])
        #expect(try signals("small")["no-exif-gps"] != nil)
        #expect(try signals("small")["photo-too-small"]?.hasPrefix("200×768 px") == true)
        #expect(try signals("broken")["photo-unreadable"] == "corrupt JPEG")
        #expect(try signals("missing")["photo-unreadable"]?.contains("not found") == true)
    }

    @Test func duplicateAndSimilarPhotos() throws {
        var similar = Self.good
        similar.perceptualHash = Self.good.perceptualHash.map { $0 ^ 0b1011 }  // 3 bits
        var different = Self.good
        different.perceptualHash = Self.good.perceptualHash.map { ~$0 }
        try importPosts(
            [
                post("a", lat: 1, photo: "same"), post("b", lat: 2, photo: "same"),
                post("c", lat: 3, photo: "look"), post("d", lat: 4, photo: "other"),
            ],
            photos: ["same": Self.good, "look": similar, "other": different])
        #expect(try signals("a")["duplicate-photo"] == "same photo as b")
        #expect(try signals("a")["similar-photo"] == "looks like c (3 bits)")
        #expect(try signals("c")["duplicate-photo"] == nil)
        #expect(try signals("d")["similar-photo"] == nil)
    }

    /// A photo posted many times names the first five others and counts the rest.
    @Test func aPhotoPostedManyTimesNamesFiveAndCountsTheRest() throws {
        let posts = (0..<300).map { post(String(format: "p%03d", $0), lat: 1, photo: "same") }
        try importPosts(posts, photos: ["same": Self.good])
        #expect(
            try signals("p000")["duplicate-photo"]
                == "same photo as p001, p002, p003, p004, p005 and 294 more")
        #expect(
            try signals("p002")["duplicate-photo"]
                == "same photo as p000, p001, p003, p004, p005 and 294 more")
    }

    /// Two posts with one id stop the import before its first batch is written, however
    /// far apart they are.
    @Test func twoPostsWithOneIdWriteNothingWhateverTheBatches() throws {
        let resolver = try #require(PhotoResolver(folder: folder.path))
        var importer = PostImporter(
            workspace: workspace, photos: resolver, inspector: FakeInspector(facts: [:]), now: now)
        importer.batchSize = 2
        let posts = (0..<7).map { post("p\($0)", lat: Double($0)) } + [post("p1", lat: 9)]
        #expect(throws: InputError.self) { try importer.run(PostFile(posts: posts)) }
        #expect(try PostQuery(workspace: workspace).post("p0") == nil)
    }

    /// A photo file read by an earlier import and not modified since is not read again;
    /// one rewritten since is, and its posts take its new facts.
    @Test func aReimportReadsOnlyThePhotoFilesChangedSince() throws {
        let hour = Date(timeIntervalSinceNow: -3600)
        var facts: [String: PhotoFacts] = [:]
        for name in ["a", "b", "c"] {
            let url = folder.appendingPathComponent(name)
            try Data(FakeInspector.signature + Array(name.utf8)).write(to: url)
            // Written an hour ago: not within the file system clock's tick of the read.
            try FileManager.default.setAttributes([.modificationDate: hour], ofItemAtPath: url.path)
            facts[name] = Self.good
        }
        let posts = (0..<30).map {
            post("p\($0)", lat: Double($0), photo: ["a", "b", "c"][$0 % 3])
        }
        let resolver = try #require(PhotoResolver(folder: folder.path))
        func run(_ inspector: CountingInspector) throws -> PostImportSummary {
            var importer = PostImporter(
                workspace: workspace, photos: resolver, inspector: inspector, now: now)
            importer.batchSize = 7
            return try importer.run(PostFile(posts: posts))
        }
        let first = CountingInspector(FakeInspector(facts: facts))
        #expect(try run(first).new == 30)
        #expect(first.count == 3)
        let unchanged = CountingInspector(FakeInspector(facts: facts))
        #expect(try run(unchanged).unchanged == 30)
        #expect(unchanged.count == 0)
        // "c" rewritten with other bytes of the same size, its times set back as they were.
        let c = folder.appendingPathComponent("c")
        try Data(FakeInspector.signature + Array("d".utf8)).write(to: c)
        try FileManager.default.setAttributes([.modificationDate: hour], ofItemAtPath: c.path)
        facts["d"] = PhotoFacts(fingerprint: "", width: 10, height: 10)
        let changed = CountingInspector(FakeInspector(facts: facts))
        let summary = try run(changed)
        #expect(changed.count == 1)
        #expect(summary.updated == 10 && summary.unchanged == 20)
        #expect(try signals("p2")["photo-too-small"] != nil)
        #expect(try signals("p0")["photo-too-small"] == nil)
    }

    /// Posts that share a photo file, by one reference, by two that lead to it or by a
    /// hard link, have it read and inspected once in an import.
    @Test func eachPhotoFileIsReadOncePerImport() throws {
        let inspector = CountingInspector(FakeInspector(facts: ["a": Self.good, "b": Self.good]))
        for name in ["a", "b"] {
            try Data(FakeInspector.signature + Array(name.utf8)).write(
                to: folder.appendingPathComponent(name))
        }
        try FileManager.default.linkItem(
            at: folder.appendingPathComponent("a"), to: folder.appendingPathComponent("a-link"))
        let references = ["a", "./a", "a-link", "b"]
        let posts = (0..<400).map { post("p\($0)", photo: references[$0 % references.count]) }
        let resolver = try #require(PhotoResolver(folder: folder.path))
        let summary = try PostImporter(
            workspace: workspace, photos: resolver, inspector: inspector, now: now
        ).run(PostFile(posts: posts))
        #expect(summary.new == 400)
        #expect(inspector.count == 2)
        #expect(try signals("p3")["duplicate-photo"]?.hasSuffix("and 94 more") == true)
        #expect(try signals("p0")["duplicate-photo"]?.hasSuffix("and 294 more") == true)
    }

    @Test func nearbyPostsWithinTwentyFiveMetresAndSevenDays() throws {
        try importPosts([
            post("first", date: "2023-11-01"),
            post("close", lat: 40.71295, date: "2023-11-03"),  // ~17 m, 2 days later
            post("far", lat: 40.7133, date: "2023-11-03"),  // ~56 m
            post("late", lat: 40.71281, date: "2023-11-20"),  // 19 days later
        ])
        #expect(try signals("close")["nearby-post"]?.contains("first (17 m)") == true)
        #expect(try signals("far")["nearby-post"] == nil)
        #expect(try signals("late")["nearby-post"] == nil)
        #expect(try signals("first")["nearby-post"] == nil)
    }

    @Test func nearbyPostsAcrossTheAntimeridianAndRoundAPole() throws {
        try importPosts([
            post("east", lat: -16.5, lon: 179.99995, date: "2023-11-01"),
            post("west", lat: -16.5, lon: -179.99995, date: "2023-11-02"),  // ~11 m
            post("pole", lat: 89.9999, lon: 0, date: "2023-11-01"),
            post("round", lat: 89.9999, lon: 60, date: "2023-11-02"),  // ~11 m
        ])
        #expect(try signals("west")["nearby-post"]?.hasSuffix(": east (11 m)") == true)
        #expect(try signals("round")["nearby-post"]?.hasSuffix(": pole (11 m)") == true)
    }

    @Test func aMapShowsNeighboursAcrossTheAntimeridianAndRoundAPole() throws {
        try importPosts([
            post("east", lat: 65, lon: 179.99998), post("west", lat: 65, lon: -179.99998),
            post("near-west", lat: 65, lon: -179.9997), post("far", lat: 65, lon: -179.999),
            post("pole", lat: 89.99995, lon: 0), post("round", lat: 89.99995, lon: -120),
        ])
        let query = PostQuery(workspace: workspace)
        func neighbours(_ id: String) throws -> [String] {
            try query.neighbours(of: try #require(try query.post(id))).map(\.label)
        }
        #expect(try neighbours("east") == ["west", "near-west"])
        #expect(try neighbours("pole") == ["round"])
    }

    @Test func textSignalsDateAndArea() throws {
        try workspace.setSetting("review.blocked-words", "casino, free money")
        try workspace.setSetting("review.area", "40,-75,41,-73")
        try importPosts([
            post("link", text: "Visit WWW.example.com"),
            post("blocked", lat: 40.8, text: "Best CASINO in town"),
            post("substring", lat: 40.9, text: "casinos are not the word"),
            post("future", lat: 40.6, date: "2023-12-01"),
            post("away", lat: 10),
        ])
        #expect(try signals("link")["text-link"] == "contains a link: WWW.example.com")
        #expect(try signals("blocked")["text-blocked-word"] == "contains casino")
        #expect(try signals("substring")["text-blocked-word"] == nil)
        #expect(try signals("future")["date-in-future"] == "dated 2023-12-01, after today")
        #expect(try signals("away")["outside-area"] != nil)
        #expect(try signals("link")["outside-area"] == nil)
    }

    @Test func userHistoryOfMostlyRejectedPosts() throws {
        let earlier = (1...4).map {
            post("old\($0)", lat: Double($0), date: "2023-10-0\($0)", user: "spammer")
        }
        try importPosts(earlier + [post("new", date: "2023-11-01", user: "spammer")])
        let moderation = Moderation(workspace: workspace)
        _ = try moderation.decide(
            ["old1", "old2", "old3"].map {
                DecisionRequest(id: $0, expected: .pending, action: .reject(.spam))
            } + [DecisionRequest(id: "old4", expected: .pending, action: .approve)],
            moderator: "m", force: false)
        try workspace.write { try SignalScanner(workspace: workspace, now: now).scan() }
        #expect(
            try signals("new")["user-history"]
                == "3 of 4 earlier decided posts by spammer were rejected")
        #expect(try signals("old1")["user-history"] == nil)
    }

    @Test func reimportIsIdempotentAndChangesReopenDecidedPosts() throws {
        let first = try importPosts([post("p1", text: "cans"), post("p2", lat: 1, text: "x")])
        #expect(first.new == 2)
        let again = try importPosts([post("p1", text: "cans"), post("p2", lat: 1, text: "x")])
        #expect(again.unchanged == 2)
        _ = try Moderation(workspace: workspace).decide(
            [DecisionRequest(id: "p1", expected: .pending, action: .approve)], moderator: "ann",
            force: false)
        let changed = try importPosts([
            post("p1", text: "cans and a casino"), post("p2", lat: 1, text: "x"),
        ])
        #expect(changed.updated == 1)
        #expect(changed.reopened == ["p1"])
        let record = try #require(try PostQuery(workspace: workspace).post("p1"))
        #expect(record.status.rawValue == "pending")
        #expect(record.statusNote?.contains("changed after it was approved (description)") == true)
        let trail = try AuditTrail(workspace: workspace).entries(for: "p1")
        #expect(trail.map(\.moderator) == ["ann", nil])
        #expect(trail.map(\.kind) == [.decision, .reopening])
        #expect(trail.last?.from == .approved)
        #expect(trail.last?.to == .pending)
    }

    @Test func theAuditTrailCannotBeRewritten() throws {
        try importPosts([post("p1")])
        _ = try Moderation(workspace: workspace).decide(
            [DecisionRequest(id: "p1", expected: .pending, action: .approve)], moderator: "ann",
            force: false)
        // The writes under test: no command rewrites the trail, so only SQL can try.
        #expect(throws: (any Error).self) {
            try workspace.database.execute("UPDATE decisions SET moderator = 'eve'")
        }
        #expect(throws: (any Error).self) {
            try workspace.database.execute("DELETE FROM decisions")
        }
        #expect(try AuditTrail(workspace: workspace).entries().count == 1)
    }

    @Test func similarIndexFindsEveryPairWithinSixBits() {
        var generator = SystemRandomNumberGenerator()
        let base = UInt64.random(in: .min ... .max, using: &generator)
        var entries: [(id: String, hash: UInt64, photoHash: String?)] = []
        var expected: Set<String> = []
        for number in 0..<200 {
            var hash = base
            let flips = number % 12
            var positions = Set<Int>()
            while positions.count < flips { positions.insert(Int.random(in: 0..<64)) }
            for bit in positions { hash ^= 1 << UInt64(bit) }
            entries.append(("h\(number)", hash, nil))
            if (hash ^ base).nonzeroBitCount <= 6 { expected.insert("h\(number)") }
        }
        let index = SimilarPhotoIndex(entries)
        let matches = index.matches(of: base, excluding: "", hash: nil)
        #expect(matches.count == expected.count)
        let closest = entries.filter { expected.contains($0.id) }
            .map { (id: $0.id, distance: ($0.hash ^ base).nonzeroBitCount) }
            .sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }.prefix(5)
        #expect(matches.closest.map(\.id) == closest.map(\.id))
        #expect(matches.closest.map(\.distance) == closest.map(\.distance))
    }

    /// 10,000 random hashes and a planted pair at every distance from 0 to 64: the index
    /// finds exactly the pairs a comparison of every pair finds, at the signal's threshold
    /// and at one that needs probing within a band.
    @Test func hammingIndexFindsWhatComparingEveryPairFinds() {
        var generator = SystemRandomNumberGenerator()
        var values = (0..<10_000).map { _ in UInt64.random(in: .min ... .max, using: &generator) }
        for distance in 0...64 {
            let first = UInt64.random(in: .min ... .max, using: &generator)
            var positions = Array(0..<64)
            positions.shuffle(using: &generator)
            var second = first
            for bit in positions.prefix(distance) { second ^= 1 << UInt64(bit) }
            values += [first, second]
        }
        let widest = 10
        var close: [[(number: Int, distance: Int)]] = Array(repeating: [], count: values.count)
        values.withUnsafeBufferPointer { values in
            for first in values.indices {
                for second in values.indices {
                    let distance = (values[first] ^ values[second]).nonzeroBitCount
                    if distance <= widest { close[first].append((second, distance)) }
                }
            }
        }
        for threshold in [SignalRules.similarDistance, widest] {
            let index = HammingIndex(values, within: threshold)
            var differing = 0
            for (number, value) in values.enumerated() {
                var found: [(number: Int, distance: Int)] = []
                index.forEachMatch(of: value) { found.append(($0, $1)) }
                let sortedFound = found.sorted { $0.number < $1.number }
                let expected = close[number].filter { $0.distance <= threshold }
                if sortedFound.map(\.number) != expected.map(\.number)
                    || sortedFound.map(\.distance) != expected.map(\.distance)
                {
                    differing += 1
                }
            }
            #expect(differing == 0, "threshold \(threshold)")
            // Every planted pair within the threshold is found, none beyond it.
            for distance in 0...64 {
                let first = 10_000 + 2 * distance
                var found = false
                index.forEachMatch(of: values[first]) { number, _ in
                    if number == first + 1 { found = true }
                }
                #expect(found == (distance <= threshold), "planted pair at \(distance) bits")
            }
        }
    }

    /// A photo posted many times is one entry of the similar-photo index: each post names
    /// the first five look-alikes from other files and counts the rest.
    @Test func similarIndexCountsLookAlikesSharedByManyPosts() {
        var entries: [(id: String, hash: UInt64, photoHash: String?)] = []
        let hashes: [UInt64] = [0xF0F0, 0xF0F1, 0xF0F3, 0xFFFF_0000_0000]
        for number in 0..<2_000 {
            let file = number % 7
            entries.append(
                (String(format: "p%05d", number), hashes[file % hashes.count], "file\(file)"))
        }
        entries.append(("unknown", 0xF0F0, nil))
        let index = SimilarPhotoIndex(entries)
        for entry in entries where entry.id.hasSuffix("0") || entry.photoHash == nil {
            let expected = entries.filter {
                $0.id != entry.id && (entry.photoHash == nil || $0.photoHash != entry.photoHash)
                    && ($0.hash ^ entry.hash).nonzeroBitCount <= SignalRules.similarDistance
            }.map { (id: $0.id, distance: ($0.hash ^ entry.hash).nonzeroBitCount) }
                .sorted { ($0.distance, $0.id) < ($1.distance, $1.id) }
            let found = index.matches(of: entry.hash, excluding: entry.id, hash: entry.photoHash)
            #expect(found.count == expected.count, "\(entry.id)")
            #expect(found.closest.map(\.id) == expected.prefix(5).map(\.id), "\(entry.id)")
        }
    }
}

@Suite struct ModerationRaceTests {
    @Test func aDecisionWaitingForTheLockSeesTheWinnersDecision() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("w.sqlite").path
        for round in 0..<20 {
            let setup = try Workspace(path: path, create: true)
            try setup.fixture.addPost(
                "p\(round)", user: nil, lat: 1, lon: 2, status: "pending", contentHash: "", at: "")
            let id = "p\(round)"
            // Both moderators saw the post pending; both then write at once on their own
            // connections and threads.
            let outcomes = RaceOutcomes()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                do {
                    let workspace = try Workspace(path: path)
                    let action: ReviewAction = index == 0 ? .approve : .reject(.spam)
                    let outcome = try Moderation(workspace: workspace).decide(
                        [DecisionRequest(id: id, expected: .pending, action: action)],
                        moderator: index == 0 ? "ann" : "bob", force: false)
                    outcomes.append(outcome[0])
                } catch {
                    outcomes.append(nil)
                }
            }
            let results = outcomes.values
            #expect(results.count == 2)
            let recorded = results.filter {
                if case .recorded = $0 { return true }
                return false
            }
            #expect(recorded.count == 1, "round \(round): \(results)")
            let refused = results.first {
                if case .conflict = $0 { return true }
                return false
            }
            guard case .conflict(_, _, _, let last)?? = refused else {
                Issue.record("no refusal in round \(round)")
                continue
            }
            #expect(last?.moderator == "ann" || last?.moderator == "bob")
            #expect(try AuditTrail(workspace: setup).entries(for: id).count == 1)
        }
    }
}

final class RaceOutcomes: @unchecked Sendable {
    private var items: [DecisionOutcome?] = []
    private let lock = NSLock()

    func append(_ outcome: DecisionOutcome?) {
        lock.lock()
        items.append(outcome)
        lock.unlock()
    }

    var values: [DecisionOutcome?] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

@Suite struct PostListingTests {
    @Test func fastJSONListingEscapesLikeJSONString() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-listing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let workspace = try Workspace(
            path: folder.appendingPathComponent("w.sqlite").path, create: true)
        let tricky =
            "quote \" backslash \\ tab \t nl \n cr \r nul-ish \u{1} del \u{7F} "
            + "ls \u{2028} ps \u{2029} é 🗑️ </script>"
        // SQL: the scan's derived signal names are stored as given, so the listing's
        // escaping is tested on exactly these, apart from what the scan would find.
        try workspace.write {
            try workspace.database.execute(
                """
                INSERT INTO posts (id, user, lat, lon, description, date, content_hash,
                    signal_names, imported_at, updated_at)
                VALUES ('a"b', NULL, 40.7128, -74.006, ?, '2022-01-24', '',
                    'text-link,no-exif-gps', '', '')
                """, [.text(tricky)])
        }
        var bytes: [UInt8] = []
        let count = try PostListing(workspace: workspace).writeJSON(status: .pending) {
            bytes += $0
        }
        #expect(count == 1)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(jsonString(tricky)))
        #expect(text.contains("\"lat\": 40.7128, \"lon\": -74.006"))
        let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]]
        #expect(parsed?.first?["description"] as? String == tricky)
        #expect(parsed?.first?["user"] is NSNull)
        #expect(parsed?.first?["signals"] as? [String] == ["text-link", "no-exif-gps"])
        var empty: [UInt8] = []
        try PostListing(workspace: workspace).writeJSON(status: .approved) { empty += $0 }
        #expect(String(decoding: empty, as: UTF8.self) == "[]\n")
    }
}
