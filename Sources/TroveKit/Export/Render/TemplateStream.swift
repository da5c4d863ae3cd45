import Foundation
import TroveSQLite

/// The entries of one path template, in database order.
struct TemplateStream {
    let template: PathTemplate
    private var cursor: RecordCursor
    private var renderer: Renderer
    private let checker: RecordChecker?
    let problems: ExportProblems
    private let noun: String
    private var record = ExportRecord()
    private let compiledPath: CompiledPath
    private let compiledValue: CompiledValue
    /// The columns SQL orders by, or nil when the paths are sorted in memory.
    private let orderColumns: [String]?
    /// Entries sorted in memory, for templates SQL cannot order.
    private var sorted: [(path: [UInt8], value: [UInt8], record: String)]?
    private var sortedIndex = 0

    private(set) var isDone = false
    /// The current entry's path and value, refilled in place entry after entry. Never
    /// replaced (vars only so that rendering writes into them without another reference).
    private(set) var path = RenderBuffer()
    private(set) var value = RenderBuffer()
    private(set) var recordKey = ""
    private(set) var counts = Counts()
    /// Records this stream leaves out entirely (a publish's records that are not ready).
    var skipped: Set<String> = []

    /// What a stream counted of the records it read.
    struct Counts: Sendable {
        var records = 0
        /// Records whose image is a remote URL, exported as given; counted by the stream
        /// that checks renditions, which reads every record's image.
        var remoteImages = 0
    }

    package init(
        template: PathTemplate, database: Database, query: RecordQuery, renderer: Renderer,
        checker: RecordChecker?, problems: ExportProblems, noun: String
    ) throws {
        self.template = template
        self.renderer = renderer
        self.checker = checker
        self.problems = problems
        self.noun = noun
        orderColumns = template.orderColumns
        compiledPath = CompiledPath(template.segments)
        compiledValue = CompiledValue(template.value, renditionNames: renderer.renditionNames)
        cursor = try query.open(on: database, orderColumns: orderColumns ?? [])
    }

    /// Moves to the next entry, or sets `isDone`.
    mutating func advance() throws {
        if orderColumns == nil && sorted == nil {
            var entries: [(path: [UInt8], value: [UInt8], record: String)] = []
            while try step() { entries.append((path.bytes, value.bytes, recordKey)) }
            entries.sort { comparePaths($0.path, $1.path) < 0 }
            sorted = entries
        }
        if let sorted {
            guard sortedIndex < sorted.count else {
                isDone = true
                return
            }
            path.replace(with: sorted[sortedIndex].path)
            value.replace(with: sorted[sortedIndex].value)
            recordKey = sorted[sortedIndex].record
            sortedIndex += 1
            return
        }
        if !(try step()) { isDone = true }
    }

    /// Reads records until one writes this template's path; false at the end.
    private mutating func step() throws -> Bool {
        while try cursor.next(into: &record) {
            if !skipped.isEmpty && skipped.contains(record.key) { continue }
            counts.records += 1
            if record.imageIsRemote && checker?.renditions == true { counts.remoteImages += 1 }
            checker?.check(record, problems: problems)
            path.removeAll()
            switch renderer.renderPath(compiledPath, record: &record, into: &path) {
            case .absent: continue
            case .illegal(let reason):
                problems.add(
                    "keys the Realtime Database does not allow",
                    "\(noun) \(record.key): \(reason) (in \(template.text))")
                continue
            case .written: break
            }
            value.removeAll()
            renderer.problem = nil
            let written = renderer.render(compiledValue, record: &record, into: &value)
            if let problem = renderer.problem {
                problems.add("values that cannot be exported", "\(noun) \(record.key): \(problem)")
                continue
            }
            if !written { continue }
            recordKey = record.key
            return true
        }
        return false
    }
}
