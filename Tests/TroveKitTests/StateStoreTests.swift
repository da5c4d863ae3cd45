import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit
@testable import TroveStore

/// The stores of the exports and publish family: what is written reads back as the same
/// domain values, and each write records what it took in.
@Suite struct StateStoreTests {
    let folder = TemporaryFolder()
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(
            path: folder.url.appendingPathComponent("trove.sqlite").path, create: true)
    }

    var exports: ExportStore { ExportStore(workspace.database) }
    var publishes: PublishStore { PublishStore(workspace.database) }

    private func recorded(_ layout: String, generation: Int64, out: String) -> LoggedExport {
        LoggedExport(
            id: 0, layout: layout, at: "2026-01-02T03:04:05Z", out: out, kind: "update",
            base: nil, generation: generation, records: 3, paths: 0, changed: 2, removed: 1,
            inputs: "layout=1 render=1", objects: 7)
    }

    @Test func recordedExportReadsBackAsLogEntry() throws {
        try workspace.write { try exports.record(recorded("game", generation: 1, out: "/a.json")) }
        let entries = try exports.logEntries()
        #expect(
            entries == [
                ExportLogEntry(
                    id: 1, layout: "game", at: "2026-01-02T03:04:05Z", out: "/a.json",
                    kind: "update", base: nil, records: 3, paths: 0, changed: 2, removed: 1,
                    isKept: true)
            ])
        let export = try #require(try exports.lastExport(writtenTo: "/a.json"))
        #expect(export.generation == 1)
        #expect(export.inputs == "layout=1 render=1")
        #expect(export.objects == 7)
        // It took in the clock's value as it was recorded.
        #expect(export.changeSeq == (try ChangeLog.clock(in: workspace.database)))
        #expect(try exports.export(id: export.id) == export)
        #expect(try exports.lastExport(layout: "game", generation: 1) == export)
        #expect(try exports.lastExportID(layout: "game", generation: 1) == export.id)
        #expect(try exports.latestGeneration(layout: "game") == 1)
        #expect(try exports.latestGeneration(layout: "other") == nil)
    }

    @Test func logEntriesFilterByLayoutAndCountLaterExports() throws {
        try workspace.write {
            try exports.record(recorded("game", generation: 1, out: "/a.json"))
            try exports.record(recorded("map", generation: 1, out: "/b.json"))
            try exports.record(recorded("game", generation: 2, out: "/a.json"))
        }
        #expect(try exports.logEntries(layout: "game").map(\.id) == [1, 3])
        #expect(try exports.logEntries().map(\.layout) == ["game", "map", "game"])
        #expect(try exports.exportCount(layout: "game", after: 1) == 1)
        #expect(try exports.lastExport(writtenTo: "/a.json")?.id == 3)
    }

    @Test func stateBlocksRoundTripAndOldStatesAreDropped() throws {
        var block = FrontCodedBlock(entriesPerBlock: 4)
        for path in ["a/1", "a/2"] {
            Array(path.utf8).withUnsafeBufferPointer { block.begin(path: $0) }
            block.write([1, 2, 3, 4, 5, 6, 7, 8])
        }
        try workspace.write {
            let write = try exports.blockWriter(.paths, layout: "game", generation: 1)
            try write(0, block.bytes)
            var first = recorded("game", generation: 1, out: "/a.json")
            first.paths = 2
            try exports.record(first)
        }
        #expect(try exports.isStateKept(layout: "game", generation: 1))
        #expect(try exports.logEntries().first?.isKept == true)
        let index = try exports.index(.paths, layout: "game", generation: 1)
        #expect(index.map(\.first) == [Array("a/1".utf8)])
        #expect(try exports.block(index[0].block) == block.bytes)
        let next = try exports.blocks(.paths, layout: "game", generation: 1)
        #expect(try next() == block.bytes)
        #expect(try next() == nil)
        #expect(try exports.blocks(.paths, layout: "game", generation: nil)() == nil)

        // Once more exports than are kept follow, the state and its block go.
        try workspace.write {
            for generation in 2...Int64(ExportOptions.keptStates + 1) {
                try exports.record(recorded("game", generation: generation, out: "/a.json"))
            }
        }
        #expect(try !exports.isStateKept(layout: "game", generation: 1))
        #expect(try exports.block(index[0].block) == nil)
        #expect(try exports.logEntries().first?.isKept == false)
    }

    @Test func objectsOfOneGenerationAreSharedByTheNext() throws {
        var encoded: [UInt8] = []
        var encoder = PlannedObjectEncoder { encoded = $0 }
        try Array("treasures/k/full.jpg".utf8).withUnsafeBufferPointer { path in
            try Array("token-1".utf8).withUnsafeBufferPointer {
                try encoder.append(path: path, token: $0)
            }
        }
        try encoder.finish()
        try workspace.write {
            try exports.blockWriter(.objects, layout: "game", generation: 1)(0, encoded)
            try exports.shareObjects(layout: "game", from: 1, to: 2)
        }
        #expect(try exports.latestObjectGeneration(layout: "game") == 2)
        #expect(
            try exports.latestObjectGenerations(besides: "map").map { [$0.layout: $0.generation] }
                == [["game": 2]])
        let objects = try PlannedObjectReader.all(database: workspace.database, layout: "game")
        #expect(objects.map(\.path) == ["treasures/k/full.jpg"])
        #expect(objects.map(\.token) == ["token-1"])
        #expect(
            try exports.index(.objects, layout: "game", generation: 1).map(\.block)
                == exports.index(.objects, layout: "game", generation: 2).map(\.block))
    }

    @Test func targetRoundTripsAndTheDefaultMovesOnlyWhenAsked() throws {
        let first = PublishTarget(
            name: "live", databaseURL: "https://live.firebaseio.com", bucket: "live-bucket",
            layout: "flatirongo", isDefault: true)
        let second = PublishTarget(
            name: "staging", databaseURL: "https://staging.firebaseio.com", bucket: "live-bucket",
            layout: "/layouts/game.json")
        try workspace.write {
            try publishes.insert(first, addedAt: "2026-01-01T00:00:00Z")
            try publishes.insert(second, addedAt: "2026-01-02T00:00:00Z")
        }
        #expect(try publishes.targets() == [first, second])
        #expect(try publishes.hasTarget("staging"))
        #expect(try !publishes.hasTarget("gone"))
        #expect(try publishes.targetCount() == 2)
        #expect(try publishes.targets(inBucket: "live-bucket", besides: "live") == ["staging"])
        #expect(try publishes.sharesBucket("live-bucket", besides: "live"))
        #expect(try !publishes.sharesBucket("other", besides: "live"))
        #expect(
            try publishes.publishedBase(target: "live")
                == PublishedBase(seq: nil, inputs: nil, paths: nil, objects: nil))
        #expect(try publishes.publishedBase(target: "gone") == nil)

        try workspace.write {
            try publishes.setPublishedAt("2026-01-03T00:00:00Z", target: "staging")
            try publishes.deleteTarget("live")
        }
        var published = second
        published.publishedAt = "2026-01-03T00:00:00Z"
        #expect(try publishes.targets() == [published])
        published.bucket = "other-bucket"
        published.isDefault = true
        try workspace.write { try publishes.update(published) }
        #expect(try publishes.targets() == [published])
    }

    @Test func aPlansLargeBodiesAreKeptCompressedAndComeBackWhole() throws {
        let large = CompressedBlobTests.body
        try workspace.write {
            try publishes.insert(
                PublishTarget(
                    name: "live", databaseURL: "https://live.firebaseio.com", bucket: "b",
                    layout: "flatirongo", isDefault: true), addedAt: "2026-01-01T00:00:00Z")
            try publishes.beginPlan(
                target: "live", plannedAt: "2026-01-02T00:00:00Z", images: "/images")
            try publishes.stepWriter(target: "live")(
                PublishStepKind.update.base, .update, nil, nil, large)
        }
        #expect(try publishes.stepBody(target: "live", seq: PublishStepKind.update.base) == large)
        var read: [[UInt8]?] = []
        try publishes.forEachPendingStep(target: "live") { read.append($0.body) }
        #expect(read == [large])
        let stored = try workspace.database.scalar("SELECT length(body) FROM publish_steps")
        #expect((stored?.int64 ?? Int64.max) * 3 < Int64(large.count))
    }

    @Test func planProgressRoundTripsAndCompletes() throws {
        let target = PublishTarget(
            name: "live", databaseURL: "https://live.firebaseio.com", bucket: "b",
            layout: "flatirongo", isDefault: true)
        try workspace.write {
            try publishes.insert(target, addedAt: "2026-01-01T00:00:00Z")
            try publishes.beginPlan(
                target: "live", plannedAt: "2026-01-02T00:00:00Z", images: "/images")
            let add = try publishes.stepWriter(target: "live")
            try add(PublishStepKind.upload.base, .upload, "a.jpg", "t1", nil)
            try add(PublishStepKind.upload.base + 1, .upload, "b.jpg", "t2", nil)
            try add(PublishStepKind.update.base, .update, nil, nil, Array("{}".utf8))
            try add(PublishStepKind.delete.base, .delete, "old.jpg", nil, nil)
            var summary = PublishPlanSummary()
            summary.paths = 5
            summary.objects = 2
            summary.changed = 3
            summary.removed = 1
            try publishes.completePlan(
                target: "live", summary: summary, takesInClock: true, inputs: "layout=1")
        }
        #expect(try publishes.planImages(target: "live") == "/images")
        #expect(try publishes.uploadNames(target: "live") == ["a.jpg", "b.jpg"])
        let plan = try #require(try publishes.plan(target: "live"))
        let counts: [Int] = [plan.paths, plan.objects, plan.changed, plan.removed]
        #expect(counts == [5, 2, 3, 1])
        #expect(
            try publishes.pendingStepCounts(target: "live")
                == [.upload: 2, .update: 1, .delete: 1])
        let update = try #require(try publishes.pendingSteps(target: "live", kind: .update).first)
        #expect(try publishes.stepBody(target: "live", seq: update.seq) == Array("{}".utf8))
        let uploads = try publishes.pendingSteps(
            target: "live", kind: .upload, after: PublishStepKind.upload.base - 1,
            before: PublishStepKind.token.base, limit: 1)
        #expect(uploads.map(\.name) == ["a.jpg"])
        #expect(uploads.map(\.token) == ["t1"])

        // Progress: a step marked done is not pending any more, on a later read too.
        try workspace.write { try publishes.markDone(target: "live", seq: uploads[0].seq) }
        #expect(try publishes.pendingStepCount(target: "live") == 3)
        var pending: [String] = []
        try publishes.forEachPendingStep(target: "live") { step in
            pending.append(step.kind == .update ? "update" : step.name)
        }
        #expect(pending == ["b.jpg", "update", "old.jpg"])

        // Completing it: the target takes in the plan's clock value and counts, and the log
        // records what its steps did.
        try workspace.write {
            let entry = try #require(
                try publishes.completedPlanEntry(target: "live", at: "2026-01-04T00:00:00Z"))
            try publishes.promotePlanned(target: "live")
            try publishes.appendLog(entry)
            try publishes.deletePlan(target: "live")
        }
        #expect(try publishes.plan(target: "live") == nil)
        #expect(try publishes.pendingStepCount(target: "live") == 0)
        #expect(
            try publishes.publishedBase(target: "live")
                == PublishedBase(
                    seq: try ChangeLog.clock(in: workspace.database), inputs: "layout=1",
                    paths: 5, objects: 2))
        #expect(
            try publishes.log()
                == [
                    PublishLogEntry(
                        target: "live", at: "2026-01-04T00:00:00Z", kind: .publish, paths: 5,
                        changed: 3, removed: 1, uploaded: 2, retokened: 0, deleted: 1)
                ])
    }

    @Test func exportStateBecomesTargetState() throws {
        var block = FrontCodedBlock(entriesPerBlock: 4)
        Array("a/1".utf8).withUnsafeBufferPointer { block.begin(path: $0) }
        block.write([1, 2, 3, 4, 5, 6, 7, 8])
        let target = PublishTarget(
            name: "live", databaseURL: "https://live.firebaseio.com", bucket: "b",
            layout: "game", isDefault: true)
        try workspace.write {
            try exports.blockWriter(.paths, layout: "game", generation: 1)(0, block.bytes)
            var export = recorded("game", generation: 1, out: "/a.json")
            export.paths = 1
            try exports.record(export)
            try publishes.insert(target, addedAt: "2026-01-01T00:00:00Z")
            try publishes.planExportState(target: "live", layout: "game", generation: 1)
            try publishes.promotePlanned(target: "live")
            try publishes.adoptExport(1, target: "live")
        }
        #expect(
            try publishes.index(.paths, target: "live", planned: false).map(\.block)
                == exports.index(.paths, layout: "game", generation: 1).map(\.block))
        #expect(try publishes.index(.paths, target: "live", planned: true).isEmpty)
        let next = try publishes.blocks(.paths, target: "live", planned: false)
        #expect(try next() == block.bytes)
        #expect(
            try publishes.publishedBase(target: "live")
                == PublishedBase(
                    seq: try exports.export(id: 1)?.changeSeq, inputs: "layout=1 render=1",
                    paths: 1, objects: 7))
    }
}
