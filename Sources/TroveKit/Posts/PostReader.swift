import Foundation
import TroveBase
import TroveImaging
import TroveStore

/// What a posts file held: its posts, and what was dropped to keep it private.
public struct PostFile: Sendable {
    /// The posts, in file order (JSON trees: sorted by id).
    public var posts: [PostInput] = []
    /// Password fields seen and not stored.
    public var droppedPasswords = 0
    /// E-mail addresses seen and not stored (fields, user references, inside text).
    public var droppedEmails = 0
    /// Display names (`userName`, `displayName`, `name`…) seen and not stored.
    public var droppedNames = 0
    /// Records that could not become posts, read with `skipInvalid`.
    public var rejects: [PostReject] = []
}

/// A record of a posts file that could not become a post, and why.
public struct PostReject: Equatable, Sendable {
    /// The file, as messages name it.
    public var file: String
    /// The line, for CSV and newline-delimited JSON.
    public var line: Int?
    /// The record's JSON path in an export tree (`Locations/p1`).
    public var record: String?
    /// The post id, when it could be read.
    public var id: String?
    /// Where exactly, as messages put it (`posts.csv:3`, `export.json: Locations/p1/Date`).
    public var location: String
    /// What is wrong.
    public var reason: String
    /// A CSV record's fields under the header's names.
    public var fields: [String: String] = [:]
    /// A JSON record's text.
    public var json: String?

    /// The message in the house's `where: what` form.
    public var description: String { "\(location): \(reason)" }
}

/// The columns and fields of a post, matched case-insensitively with aliases.
enum PostField: CaseIterable {
    case id, user, latitude, longitude, description, date, photo

    /// Normalised names (see `normalizedFieldName`) that mean this field.
    package var names: [String] {
        switch self {
        case .id: return ["id", "key", "postid", "locationid"]
        // Ids only: display names are private fields (`Privacy.isDisplayNameField`).
        case .user: return Self.userKeyNames
        case .latitude: return FieldNames.latitude
        case .longitude: return FieldNames.longitude
        case .description:
            return FieldNames.description + [
                "locationdescription", "desc", "text", "comment", "caption",
            ]
        case .date:
            return ["date", "datetime", "timestamp", "time", "createdat", "created", "datetaken"]
        case .photo:
            return [
                "photo", "photourl", "photopath", "image", "imageurl", "imagepath", "picture",
                "pictureurl", "url", "downloadurl",
            ]
        }
    }

    static func matching(_ name: String) -> PostField? {
        byName[normalizedFieldName(name)]
    }

    /// Every name of every field, looked up once per field of every record.
    private static let byName: [String: PostField] = {
        var table: [String: PostField] = [:]
        for field in allCases {
            for name in field.names where table[name] == nil { table[name] = field }
        }
        return table
    }()

    /// Fields that hold the user's id, the most specific first: of several in one record
    /// the first here wins, whatever their order in the file.
    static let userKeyNames = [
        "uid", "userid", "useruid", "userkey", "ownerid", "owneruid", "authorid", "authoruid",
        "createdby", "user", "owner",
    ]
}

/// Reads posts from a Realtime Database export, CSV or newline-delimited JSON.
///
/// Every format is streamed: the file is read a chunk at a time and a record at a time
/// (`JSONStream`, `CSVReader`), never held whole, and no record may be longer than
/// `RecordLimit` (10 MB); a file that starts with binary data is refused from its first
/// bytes. What is kept is the posts themselves (an export's records, merged by id, until
/// the end of the tree).
///
/// Nothing is half-read: any record that cannot become a post stops the read with an
/// `InputError` naming the line or JSON path, so the workspace is never touched.
public enum PostReader {
    /// Reads the file at `path`; `name` is how messages refer to it.
    ///
    /// The format follows the extension: `.csv`/`.tsv` CSV, `.ndjson`/`.jsonl`
    /// newline-delimited JSON, anything else JSON (falling back to newline-delimited
    /// when the file is a series of objects). The file must be a regular file
    /// (`InputFile`), and text.
    /// - Throws: `InputError`.
    ///
    /// - Parameter skipInvalid: a record that cannot become a post is set aside in
    ///   `rejects` instead of stopping the read; a file that cannot be read at all still
    ///   throws.
    public static func read(path: String, name: String, skipInvalid: Bool = false)
        throws(InputError) -> PostFile
    {
        let descriptor: Int32
        do throws(InputFile.Failure) {
            descriptor = try InputFile.open(path)
        } catch {
            throw InputError(name, "cannot read the file: \(error.reason)")
        }
        let file = StreamedFile(descriptor: descriptor, closes: true)
        guard let head = InputFile.head(descriptor) else {
            throw InputError(name, "cannot read the file: \(CSVReader.systemMessage())")
        }
        try refuseBinary(head, name: name)
        let ext = (path as NSString).pathExtension.lowercased()
        switch ext {
        case "csv", "tsv", "txt":
            let reader: CSVReader
            do throws(CSVError) {
                reader = try CSVReader(
                    fileDescriptor: descriptor, closesDescriptor: false, displayPath: name,
                    encoding: .utf8, delimiter: ext == "tsv" ? UInt8(ascii: "\t") : nil)
            } catch {
                throw inputError(error, name: name)
            }
            return try readCSV(reader, name: name, skipInvalid: skipInvalid)
        default:
            // Each reading starts at the beginning: a JSON file turns out to be
            // newline-delimited only once its first value is read.
            let open = { () -> JSONStream in
                lseek(descriptor, 0, SEEK_SET)
                return JSONStream { file.read(into: $0, count: $1) }
            }
            if ext == "ndjson" || ext == "jsonl" {
                return try readLines(open(), name: name, skipInvalid: skipInvalid)
            }
            return try readJSON(open, name: name, skipInvalid: skipInvalid)
        }
    }

    /// Refuses a file whose first bytes show it is not text: a known format (a
    /// spreadsheet, an archive, an image) by name, gzip, and binary data (two NULs or more,
    /// as for treasure files), UTF-16 with its byte order mark excepted.
    static func refuseBinary(_ head: [UInt8], name: String) throws(InputError) {
        if let signature = FileSignature(sniffing: head) {
            throw InputError(
                name, "this is \(signature.described), not a posts export, CSV or NDJSON file",
                hint: signature.advice)
        }
        if GzipInput.isGzip(head) {
            throw InputError(
                name, "this is gzip data, not a posts export, CSV or NDJSON file",
                hint: "unpack it with gunzip first")
        }
        let isUTF16 = head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF])
        if !isUTF16, TreasureReader.isBinary(head) {
            throw InputError(
                name, "this is a binary file, not JSON or CSV text",
                hint: "export the posts as JSON, CSV or newline-delimited JSON")
        }
    }

    /// A CSV reader's error in the words of a posts file.
    private static func inputError(_ error: CSVError, name: String) -> InputError {
        // The treasure reader's advice names --encoding, which posts do not take.
        let hint =
            error.reason == .invalidEncoding
            ? "save the file as UTF-8 (or UTF-16 with a byte order mark)" : error.hint
        return InputError(error.line.map { "\(name):\($0)" } ?? name, error.message, hint: hint)
    }

    // MARK: - JSON trees

    /// Reads a Realtime Database export in memory (see ``readJSON(_:name:skipInvalid:)``
    /// for streams).
    ///
    /// - Throws: `InputError`.
    public static func readJSON(_ data: Data, name: String, skipInvalid: Bool = false)
        throws(InputError) -> PostFile
    {
        let bytes = Array(data)
        try refuseBinary(Array(bytes.prefix(512)), name: name)
        return try readJSON({ JSONStream(bytes: bytes) }, name: name, skipInvalid: skipInvalid)
    }

    /// Reads a Realtime Database export: `Users/{user}/TaggedLocations/{id}` and/or
    /// `Locations/{id}`; a tagged location that is only `true` links its user to the
    /// `Locations` record of the same id. A file of several JSON values is read as
    /// newline-delimited JSON, from a new stream `open` gives.
    ///
    /// - Throws: `InputError`.
    static func readJSON(
        _ open: () -> JSONStream, name: String, skipInvalid: Bool
    ) throws(InputError) -> PostFile {
        var tree = PostExportTree(stream: open(), name: name, skipInvalid: skipInvalid)
        switch try tree.read() {
        case .tree:
            return try tree.posts()
        case .several(let line):
            // More than one value: newline-delimited posts, or text after the export.
            if let lines = try? readLines(open(), name: name, skipInvalid: skipInvalid),
                lines.posts.count + lines.rejects.count > 1
            {
                return lines
            }
            throw InputError(
                "\(name):\(line):1", "not valid JSON: more than one JSON value")
        }
    }

    /// Reads an export already parsed (a page of the live database under its wrapper):
    /// `root` holds `Users` and/or `Locations`, read as the same tree in a file is, walked
    /// as it is rather than written out and streamed again.
    ///
    /// - Throws: `InputError`.
    static func readTree(_ root: JSONValue, name: String, skipInvalid: Bool = false)
        throws(InputError) -> PostFile
    {
        guard case .object = root else {
            throw InputError(name, "expected a JSON object at the top of the export")
        }
        let tree = PostExportTree(name: name, skipInvalid: skipInvalid)
        try tree.read(tree: root)
        return try tree.posts()
    }

    /// An object's members by name; a repeated name keeps the last, as JavaScript's
    /// `JSON.parse` (and the Realtime Database) do.
    static func fields(_ node: JSONValue?) -> [String: JSONValue] {
        guard case .object(let members)? = node else { return [:] }
        var result: [String: JSONValue] = [:]
        for member in members { result[member.name] = member.value }
        return result
    }

    /// A record's JSON text without its password, e-mail and display-name fields (at any
    /// depth) and with e-mail addresses in text removed: what a rejects file may hold.
    static func shareable(_ value: JSONValue) -> String {
        func clean(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let members):
                return .object(
                    members.filter {
                        !Privacy.isPasswordField($0.name) && !Privacy.isEmailField($0.name)
                            && !Privacy.isDisplayNameField($0.name)
                    }.map { JSONMember(name: $0.name, value: clean($0.value)) })
            case .array(let items): return .array(items.map(clean))
            case .string(let text): return .string(Privacy.redactEmails(text).text)
            default: return value
            }
        }
        return clean(value).jsonText
    }

    /// A line of newline-delimited JSON as `shareable` text, or nothing when it is not
    /// JSON at all (it could hold anything).
    private static func shareableLine(_ bytes: [UInt8]) -> String? {
        var parser = JSONParser(bytes)
        guard let value = try? parser.parseValue(), parser.atEnd() else { return nil }
        return shareable(value)
    }

    // MARK: - Newline-delimited JSON

    /// Reads newline-delimited JSON in memory (see ``readLines(_:name:skipInvalid:)`` for
    /// streams).
    ///
    /// - Throws: `InputError` naming `FILE:LINE`.
    public static func readLines(_ bytes: [UInt8], name: String, skipInvalid: Bool = false)
        throws(InputError) -> PostFile
    {
        try refuseBinary(Array(bytes.prefix(512)), name: name)
        return try readLines(JSONStream(bytes: bytes), name: name, skipInvalid: skipInvalid)
    }

    /// Reads one JSON object per line (blank lines skipped), a line at a time.
    ///
    /// - Throws: `InputError` naming `FILE:LINE`.
    static func readLines(_ stream: JSONStream, name: String, skipInvalid: Bool)
        throws(InputError) -> PostFile
    {
        stream.limit = RecordLimit.bytes
        var file = PostFile()
        var lineNumber = 0
        while stream.peek() != nil {
            lineNumber += 1
            let line = stream.take(through: 0x0A)
            if stream.overLimit {
                throw InputError(
                    "\(name):\(lineNumber)",
                    "the line is longer than \(RecordLimit.words), the most trove reads as one post"
                )
            }
            var text = line[...]
            if text.last == 0x0D { text = text.dropLast() }
            if lineNumber == 1, text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let location = "\(name):\(lineNumber)"
            var id: String?
            do throws(InputError) {
                var parser = JSONParser(Array(text))
                guard let object = try? parser.parseValue(), case .object = object,
                    parser.atEnd()
                else {
                    throw InputError(location, "expected one JSON object on this line")
                }
                let fields = fields(object).sorted { $0.key < $1.key }
                guard let idField = fields.first(where: { PostField.matching($0.key) == .id })
                else {
                    throw InputError(location, "missing field 'id'")
                }
                id = scalarText(idField.value)
                file.posts.append(
                    try post(
                        id: id ?? "", fields: fields.map { ($0.key, $0.value) }, source: location,
                        file: &file
                    ) { _ in location })
            } catch {
                guard skipInvalid else { throw error }
                file.rejects.append(
                    PostReject(
                        file: name, line: lineNumber, id: id, location: error.location,
                        reason: error.message, json: shareableLine(Array(text))))
            }
        }
        if stream.failed { throw InputError(name, "cannot read the file: the read failed") }
        return file
    }

    // MARK: - CSV

    /// Reads CSV in memory (see ``readCSV(_:name:skipInvalid:)`` for files).
    ///
    /// - Throws: `InputError` naming `FILE:LINE`.
    public static func readCSV(_ bytes: [UInt8], name: String, skipInvalid: Bool = false)
        throws(InputError) -> PostFile
    {
        try refuseBinary(Array(bytes.prefix(512)), name: name)
        return try readCSV(
            CSVReader(bytes: bytes, displayPath: name), name: name, skipInvalid: skipInvalid)
    }

    /// Reads CSV with a header row, a record at a time, with the reader treasures use: the
    /// delimiter (`,`, `;` or tab) found in the header, quotes and line breaks in fields,
    /// a BOM, UTF-16 with a BOM; blank lines hold no post.
    ///
    /// - Throws: `InputError` naming `FILE:LINE`.
    static func readCSV(_ csv: CSVReader, name: String, skipInvalid: Bool)
        throws(InputError) -> PostFile
    {
        var reader = csv
        func next() throws(InputError) -> CSVRecord? {
            do throws(CSVError) {
                return try reader.next()
            } catch {
                throw inputError(error, name: name)
            }
        }
        guard let header = try next() else { throw InputError(name, "the file is empty") }
        let (columns, sensitive, names) = csvColumns(header.fields)
        for required in [PostField.id, .latitude, .longitude] where columns[required] == nil {
            throw InputError(
                "\(name):\(header.line)", "missing column '\(required.names[0])'",
                hint: "the header needs id,user,lat,lon,description,date,photo")
        }
        var file = PostFile()
        while let record = try next() {
            if record.fields.count == 1 && record.fields[0].isEmpty { continue }
            let location = "\(name):\(record.line)"
            let id = columns[.id].flatMap { $0 < record.fields.count ? record.fields[$0] : nil }
            do throws(InputError) {
                guard record.fields.count == header.fields.count else {
                    throw InputError(
                        location,
                        "expected \(header.fields.count) fields, found \(record.fields.count)")
                }
                for column in sensitive where !record.fields[column.index].isEmpty {
                    if column.password {
                        file.droppedPasswords += 1
                    } else {
                        file.droppedEmails += 1
                    }
                }
                for index in names where !record.fields[index].isEmpty { file.droppedNames += 1 }
                var fields: [(String, JSONValue)] = []
                for (field, index) in columns where !record.fields[index].isEmpty {
                    fields.append((field.names[0], .string(record.fields[index])))
                }
                file.posts.append(
                    try post(id: id ?? "", fields: fields, source: location, file: &file) { _ in
                        location
                    })
            } catch {
                guard skipInvalid else { throw error }
                let original = rejectedFields(record.fields, header: header.fields)
                file.rejects.append(
                    PostReject(
                        file: name, line: record.line, id: id, location: error.location,
                        reason: error.message, fields: original))
            }
        }
        return file
    }

    /// Where a posts CSV's header puts each field (of several user-id columns the most
    /// specific), and its private columns: passwords and emails, and display names.
    private static func csvColumns(_ header: [String]) -> (
        columns: [PostField: Int], sensitive: [(index: Int, password: Bool)], names: [Int]
    ) {
        var columns: [PostField: Int] = [:]
        var sensitive: [(index: Int, password: Bool)] = []
        var names: [Int] = []
        var user: (index: Int, rank: Int)?
        for (index, column) in header.enumerated() {
            // Of several user-id columns the most specific wins, wherever it stands.
            if let rank = PostField.userKeyNames.firstIndex(of: normalizedFieldName(column)),
                rank < (user?.rank ?? .max)
            {
                user = (index, rank)
            }
        }
        for (index, column) in header.enumerated() {
            if let field = PostField.matching(column), field == .user {
                if index == user?.index { columns[.user] = index }
            } else if let field = PostField.matching(column), columns[field] == nil {
                columns[field] = index
            } else if Privacy.isPasswordField(column) {
                sensitive.append((index, true))
            } else if Privacy.isEmailField(column) {
                sensitive.append((index, false))
            } else if Privacy.isDisplayNameField(column) {
                names.append(index)
            }
        }
        return (columns, sensitive, names)
    }

    /// The fields of a rejected CSV record by column, without the private columns and with
    /// emails redacted.
    private static func rejectedFields(_ fields: [String], header: [String]) -> [String: String] {
        var original: [String: String] = [:]
        for (index, value) in fields.enumerated() {
            let column =
                index < header.count ? header[index] : "column_\(index + 1)"
            // Private columns are not copied into the rejects file either.
            if Privacy.isPasswordField(column) || Privacy.isEmailField(column)
                || Privacy.isDisplayNameField(column)
            {
                continue
            }
            original[column] = Privacy.redactEmails(value).text
        }
        return original
    }

    // MARK: - Records

    /// Builds a post from its fields; `where` names a field's location for messages.
    static func post(
        id: String, fields: [(String, JSONValue)], source: String, file: inout PostFile,
        where locate: (String) -> String
    ) throws(InputError) -> PostInput {
        if let problem = FirebaseKey.problem(id) {
            throw InputError(locate("id"), "post id '\(id)' \(problem)")
        }
        var latitude: Double?
        var longitude: Double?
        var nullField: [PostField: String] = [:]
        var userRank = Int.max
        var input = PostInput(id: id, latitude: 0, longitude: 0, source: source)
        for (name, value) in fields {
            guard let field = PostField.matching(name) else {
                if Privacy.isPasswordField(name) {
                    file.droppedPasswords += 1
                } else if Privacy.isEmailField(name) {
                    file.droppedEmails += 1
                } else if Privacy.isDisplayNameField(name) {
                    if value != .null { file.droppedNames += 1 }
                } else if normalizedFieldName(name) == "l", case .array(let pair) = value,
                    pair.count == 2
                {
                    // GeoFire's `l: [lat, lon]`.
                    latitude = latitude ?? number(pair[0])
                    longitude = longitude ?? number(pair[1])
                }
                continue
            }
            switch field {
            case .id: break
            case .user:
                guard let text = scalarText(value), !text.isEmpty,
                    let rank = PostField.userKeyNames.firstIndex(of: normalizedFieldName(name)),
                    rank < userRank
                else { continue }
                let (user, wasEmail) = Privacy.pseudonymizeUser(text)
                if wasEmail { file.droppedEmails += 1 }
                input.user = user
                userRank = rank
            case .latitude, .longitude:
                if value == .null {
                    nullField[field] = name
                    continue
                }
                guard let parsed = number(value) else {
                    throw InputError(
                        locate(name),
                        "\(field == .latitude ? "latitude" : "longitude") "
                            + "'\(Excerpt.cut(scalarText(value) ?? "?"))' is not a number")
                }
                if field == .latitude { latitude = parsed } else { longitude = parsed }
            case .description:
                guard let text = scalarText(value) else { continue }
                let (redacted, count) = Privacy.redactEmails(text)
                file.droppedEmails += count
                input.description = redacted
            case .date:
                if let date = try date(value, at: locate(name)) { input.date = date }
            case .photo:
                if let text = scalarText(value), !text.isEmpty { input.photo = text }
            }
        }
        guard let latitude, let longitude else {
            throw noPosition(latitude == nil ? .latitude : .longitude, nullField, where: locate)
        }
        guard Coordinate.isValid(latitude: latitude) else {
            throw InputError(locate("lat"), CoordinateError(.latitude, latitude).description)
        }
        guard Coordinate.isValid(longitude: longitude) else {
            throw InputError(locate("lon"), CoordinateError(.longitude, longitude).description)
        }
        input.latitude = latitude
        input.longitude = longitude
        return input
    }

    /// A post's date as stored (normalized), from a Unix time or a date's text; nil for
    /// none. `location` names the field for messages.
    private static func date(_ value: JSONValue, at location: @autoclosure () -> String)
        throws(InputError) -> String?
    {
        if case .number(let text) = value {
            guard let number = Double(text), let date = PostDate.epoch(number) else {
                throw InputError(
                    location(), "date \(text) is not a valid time",
                    hint: "a Unix time in seconds or milliseconds after 1970")
            }
            return date
        } else if let text = scalarText(value), !text.isEmpty {
            guard let date = PostDate.normalize(text) else {
                throw InputError(
                    location(), "date '\(text)' is not a date",
                    hint: "write it as ISO 8601 (2022-01-24 or 2022-01-24T10:15:00Z), "
                        + "like 24Jan 2022, or as a Unix time")
            }
            return date
        } else if case .array = value {
            throw InputError(location(), "date is a list, not a date")
        } else if case .object = value {
            throw InputError(location(), "date is an object, not a date")
        }
        return nil
    }

    /// The error for a post without `field`: null where `nullField` names it, else absent.
    private static func noPosition(
        _ field: PostField, _ nullField: [PostField: String], where locate: (String) -> String
    ) -> InputError {
        let word = field == .latitude ? "latitude" : "longitude"
        if let name = nullField[field] {
            return InputError(
                locate(name), "\(word) is null: the post has no position",
                hint: "a post needs a latitude and a longitude")
        }
        return InputError(
            locate(field == .latitude ? "lat" : "lon"), "no \(word): the post has no position",
            hint: "a post needs \(field == .latitude ? "lat or latitude" : "lon or longitude")"
                + " (or GeoFire's l: [lat, lon])")
    }

    private static func number(_ value: JSONValue) -> Double? {
        let parsed: Double?
        switch value {
        // Trimmed only when it does not parse as it is: most do, and trimming is slow.
        case .string(let text):
            parsed = Double(text) ?? Double(text.trimmingCharacters(in: .whitespaces))
        case .number(let text): parsed = Double(text)
        default: parsed = nil
        }
        return parsed.flatMap { $0.isFinite ? $0 : nil }
    }

    /// A string's text, a number's text as written, or nil.
    static func scalarText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number(let text): text
        default: nil
        }
    }
}
