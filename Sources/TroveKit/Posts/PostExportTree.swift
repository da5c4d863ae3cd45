import TroveBase
import TroveStore

/// A Realtime Database export read as a stream: the tree is walked member by member, each
/// post's record is read whole (no longer than `RecordLimit`) and parsed on its own, and
/// everything else (other roots, the users' other fields) is checked and passed over
/// without being held. The records are kept, merged by id, until the end.
///
/// The result is the one a read of the whole tree gave: the records' parts are merged in
/// the order of the sorted tree (roots, then users, then their fields), a repeated name at
/// any level keeping only its last occurrence, as JavaScript's `JSON.parse` does.
final class PostExportTree {
    /// What the file turned out to hold.
    enum Outcome {
        /// One JSON value: the export.
        case tree
        /// Another value follows the first, on `line`: newline-delimited JSON, perhaps.
        case several(line: Int)
    }

    private let stream: JSONStream
    private let name: String
    private let skipInvalid: Bool
    private var file = PostFile()
    private var found = false

    /// One record's part as the tree holds it: a post under `Locations`, or a user's tagged
    /// location (whose fields are nil when it is not an object, `true` say).
    private struct Part {
        var top: String
        var user: String?
        var field: String?
        var id: String
        var path: String
        var fields: [String: JSONValue]?
        var isLocation: Bool
        /// The occurrences it belongs to, to tell whether a later one of the same name
        /// replaced it.
        var topMark: Int
        var userMark: Int?
        var fieldMark: Int?
        var idKey: String
    }
    private var parts: [Part] = []
    /// The last occurrence of each name at each level, by its parent's occurrence.
    private var lastMark: [String: Int] = [:]
    private var marks = 0
    private var notObjects: [PostReject] = []

    /// The deepest nesting passed over: the Realtime Database stores no deeper tree (32),
    /// and JSON's own parser stops at 512.
    private static let maximumDepth = 512

    init(stream: JSONStream, name: String, skipInvalid: Bool) {
        self.stream = stream
        self.name = name
        self.skipInvalid = skipInvalid
        stream.limit = RecordLimit.bytes
    }

    // MARK: - Reading

    /// Reads the first JSON value of the stream.
    ///
    /// - Throws: `InputError` for text that is not JSON, a value over the limit, or a file
    ///   that holds no JSON.
    func read() throws(InputError) -> Outcome {
        if stream.peek() == 0xEF, stream.peek(1) == 0xBB, stream.peek(2) == 0xBF {
            stream.advance(3)
        }
        guard let first = stream.skipWhitespace() else {
            try checkRead()
            throw InputError(
                name, "the file holds no JSON",
                hint: "export the litter app's database root, or use CSV/NDJSON")
        }
        if first == UInt8(ascii: "{") {
            try forEachChild { [self] key throws(InputError) in
                let mark = self.mark(key, in: "")
                switch key.lowercased() {
                case "users":
                    found = true
                    try users(top: key, mark: mark)
                case "locations":
                    found = true
                    try locations(top: key, mark: mark)
                default:
                    try skip()
                }
            }
        } else {
            try skip()
            if stream.skipWhitespace() == nil {
                try checkRead()
                throw InputError(name, "expected a JSON object at the top of the export")
            }
        }
        if stream.skipWhitespace() != nil { return .several(line: stream.line) }
        try checkRead()
        return .tree
    }

    /// `Users/{user}/TaggedLocations/{id}`; a user's other fields are only counted when
    /// private.
    private func users(top: String, mark topMark: Int) throws(InputError) {
        try forEachChild { [self] user throws(InputError) in
            let userMark = mark(user, in: "\(topMark)")
            guard try next() == UInt8(ascii: "{") else {
                try skip()
                return
            }
            try forEachChild(arrays: false) { [self] field throws(InputError) in
                let fieldMark = mark(field, in: "\(userMark)")
                guard field.lowercased() == "taggedlocations" else {
                    try countPrivate(field, depth: 0)
                    return
                }
                // The path is stored as the post's source: no address in it.
                let shown = Privacy.pseudonymizeUser(user).user
                try forEachChild { [self] id throws(InputError) in
                    let path = "\(top)/\(shown)/\(field)/\(id)"
                    let value = try value(record: path)
                    var fields: [String: JSONValue]?
                    if case .object = value { fields = PostReader.fields(value) }
                    add(
                        Part(
                            top: top, user: user, field: field, id: id, path: path,
                            fields: fields, isLocation: false, topMark: topMark,
                            userMark: userMark, fieldMark: fieldMark, idKey: "\(fieldMark)/\(id)"))
                }
            }
        }
    }

    /// `Locations/{id}`: each an object.
    private func locations(top: String, mark topMark: Int) throws(InputError) {
        try forEachChild { [self] id throws(InputError) in
            let path = "\(top)/\(id)"
            let value = try value(record: path)
            guard case .object = value else {
                let error = InputError("\(name): \(path)", "expected an object")
                guard skipInvalid else { throw error }
                notObjects.append(
                    PostReject(
                        file: name, record: path, id: id, location: error.location,
                        reason: error.message, json: PostReader.shareable(value)))
                return
            }
            add(
                Part(
                    top: top, id: id, path: path, fields: PostReader.fields(value),
                    isLocation: true, topMark: topMark, idKey: "\(topMark)/\(id)"))
        }
    }

    /// Counts a private field of a user (a password, an e-mail address, a display name),
    /// in objects nested as deep as the Realtime Database allows, and passes over the rest.
    private func countPrivate(_ field: String, depth: Int) throws(InputError) {
        if Privacy.isPasswordField(field) {
            file.droppedPasswords += 1
        } else if Privacy.isEmailField(field) {
            file.droppedEmails += 1
        } else if Privacy.isDisplayNameField(field) {
            file.droppedNames += 1
        } else if depth < FirebaseLimits.maximumDepth, try next() == UInt8(ascii: "{") {
            try forEachChild(arrays: false) { [self] member throws(InputError) in
                try countPrivate(member, depth: depth + 1)
            }
            return
        }
        try skip()
    }

    // MARK: - The records

    /// Notes the occurrence of `name` under the occurrence `parent`: the last one wins.
    private func mark(_ name: String, in parent: String) -> Int {
        marks += 1
        lastMark[parent + "\u{0}" + name] = marks
        return marks
    }

    private func add(_ part: Part) {
        lastMark["id\u{0}" + part.idKey] = parts.count
        parts.append(part)
    }

    /// Whether no later occurrence of a name replaced `part`.
    private func isCurrent(_ part: Part, at index: Int) -> Bool {
        guard lastMark["\u{0}" + part.top] == part.topMark,
            lastMark["id\u{0}" + part.idKey] == index
        else { return false }
        if let user = part.user, let userMark = part.userMark,
            lastMark["\(part.topMark)\u{0}" + user] != userMark
        {
            return false
        }
        if let field = part.field, let fieldMark = part.fieldMark, let userMark = part.userMark,
            lastMark["\(userMark)\u{0}" + field] != fieldMark
        {
            return false
        }
        return true
    }

    /// The posts of the tree, in id order.
    ///
    /// - Throws: `InputError` for a tree without posts, or a record that cannot become a
    ///   post (unless `skipInvalid`).
    func posts() throws(InputError) -> PostFile {
        guard found else {
            throw InputError(
                name, "no Users/*/TaggedLocations or Locations tree found",
                hint: "export the litter app's database root, or use CSV/NDJSON")
        }
        // The tree's sorted order: a record's parts merge as they did read whole.
        let current = parts.indices.filter { isCurrent(parts[$0], at: $0) }.sorted {
            let a = parts[$0]
            let b = parts[$1]
            return (a.top, a.user ?? "", a.field ?? "", a.id, $0)
                < (b.top, b.user ?? "", b.field ?? "", b.id, $1)
        }
        var records: [String: (fields: [String: JSONValue], path: String)] = [:]
        var owners: [String: String] = [:]
        for index in current {
            let part = parts[index]
            if part.isLocation {
                if records[part.id] == nil { records[part.id] = ([:], part.path) }
                records[part.id]?.fields.merge(part.fields ?? [:]) { _, location in location }
                records[part.id]?.path = part.path
            } else {
                // The user's key is the user's id: it wins over any field.
                owners[part.id] = part.user
                if let fields = part.fields {
                    records[part.id, default: ([:], part.path)].fields.merge(fields) { a, _ in a }
                    records[part.id]?.path = part.path
                }
            }
        }
        parts = []
        var file = self.file
        file.rejects += notObjects
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
                    try PostReader.post(id: id, fields: fields, source: source, file: &file) {
                        field in "\(name): \(record.path)/\(field)"
                    })
            } catch {
                guard skipInvalid else { throw error }
                file.rejects.append(
                    PostReject(
                        file: name, record: record.path, id: id, location: error.location,
                        reason: error.message,
                        json: PostReader.shareable(
                            .object(
                                record.fields.sorted { $0.key < $1.key }.map {
                                    JSONMember(name: $0.key, value: $0.value)
                                }))))
            }
        }
        return file
    }

    // MARK: - The stream

    private func syntax(_ message: String, line: Int? = nil, column: Int? = nil) -> InputError {
        InputError(
            "\(name):\(line ?? stream.line):\(column ?? stream.column)",
            "not valid JSON: \(message)")
    }

    private func checkRead() throws(InputError) {
        if stream.failed {
            throw InputError(name, "cannot read the file: \(CSVReader.systemMessage())")
        }
    }

    /// The next byte after white space, which the text must have.
    private func next(_ ending: String = "the text ends where a value should be")
        throws(InputError) -> UInt8
    {
        guard let byte = stream.skipWhitespace() else {
            try checkRead()
            throw syntax(ending)
        }
        return byte
    }

    /// The value here, whole and parsed; `record` names it when it is a post's.
    private func value(record: String? = nil) throws(InputError) -> JSONValue {
        _ = try next()
        let taken = stream.takeValue()
        if stream.overLimit {
            throw InputError(
                "\(name):\(taken.line)",
                (record.map { "the post \($0)" } ?? "a value") + " is longer than "
                    + "\(RecordLimit.words), the most trove reads as one record")
        }
        var parser = JSONParser(taken.bytes)
        do throws(JSONSyntaxError) {
            let value = try parser.parseValue()
            guard parser.atEnd() else {
                throw JSONSyntaxError(
                    message: "unexpected data after a value", line: 1, column: 1)
            }
            return value
        } catch {
            try checkRead()
            throw syntax(
                error.message, line: taken.line + error.line - 1,
                column: error.line == 1 ? taken.column + error.column - 1 : error.column)
        }
    }

    /// A member name in quotes.
    private func key() throws(InputError) -> String {
        let line = stream.line
        let column = stream.column
        guard try next("the text ends inside an object") == UInt8(ascii: "\"") else {
            throw syntax("expected a member name in quotes")
        }
        guard case .string(let name) = try value() else {
            throw syntax("expected a member name in quotes", line: line, column: column)
        }
        return name
    }

    /// Reads the object (or, with `arrays`, the array) here a child at a time: `body` gets
    /// each member's name, or each item's index (null items are skipped, as Firebase
    /// exports objects with numeric keys as arrays with gaps), with the stream at its
    /// value, which `body` consumes. Any other value is passed over.
    private func forEachChild(
        arrays: Bool = true, _ body: (String) throws(InputError) -> Void
    ) throws(InputError) {
        let first = try next()
        if first == UInt8(ascii: "{") {
            stream.advance(1)
            if try next("the text ends inside an object") == UInt8(ascii: "}") {
                stream.advance(1)
                return
            }
            while true {
                let name = try key()
                guard try next("the text ends inside an object") == UInt8(ascii: ":") else {
                    throw syntax("expected ':' after the member name")
                }
                stream.advance(1)
                try body(name)
                switch try next("the text ends inside an object") {
                case UInt8(ascii: ","): stream.advance(1)
                case UInt8(ascii: "}"):
                    stream.advance(1)
                    return
                default: throw syntax("expected ',' or '}' after a member")
                }
            }
        }
        guard first == UInt8(ascii: "["), arrays else {
            try skip()
            return
        }
        stream.advance(1)
        if try next("the text ends inside an array") == UInt8(ascii: "]") {
            stream.advance(1)
            return
        }
        var index = 0
        while true {
            if try next() == UInt8(ascii: "n") {
                _ = try value()  // null, or not JSON
            } else {
                try body(String(index))
            }
            index += 1
            switch try next("the text ends inside an array") {
            case UInt8(ascii: ","): stream.advance(1)
            case UInt8(ascii: "]"):
                stream.advance(1)
                return
            default: throw syntax("expected ',' or ']' after an item")
            }
        }
    }

    /// Passes over the value here, checking that it is JSON, holding no more of it than
    /// one scalar at a time.
    private func skip() throws(InputError) {
        var open: [Bool] = []  // true for an object
        while true {
            // A value.
            switch try next() {
            case UInt8(ascii: "{"):
                stream.advance(1)
                open.append(true)
                guard open.count <= Self.maximumDepth else {
                    throw syntax("nested more than \(Self.maximumDepth) deep")
                }
                if try next("the text ends inside an object") == UInt8(ascii: "}") {
                    stream.advance(1)
                    open.removeLast()
                } else {
                    try memberName()
                    continue
                }
            case UInt8(ascii: "["):
                stream.advance(1)
                open.append(false)
                guard open.count <= Self.maximumDepth else {
                    throw syntax("nested more than \(Self.maximumDepth) deep")
                }
                if try next("the text ends inside an array") == UInt8(ascii: "]") {
                    stream.advance(1)
                    open.removeLast()
                } else {
                    continue
                }
            default:
                _ = try value()
            }
            // After a value: the next member or item, or the end of its container.
            while let isObject = open.last {
                let byte = try next(
                    isObject ? "the text ends inside an object" : "the text ends inside an array")
                if byte == UInt8(ascii: ",") {
                    stream.advance(1)
                    if isObject { try memberName() }
                    break
                }
                guard byte == UInt8(ascii: isObject ? "}" : "]") else {
                    throw syntax(
                        isObject
                            ? "expected ',' or '}' after a member"
                            : "expected ',' or ']' after an item")
                }
                stream.advance(1)
                open.removeLast()
            }
            if open.isEmpty { return }
        }
    }

    /// A member's name and its colon.
    private func memberName() throws(InputError) {
        _ = try key()
        guard try next("the text ends inside an object") == UInt8(ascii: ":") else {
            throw syntax("expected ':' after the member name")
        }
        stream.advance(1)
    }
}
