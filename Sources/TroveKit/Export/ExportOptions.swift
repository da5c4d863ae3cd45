import Foundation
import TroveStore

/// What `trove export` should write.
public struct ExportOptions: Sendable {
    /// Write a multi-path update of what changed since the layout's last export.
    public var update = false
    /// The output file; nil writes to `standardOutput`.
    public var output: String?
    /// Split the output into multi-path update parts each smaller than this.
    public var maxBytes: Int?
    /// Also write the security-rules fragment for the GeoFire indexes here.
    public var rules: String?
    /// When the export happened, for the workspace's record.
    public var now = Date()
    /// Called before each output file is renamed into place; tests throw from it to
    /// stand for a run killed between two renames.
    var beforeRename: (@Sendable (String) throws -> Void)?
    /// Check and count everything, but write no file and record nothing.
    public var dryRun = false
    /// With `update`: relative to this recorded export (an `export log` id) instead of the
    /// layout's last one.
    public var since: Int64?

    /// Whether this export becomes the base of the next `--update`: only an export written
    /// to a file is; a preview on stdout or a dry run changes nothing.
    public var isRecorded: Bool { output != nil && !dryRun }

    /// How many recorded exports of each layout keep their state for `--since`.
    public static let keptStates = ExportStore.keptStates
    /// The folder `trove images` wrote the renditions to, for the Storage plan written
    /// beside `output` (`OUT.storage.json`, `OUT.storage.sh`); nil writes no plan.
    public var images: String?
    /// List every object the export references in its Storage plan, not only those that
    /// change.
    public var allObjects = false
    /// A publish target whose tree to preview: its bucket in the image URLs, with its
    /// download tokens. Nil for the settings' bucket and the tokens of exports without a
    /// target.
    public var target: PublishTarget?
    /// How many records each kind of problem names; the rest are counted.
    var problemsShown = ExportProblemGroup.shown

    /// Options for a full export to stdout unless changed.
    public init(
        update: Bool = false, output: String? = nil, maxBytes: Int? = nil, rules: String? = nil
    ) {
        self.update = update
        self.output = output
        self.maxBytes = maxBytes
        self.rules = rules
    }

    /// The part files and manifest names for `--max-bytes`: `OUT.part-001.json` … and
    /// `OUT.manifest.json`, where OUT is the output path without `.json`.
    public static func partPaths(output: String) -> (part: (Int) -> String, manifest: String) {
        let base = output.hasSuffix(".json") ? String(output.dropLast(5)) : output
        return ({ base + ".part-" + String(format: "%03d", $0) + ".json" }, base + ".manifest.json")
    }

    /// Part `index` of a `--max-bytes` set, named with its content's hash
    /// (`OUT.part-001-3fa2c9e1.json`): a new set never overwrites a part the current
    /// manifest lists, and an unchanged part keeps its name and file.
    static func partPath(output: String, index: Int, hash: UInt64) -> String {
        let base = output.hasSuffix(".json") ? String(output.dropLast(5)) : output
        let hex = String(hash >> 32, radix: 16)
        return base + ".part-" + String(format: "%03d", index) + "-"
            + String(repeating: "0", count: 8 - hex.count) + hex + ".json"
    }

    /// Removes the parts of earlier sets (`OUT.part-NNN.json`, `OUT.part-NNN-HASH.json`)
    /// that the manifest now in place does not list. Failures are ignored: a stale part
    /// no manifest names misleads no one who follows the manifest.
    static func removeStaleParts(output: String, keeping current: Set<String>) {
        let base = output.hasSuffix(".json") ? String(output.dropLast(5)) : output
        let folder = (base as NSString).deletingLastPathComponent
        let prefix = (base as NSString).lastPathComponent + ".part-"
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder))
            ?? []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".json") {
            let middle = name.dropFirst(prefix.count).dropLast(5)
            let digits = middle.prefix { $0.isASCII && $0.isNumber }
            let rest = middle.dropFirst(digits.count)
            let isPart =
                digits.count >= 3
                && (rest.isEmpty
                    || (rest.count == 9 && rest.first == "-"
                        && rest.dropFirst().allSatisfy { $0.isHexDigit && !$0.isUppercase }))
            if isPart && !current.contains(name) {
                unlink((folder as NSString).appendingPathComponent(name))
            }
        }
    }
}

/// What an export did.
public struct ExportSummary: Equatable, Sendable {
    /// Records exported (an incremental export renders only the changed ones).
    public var records = 0
    /// Database paths written (one per record and path template that has a value).
    public var paths = 0
    /// Paths new or changed since the layout's last recorded export.
    public var changed = 0
    /// Paths the last recorded export had that are gone now.
    public var removed = 0
    /// Files written, in order.
    public var written: [String] = []
    /// Files that already held exactly this content and were left alone.
    public var unchanged: [String] = []
    /// What an existing `--rules` file lacks, as `"rules" > "treasureLocations": add
    /// ".indexOn": ["g"]` lines; empty when it has everything.
    public var rulesToMerge: [String] = []
    /// Exported records whose image is a remote URL, exported as given for every rendition.
    public var remoteImages = 0
    /// What the Storage plan written beside the export holds, if one was written.
    public var storagePlan: StoragePlan.Summary?
    /// Paths recorded in the new state (for a publish's plan).
    var statePaths = 0
    /// Why an `--update` rendered every record rather than only those changed since its
    /// base; nil when it rendered only those, or was no update.
    public var fullRenderReason: String?
    /// Whether only the records changed since the base were rendered.
    public var renderedChangesOnly = false
    /// The fingerprint of the layout and settings the export rendered with.
    var inputs = ""
}
