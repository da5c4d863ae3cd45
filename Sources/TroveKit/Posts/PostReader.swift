import Foundation

/// What a posts file held: its posts, and what was dropped to keep it private.
public struct PostFile: Sendable {
    /// The posts, in file order (JSON trees: sorted by id).
    public var posts: [PostInput] = []
    /// Password fields seen and not stored.
    public var droppedPasswords = 0
    /// E-mail addresses seen and not stored (fields, user references, inside text).
    public var droppedEmails = 0
}

/// The columns and fields of a post, matched case-insensitively with aliases.
enum PostField: CaseIterable {
    case id, user, latitude, longitude, description, date, photo

    /// Normalised names (see `normalizedFieldName`) that mean this field.
    var names: [String] {
        switch self {
        case .id: return ["id", "key", "postid", "locationid"]
        case .user: return ["user", "userid", "uid", "username", "owner", "author", "userkey"]
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
        let key = normalizedFieldName(name)
        return allCases.first { $0.names.contains(key) }
    }
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
    public static func read(path: String, name: String) throws(InputError) -> PostFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(name, "cannot read the file")
        }
        let ext = (path as NSString).pathExtension.lowercased()
        switch ext {
        case "csv", "tsv", "txt": return try readCSV(Array(data), name: name)
        case "ndjson", "jsonl": return try readLines(Array(data), name: name)
        default: return try readJSON(data, name: name)
        }
    }

    // MARK: - JSON trees

    /// Reads a Realtime Database export: `Users/{user}/TaggedLocations/{id}` and/or
    /// `Locations/{id}`; a tagged location that is only `true` links its user to the
    /// `Locations` record of the same id.
    ///
    /// - Throws: `InputError`.
    public static func readJSON(_ data: Data, name: String) throws(InputError) -> PostFile {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            if let lines = try? readLines(Array(data), name: name), lines.posts.count > 1 {
                return lines
            }
            let detail = (error as NSError).userInfo["NSDebugDescription"] as? String
            throw InputError(name, "not valid JSON" + (detail.map { ": \($0)" } ?? ""))
        }
        guard let tree = root as? [String: Any] else {
            throw InputError(name, "expected a JSON object at the top of the export")
        }
        var file = PostFile()
        var records: [String: (fields: [String: Any], path: String)] = [:]
        var owners: [String: String] = [:]
        var found = false
        for key in tree.keys.sorted() {
            let lowered = key.lowercased()
            if lowered == "users" {
                found = true
                for (user, node) in children(tree[key]).sorted(by: { $0.key < $1.key }) {
                    guard let fields = node as? [String: Any] else { continue }
                    for (field, value) in fields.sorted(by: { $0.key < $1.key }) {
                        if field.lowercased() == "taggedlocations" {
                            for (id, tagged) in children(value) {
                                // The path is stored as the post's source: no address in it.
                                let shown = Privacy.pseudonymizeUser(user).user
                                let path = "\(key)/\(shown)/\(field)/\(id)"
                                owners[id] = user
                                if let post = tagged as? [String: Any] {
                                    records[id, default: ([:], path)].fields.merge(post) { a, _ in a
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
                for (id, node) in children(tree[key]) {
                    guard let post = node as? [String: Any] else {
                        throw InputError("\(name): \(key)/\(id)", "expected an object")
                    }
                    let path = "\(key)/\(id)"
                    if records[id] == nil { records[id] = ([:], path) }
                    records[id]?.fields.merge(post) { _, location in location }
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
            var fields: [(String, Any)] = record.fields.sorted { $0.key < $1.key }
            if let owner = owners[id],
                !fields.contains(where: { PostField.matching($0.0) == .user })
            {
                fields.append(("user", owner))
            }
            file.posts.append(
                try post(id: id, fields: fields, source: source, file: &file) { field in
                    "\(name): \(record.path)/\(field)"
                })
        }
        return file
    }

    /// The children of a JSON node: an object's members, or an array's non-null items
    /// (Firebase exports objects with numeric keys as arrays).
    private static func children(_ node: Any?) -> [String: Any] {
        if let object = node as? [String: Any] { return object }
        if let array = node as? [Any] {
            var result: [String: Any] = [:]
            for (index, item) in array.enumerated() where !(item is NSNull) {
                result[String(index)] = item
            }
            return result
        }
        return [:]
    }

    private static func countSensitive(field: String, value: Any, in file: inout PostFile) {
        if Privacy.isPasswordField(field) {
            file.droppedPasswords += 1
        } else if Privacy.isEmailField(field) {
            file.droppedEmails += 1
        } else if let object = value as? [String: Any] {
            for (name, inner) in object { countSensitive(field: name, value: inner, in: &file) }
        }
    }

    // MARK: - Newline-delimited JSON

    /// Reads one JSON object per line (blank lines skipped).
    ///
    /// - Throws: `InputError` naming `FILE:LINE`.
    public static func readLines(_ bytes: [UInt8], name: String) throws(InputError) -> PostFile {
        var file = PostFile()
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            var text = line
            if text.last == 0x0D { text = text.dropLast() }
            if lineNumber == 1, text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            let location = "\(name):\(lineNumber)"
            guard
                let object = try? JSONSerialization.jsonObject(with: Data(text))
                    as? [String: Any]
            else {
                throw InputError(location, "expected one JSON object on this line")
            }
            let fields = object.sorted { $0.key < $1.key }
            guard let idField = fields.first(where: { PostField.matching($0.key) == .id }) else {
                throw InputError(location, "missing field 'id'")
            }
            let id = scalarText(idField.value) ?? ""
            file.posts.append(
                try post(
                    id: id, fields: fields.map { ($0.key, $0.value) }, source: location, file: &file
                ) {
                    _ in location
                })
        }
        return file
    }

    // MARK: - CSV

    /// Reads CSV with a header row (`,`, `;` or tab, detected from the header).
    ///
    /// - Throws: `InputError` naming `FILE:LINE`.
    public static func readCSV(_ bytes: [UInt8], name: String) throws(InputError) -> PostFile {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw InputError(name, "the file is not UTF-8 text")
        }
        let records = try CSVRecords.parse(text, name: name)
        guard let header = records.first else { throw InputError(name, "the file is empty") }
        var columns: [PostField: Int] = [:]
        var sensitive: [(index: Int, password: Bool)] = []
        for (index, column) in header.fields.enumerated() {
            if let field = PostField.matching(column), columns[field] == nil {
                columns[field] = index
            } else if Privacy.isPasswordField(column) {
                sensitive.append((index, true))
            } else if Privacy.isEmailField(column) {
                sensitive.append((index, false))
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
            guard record.fields.count == header.fields.count else {
                throw InputError(
                    location,
                    "expected \(header.fields.count) fields, found \(record.fields.count)")
            }
            for column in sensitive where !record.fields[column.index].isEmpty {
                if column.password { file.droppedPasswords += 1 } else { file.droppedEmails += 1 }
            }
            var fields: [(String, Any)] = []
            for (field, index) in columns where !record.fields[index].isEmpty {
                fields.append((field.names[0], record.fields[index]))
            }
            let id = columns[.id].map { record.fields[$0] } ?? ""
            file.posts.append(
                try post(id: id, fields: fields, source: location, file: &file) { _ in location })
        }
        return file
    }

    // MARK: - Records

    /// Builds a post from its fields; `where` names a field's location for messages.
    private static func post(
        id: String, fields: [(String, Any)], source: String, file: inout PostFile,
        where locate: (String) -> String
    ) throws(InputError) -> PostInput {
        if let problem = FirebaseKey.problem(id) {
            throw InputError(locate("id"), "post id '\(id)' \(problem)")
        }
        var latitude: Double?
        var longitude: Double?
        var input = PostInput(id: id, latitude: 0, longitude: 0, source: source)
        for (name, value) in fields {
            guard let field = PostField.matching(name) else {
                if Privacy.isPasswordField(name) {
                    file.droppedPasswords += 1
                } else if Privacy.isEmailField(name) {
                    file.droppedEmails += 1
                } else if normalizedFieldName(name) == "l", let pair = value as? [Any],
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
                guard let text = scalarText(value), !text.isEmpty else { continue }
                let (user, wasEmail) = Privacy.pseudonymizeUser(text)
                if wasEmail { file.droppedEmails += 1 }
                input.user = user
            case .latitude, .longitude:
                guard let parsed = number(value) else {
                    throw InputError(
                        locate(name),
                        "\(field == .latitude ? "latitude" : "longitude") "
                            + "'\(scalarText(value) ?? "?")' is not a number")
                }
                if field == .latitude { latitude = parsed } else { longitude = parsed }
            case .description:
                guard let text = scalarText(value) else { continue }
                let (redacted, count) = Privacy.redactEmails(text)
                file.droppedEmails += count
                input.description = redacted
            case .date:
                if let number = value as? NSNumber, !(value is String) {
                    guard let date = PostDate.epoch(number.doubleValue) else {
                        throw InputError(locate(name), "date \(number) is not a valid time")
                    }
                    input.date = date
                } else if let text = scalarText(value), !text.isEmpty {
                    guard let date = PostDate.normalize(text) else {
                        throw InputError(
                            locate(name), "date '\(text)' is not ISO 8601 or like '24Jan 2022'")
                    }
                    input.date = date
                }
            case .photo:
                if let text = scalarText(value), !text.isEmpty { input.photo = text }
            }
        }
        guard let latitude, let longitude else {
            throw InputError(locate(latitude == nil ? "lat" : "lon"), "missing position")
        }
        guard (-90...90).contains(latitude) else {
            throw InputError(locate("lat"), "latitude \(latitude) is outside [-90, 90]")
        }
        guard (-180...180).contains(longitude) else {
            throw InputError(locate("lon"), "longitude \(longitude) is outside [-180, 180]")
        }
        input.latitude = latitude
        input.longitude = longitude
        return input
    }

    private static func number(_ value: Any) -> Double? {
        if let text = value as? String {
            guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)), parsed.isFinite
            else { return nil }
            return parsed
        }
        if let number = value as? NSNumber, number.doubleValue.isFinite {
            return number.doubleValue
        }
        return nil
    }

    private static func scalarText(_ value: Any) -> String? {
        if let text = value as? String { return text }
        if let number = value as? NSNumber { return number.stringValue }
        return nil
    }
}

// MARK: - A small RFC 4180 reader

/// CSV records with the line each starts on: quotes, doubled quotes, embedded newlines,
/// CRLF and a BOM handled.
struct CSVRecords {
    struct Record {
        var fields: [String]
        var line: Int
    }

    /// Parses `text`; the delimiter (`,`, `;` or tab) is the most common one in the
    /// first line.
    ///
    /// - Throws: `InputError` for a quoted field that never ends.
    static func parse(_ text: String, name: String) throws(InputError) -> [Record] {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        let firstLine = scalars.prefix { $0 != "\n" && $0 != "\r" }
        let delimiter: Unicode.Scalar =
            [",", ";", "\t"].max { a, b in
                firstLine.filter { $0 == a }.count < firstLine.filter { $0 == b }.count
            } ?? ","
        var records: [Record] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        var index = 0
        var inQuotes = false
        var quoteLine = 1
        func endField() {
            fields.append(String(field))
            field = String.UnicodeScalarView()
        }
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if inQuotes {
                if scalar == "\"" {
                    if index < scalars.count && scalars[index] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if scalar == "\n" { line += 1 }
                    field.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty:
                inQuotes = true
                quoteLine = line
            case delimiter:
                endField()
            case "\r", "\n":
                if scalar == "\r" && index < scalars.count && scalars[index] == "\n" { index += 1 }
                endField()
                records.append(Record(fields: fields, line: recordLine))
                fields = []
                line += 1
                recordLine = line
            default:
                field.append(scalar)
            }
        }
        if inQuotes {
            throw InputError("\(name):\(quoteLine)", "a quoted field never ends")
        }
        if !field.isEmpty || !fields.isEmpty {
            endField()
            records.append(Record(fields: fields, line: recordLine))
        }
        return records
    }
}
