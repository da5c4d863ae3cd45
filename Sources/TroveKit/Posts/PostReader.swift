import Foundation
import TroveBase
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
        case .latitude: return ["lat", "latitude", "y"]
        case .longitude: return ["lon", "lng", "long", "longitude", "x"]
        case .description:
            return ["description", "locationdescription", "desc", "text", "comment", "caption"]
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
/// Nothing is half-read: any record that cannot become a post stops the read with an
/// `InputError` naming the line or JSON path, so the workspace is never touched.
public enum PostReader {
    /// Reads the file at `path`; `name` is how messages refer to it.
    ///
    /// The format follows the extension: `.csv`/`.tsv` CSV, `.ndjson`/`.jsonl`
    /// newline-delimited JSON, anything else JSON (falling back to newline-delimited
    /// when the file is a series of objects).
    /// - Throws: `InputError`.
    ///
    /// - Parameter skipInvalid: a record that cannot become a post is set aside in
    ///   `rejects` instead of stopping the read; a file that cannot be read at all still
    ///   throws.
    public static func read(path: String, name: String, skipInvalid: Bool = false)
        throws(InputError) -> PostFile
    {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(name, "cannot read the file")
        }
        let ext = (path as NSString).pathExtension.lowercased()
        switch ext {
        case "csv", "tsv", "txt":
            return try readCSV(Array(data), name: name, skipInvalid: skipInvalid)
        case "ndjson", "jsonl":
            return try readLines(Array(data), name: name, skipInvalid: skipInvalid)
        default: return try readJSON(data, name: name, skipInvalid: skipInvalid)
        }
    }

    // MARK: - JSON trees

    /// Reads a Realtime Database export: `Users/{user}/TaggedLocations/{id}` and/or
    /// `Locations/{id}`; a tagged location that is only `true` links its user to the
    /// `Locations` record of the same id.
    ///
    /// - Throws: `InputError`.
    public static func readJSON(_ data: Data, name: String, skipInvalid: Bool = false)
        throws(InputError) -> PostFile
    {
        let bytes = Array(data)
        var parser = JSONParser(bytes)
        let root: JSONValue
        do throws(JSONSyntaxError) {
            root = try parser.parseValue()
            if !parser.atEnd() {
                // More than one value: newline-delimited posts, or text after the export.
                if let lines = try? readLines(bytes, name: name, skipInvalid: skipInvalid),
                    lines.posts.count + lines.rejects.count > 1
                {
                    return lines
                }
                _ = try parser.parseValue()
                throw JSONSyntaxError(
                    message: "more than one JSON value", line: parser.nextLine(), column: 1)
            }
        } catch {
            throw InputError(
                "\(name):\(error.line):\(error.column)", "not valid JSON: \(error.message)")
        }
        return try readTree(root, name: name, skipInvalid: skipInvalid)
    }

    /// Reads an export already parsed: `root` holds `Users` and/or `Locations`.
    ///
    /// - Throws: `InputError`.
    static func readTree(_ root: JSONValue, name: String, skipInvalid: Bool = false)
        throws(InputError) -> PostFile
    {
        guard case .object = root else {
            throw InputError(name, "expected a JSON object at the top of the export")
        }
        let tree = fields(root)
        var file = PostFile()
        var records: [String: (fields: [String: JSONValue], path: String)] = [:]
        var owners: [String: String] = [:]
        var found = false
        for key in tree.keys.sorted() {
            let lowered = key.lowercased()
            if lowered == "users" {
                found = true
                for (user, node) in children(tree[key]).sorted(by: { $0.key < $1.key }) {
                    guard case .object = node else { continue }
                    for (field, value) in fields(node).sorted(by: { $0.key < $1.key }) {
                        if field.lowercased() == "taggedlocations" {
                            // The user's key is the user's id: it wins over any field.
                            for (id, tagged) in children(value) {
                                // The path is stored as the post's source: no address in it.
                                let shown = Privacy.pseudonymizeUser(user).user
                                let path = "\(key)/\(shown)/\(field)/\(id)"
                                owners[id] = user
                                if case .object = tagged {
                                    records[id, default: ([:], path)].fields.merge(fields(tagged)) {
                                        a, _ in a
                                    }
                                    records[id]?.path = path
                                }
                            }
                        } else {
                            countSensitive(field: field, value: value, in: &file)
                        }
                    }
                }
            } else if lowered == "locations" {
                found = true
                for (id, node) in children(tree[key]).sorted(by: { $0.key < $1.key }) {
                    guard case .object = node else {
                        let error = InputError("\(name): \(key)/\(id)", "expected an object")
                        guard skipInvalid else { throw error }
                        file.rejects.append(
                            PostReject(
                                file: name, record: "\(key)/\(id)", id: id,
                                location: error.location, reason: error.message,
                                json: shareable(node)))
                        continue
                    }
                    let path = "\(key)/\(id)"
                    if records[id] == nil { records[id] = ([:], path) }
                    records[id]?.fields.merge(fields(node)) { _, location in location }
                    records[id]?.path = path
                }
            }
        }
        guard found else {
            throw InputError(
                name, "no Users/*/TaggedLocations or Locations tree found",
                hint: "export the litter app's database root, or use CSV/NDJSON")
        }
        for id in records.keys.sorted() {
            guard let record = records[id] else { continue }
            let source = "\(name): \(record.path)"
            var fields: [(String, JSONValue)] = record.fields.sorted { $0.key < $1.key }
            if let owner = owners[id] {
                // The Users/{uid} key names the user, whatever the record's own fields say.
                fields.removeAll { PostField.matching($0.0) == .user }
                fields.append(("uid", .string(owner)))
            }
            do throws(InputError) {
                file.posts.append(
                    try post(id: id, fields: fields, source: source, file: &file) { field in
                        "\(name): \(record.path)/\(field)"
                    })
            } catch {
                guard skipInvalid else { throw error }
                file.rejects.append(
                    PostReject(
                        file: name, record: record.path, id: id, location: error.location,
                        reason: error.message,
                        json: shareable(
                            .object(
                                record.fields.sorted { $0.key < $1.key }.map {
                                    JSONMember(name: $0.key, value: $0.value)
                                }))))
            }
        }
        return file
    }

    /// An object's members by name; a repeated name keeps the last, as JavaScript's
    /// `JSON.parse` (and the Realtime Database) do.
    private static func fields(_ node: JSONValue?) -> [String: JSONValue] {
        guard case .object(let members)? = node else { return [:] }
        var result: [String: JSONValue] = [:]
        for member in members { result[member.name] = member.value }
        return result
    }

    /// The children of a JSON node: an object's members, or an array's non-null items
    /// (Firebase exports objects with numeric keys as arrays).
    private static func children(_ node: JSONValue?) -> [String: JSONValue] {
        if case .array(let items)? = node {
            var result: [String: JSONValue] = [:]
            for (index, item) in items.enumerated() where item != .null {
                result[String(index)] = item
            }
            return result
        }
        return fields(node)
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

    private static func countSensitive(field: String, value: JSONValue, in file: inout PostFile) {
        if Privacy.isPasswordField(field) {
            file.droppedPasswords += 1
        } else if Privacy.isEmailField(field) {
            file.droppedEmails += 1
        } else if Privacy.isDisplayNameField(field) {
            file.droppedNames += 1
        } else if case .object(let members) = value {
            for member in members {
                countSensitive(field: member.name, value: member.value, in: &file)
            }
        }
    }

    // MARK: - Newline-delimited JSON

    /// Reads one JSON object per line (blank lines skipped).
    ///
    /// - Throws: `InputError` naming `FILE:LINE`.
    public static func readLines(_ bytes: [UInt8], name: String, skipInvalid: Bool = false)
        throws(InputError) -> PostFile
    {
        var file = PostFile()
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            var text = line
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
        return file
    }

    // MARK: - CSV

    /// Reads CSV with a header row, with the reader treasures use: the delimiter (`,`, `;`
    /// or tab) found in the header, quotes and line breaks in fields, a BOM, UTF-16 with a
    /// BOM; blank lines hold no post.
    ///
    /// - Throws: `InputError` naming `FILE:LINE`.
    public static func readCSV(_ bytes: [UInt8], name: String, skipInvalid: Bool = false)
        throws(InputError) -> PostFile
    {
        var reader = CSVReader(bytes: bytes, displayPath: name)
        var records: [CSVRecord] = []
        do throws(CSVError) {
            while let record = try reader.next() { records.append(record) }
        } catch {
            // The treasure reader's advice names --encoding, which posts do not take.
            let hint =
                error.reason == .invalidEncoding
                ? "save the file as UTF-8 (or UTF-16 with a byte order mark)" : error.hint
            throw InputError(error.line.map { "\(name):\($0)" } ?? name, error.message, hint: hint)
        }
        guard let header = records.first else { throw InputError(name, "the file is empty") }
        var columns: [PostField: Int] = [:]
        var sensitive: [(index: Int, password: Bool)] = []
        var names: [Int] = []
        var user: (index: Int, rank: Int)?
        for (index, column) in header.fields.enumerated() {
            // Of several user-id columns the most specific wins, wherever it stands.
            if let rank = PostField.userKeyNames.firstIndex(of: normalizedFieldName(column)),
                rank < (user?.rank ?? .max)
            {
                user = (index, rank)
            }
        }
        for (index, column) in header.fields.enumerated() {
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
        for required in [PostField.id, .latitude, .longitude] where columns[required] == nil {
            throw InputError(
                "\(name):\(header.line)", "missing column '\(required.names[0])'",
                hint: "the header needs id,user,lat,lon,description,date,photo")
        }
        var file = PostFile()
        for record in records.dropFirst() {
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
                var original: [String: String] = [:]
                for (index, value) in record.fields.enumerated() {
                    let column =
                        index < header.fields.count ? header.fields[index] : "column_\(index + 1)"
                    // Private columns are not copied into the rejects file either.
                    if Privacy.isPasswordField(column) || Privacy.isEmailField(column)
                        || Privacy.isDisplayNameField(column)
                    {
                        continue
                    }
                    original[column] = Privacy.redactEmails(value).text
                }
                file.rejects.append(
                    PostReject(
                        file: name, line: record.line, id: id, location: error.location,
                        reason: error.message, fields: original))
            }
        }
        return file
    }

    // MARK: - Records

    /// Builds a post from its fields; `where` names a field's location for messages.
    private static func post(
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
                if case .number(let text) = value {
                    guard let number = Double(text), let date = PostDate.epoch(number) else {
                        throw InputError(
                            locate(name), "date \(text) is not a valid time",
                            hint: "a Unix time in seconds or milliseconds after 1970")
                    }
                    input.date = date
                } else if let text = scalarText(value), !text.isEmpty {
                    guard let date = PostDate.normalize(text) else {
                        throw InputError(
                            locate(name), "date '\(text)' is not a date",
                            hint: "write it as ISO 8601 (2022-01-24 or 2022-01-24T10:15:00Z), "
                                + "like 24Jan 2022, or as a Unix time")
                    }
                    input.date = date
                } else if case .array = value {
                    throw InputError(locate(name), "date is a list, not a date")
                } else if case .object = value {
                    throw InputError(locate(name), "date is an object, not a date")
                }
            case .photo:
                if let text = scalarText(value), !text.isEmpty { input.photo = text }
            }
        }
        guard let latitude, let longitude else {
            let field: PostField = latitude == nil ? .latitude : .longitude
            let word = field == .latitude ? "latitude" : "longitude"
            if let name = nullField[field] {
                throw InputError(
                    locate(name), "\(word) is null: the post has no position",
                    hint: "a post needs a latitude and a longitude")
            }
            throw InputError(
                locate(field == .latitude ? "lat" : "lon"), "no \(word): the post has no position",
                hint: "a post needs \(field == .latitude ? "lat or latitude" : "lon or longitude")"
                    + " (or GeoFire's l: [lat, lon])")
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

    private static func number(_ value: JSONValue) -> Double? {
        let parsed: Double?
        switch value {
        case .string(let text): parsed = Double(text.trimmingCharacters(in: .whitespaces))
        case .number(let text): parsed = Double(text)
        default: parsed = nil
        }
        return parsed.flatMap { $0.isFinite ? $0 : nil }
    }

    /// A string's text, a number's text as written, or nil.
    private static func scalarText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number(let text): text
        default: nil
        }
    }
}
