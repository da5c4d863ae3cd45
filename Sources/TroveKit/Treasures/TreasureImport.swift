import Foundation
import TroveSQLite

/// How many treasures an import added, changed, left alone and skipped.
public struct ImportSummary: Equatable, Sendable {
    public var new = 0
    public var updated = 0
    public var unchanged = 0
    public var skipped = 0

    public init(new: Int = 0, updated: Int = 0, unchanged: Int = 0, skipped: Int = 0) {
        self.new = new
        self.updated = updated
        self.unchanged = unchanged
        self.skipped = skipped
    }

    public var imported: Int { new + updated + unchanged }
}

/// Writes treasures into the workspace, upserting by key.
///
/// Keys are the explicit ones where given, otherwise derived from the name in file
/// order (`hairy-harry`, `hairy-harry-2`, …), so importing the same file again changes
/// nothing. Call inside a transaction; the caller decides whether to commit.
public final class TreasureImporter {
    private let workspace: Workspace
    private let upsert: Statement
    private let countRows: Statement
    private var keyDeriver = KeyDeriver()
    private let rowsBefore: Int
    private var processed = 0
    private var changed = 0
    private var currentFile: String?

    /// Prepares the import. Call inside `Workspace.write`.
    ///
    /// - Throws: `SQLiteError`.
    public init(workspace: Workspace, now: Date = Date()) throws {
        self.workspace = workspace
        let database = workspace.database
        countRows = try database.prepare("SELECT count(*) FROM treasures")
        rowsBefore = Int(try countRows.next()?.int64(0) ?? 0)
        countRows.reset()
        // The WHERE clause makes an identical row a no-op, so `changes` tells us whether
        // anything was written; a moved treasure loses its geohash until `trove geohash`.
        upsert = try database.prepare(
            """
            INSERT INTO treasures
                (key, name, lat, lon, description, image, extra, source_file, source_line,
                 updated_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            ON CONFLICT (key) DO UPDATE SET
                name = excluded.name, lat = excluded.lat, lon = excluded.lon,
                description = excluded.description, image = excluded.image,
                extra = excluded.extra, source_file = excluded.source_file,
                source_line = excluded.source_line,
                updated_at = excluded.updated_at,
                geohash = CASE WHEN treasures.lat = excluded.lat AND treasures.lon = excluded.lon
                               THEN treasures.geohash END
            WHERE (treasures.name, treasures.lat, treasures.lon, treasures.description,
                   treasures.image, treasures.extra)
               IS NOT (excluded.name, excluded.lat, excluded.lon, excluded.description,
                       excluded.image, excluded.extra)
            """)
        try upsert.bind(.text(timestamp(now)), at: 10)
    }

    /// Upserts one treasure, deriving its key when the input has none.
    ///
    /// - Returns: the key it was stored under.
    /// - Throws: `SQLiteError`.
    @discardableResult
    public func add(_ input: TreasureInput, image: String?) throws -> String {
        let key = keyDeriver.key(explicit: input.key, name: input.name)
        try add(PreparedTreasure(key: key, input: input, image: image))
        return key
    }

    /// Upserts one treasure whose key and stored fields are already worked out.
    ///
    /// - Throws: `SQLiteError`.
    public func add(_ treasure: PreparedTreasure) throws {
        let input = treasure.input
        try upsert.bind(text: treasure.key, at: 1)
        try upsert.bind(text: input.name, at: 2)
        try upsert.bind(double: input.latitude, at: 3)
        try upsert.bind(double: input.longitude, at: 4)
        try upsert.bind(text: input.description, at: 5)
        try upsert.bind(text: treasure.image, at: 6)
        try upsert.bind(text: treasure.extra, at: 7)
        if input.location.file != currentFile {
            currentFile = input.location.file
            try upsert.bind(text: currentFile, at: 8)
        }
        try upsert.bind(int: (input.location.line ?? input.location.feature).map(Int64.init), at: 9)
        try upsert.step()
        processed += 1
        changed += workspace.database.changes
    }

    /// The counts so far.
    ///
    /// - Throws: `SQLiteError`.
    public func summary(skipped: Int) throws -> ImportSummary {
        let rowsAfter = Int(try countRows.next()?.int64(0) ?? 0)
        countRows.reset()
        let new = rowsAfter - rowsBefore
        return ImportSummary(
            new: new, updated: changed - new, unchanged: processed - changed, skipped: skipped)
    }
}

/// A treasure ready to store: its key derived, image resolved, extras as JSON.
public struct PreparedTreasure: Sendable {
    public var key: String
    public var input: TreasureInput
    /// The image reference to store (absolute path or URL).
    public var image: String?
    /// The extra columns as a JSON object, nil when there are none.
    public var extra: String?

    public init(key: String, input: TreasureInput, image: String?) {
        self.key = key
        self.input = input
        self.image = image
        self.extra = input.extra.isEmpty ? nil : extraJSON(input.extra)
    }
}

/// Derives readable, unique keys from names, in the order rows arrive.
struct KeyDeriver {
    private var used: Set<String> = []

    mutating func key(explicit: String?, name: String) -> String {
        if let explicit {
            used.insert(explicit)
            return explicit
        }
        let base = slug(name)
        var candidate = base
        var counter = 1
        while used.contains(candidate) {
            counter += 1
            candidate = "\(base)-\(counter)"
        }
        used.insert(candidate)
        return candidate
    }
}

/// `Hairy Harry!` → `hairy-harry`; accents folded, anything else becomes one hyphen.
func slug(_ name: String) -> String {
    let folded = name.applyingTransform(.stripDiacritics, reverse: false) ?? name
    var result = ""
    var pendingHyphen = false
    for scalar in folded.unicodeScalars {
        if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
            if pendingHyphen && !result.isEmpty { result.append("-") }
            pendingHyphen = false
            result.unicodeScalars.append(Unicode.Scalar(UInt8(scalar.value)).lowercasedASCII)
        } else {
            pendingHyphen = true
        }
        if result.utf8.count >= 96 { break }
    }
    return result.isEmpty ? "treasure" : result
}

extension Unicode.Scalar {
    fileprivate var lowercasedASCII: Unicode.Scalar {
        ("A"..."Z").contains(self) ? Unicode.Scalar(value + 32)! : self
    }
}

/// The extra columns as a JSON object, keys in file order.
func extraJSON(_ fields: [ExtraField]) -> String {
    var json = "{"
    for (index, field) in fields.enumerated() {
        if index > 0 { json += "," }
        json += jsonString(field.name)
        json += ":"
        json += jsonString(field.value)
    }
    return json + "}"
}

/// `text` as a JSON string literal.
public func jsonString(_ text: String) -> String {
    var result = "\""
    result.reserveCapacity(text.utf8.count + 2)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _
        where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028
            || scalar.value == 0x2029:
            result += String(format: "\\u%04x", scalar.value)
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

/// A double as the shortest JSON number text that reads back as the same value
/// (`41` rather than `41.0`).
public func jsonNumber(_ value: Double) -> String {
    if value == value.rounded() && abs(value) < 1e15 {
        return String(Int64(value))
    }
    return "\(value)"
}
