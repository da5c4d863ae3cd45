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
        /// The occurrences of the names it is under (root, user, field; 0 for none), to
        /// tell whether a later member of the same name replaced one of them.
        var marks: (top: Int, user: Int, field: Int)

        /// The object it is a member of (the occurrence of its root or of its user's field).
        var object: Int { isLocation ? marks.top : marks.field }
    }
    private var parts: [Part] = []
    /// The last occurrence of each name under each occurrence, and those replaced.
    private struct Occurrence: Hashable {
        var parent: Int
        var name: String
    }
    private var occurrences: [Occurrence: Int] = [:]
    private var replacedMarks: Set<Int> = []
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

    /// A tree to read already parsed, with `read(tree:)`.
    convenience init(name: String, skipInvalid: Bool) {
        self.init(stream: JSONStream(bytes: []), name: name, skipInvalid: skipInvalid)
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
                let mark = self.mark(key, in: 0)
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
            let userMark = mark(user, in: topMark)
            guard try next() == UInt8(ascii: "{") else {
                try skip()
                return
            }
            try forEachChild(arrays: false) { [self] field throws(InputError) in
                let fieldMark = mark(field, in: userMark)
                guard field.lowercased() == "taggedlocations" else {
                    try countPrivate(field, depth: 0)
                    return
                }
                // The path is stored as the post's source: no address in it.
                let shown = Privacy.pseudonymizeUser(user).user
                try forEachChild { [self] id throws(InputError) in
                    let path = "\(top)/\(shown)/\(field)/\(id)"
                    taggedLocation(
                        id, path: path, top: top, user: user, field: field,
                        marks: (topMark, userMark, fieldMark), record: try value(record: path))
                }
            }
        }
    }

    /// One `Users/{user}/TaggedLocations/{id}` record, read from the text or the tree.
    private func taggedLocation(
        _ id: String, path: String, top: String, user: String, field: String,
        marks: (Int, Int, Int), record: JSONValue
    ) {
        var fields: [String: JSONValue]?
        if case .object = record { fields = PostReader.fields(record) }
        add(
            Part(
                top: top, user: user, field: field, id: id, path: path, fields: fields,
                isLocation: false, marks: marks))
    }

    /// `Locations/{id}`: each an object.
    private func locations(top: String, mark topMark: Int) throws(InputError) {
        try forEachChild { [self] id throws(InputError) in
            let path = "\(top)/\(id)"
            try location(id, path: path, top: top, mark: topMark, record: value(record: path))
        }
    }

    /// One `Locations/{id}` record, read from the text or the tree: a part, or a reject
    /// when it is not an object.
    private func location(
        _ id: String, path: String, top: String, mark topMark: Int, record: JSONValue
    ) throws(InputError) {
        guard case .object = record else {
            let error = InputError("\(name): \(path)", "expected an object")
            guard skipInvalid else { throw error }
            notObjects.append(
                PostReject(
                    file: name, record: path, id: id, location: error.location,
                    reason: error.message, json: PostReader.shareable(record)))
            return
        }
        add(
            Part(
                top: top, id: id, path: path, fields: PostReader.fields(record),
                isLocation: true, marks: (topMark, 0, 0)))
    }

    /// Counts a private field of a user (a password, an e-mail address, a display name),
    /// in objects nested as deep as the Realtime Database allows, and passes over the rest.
    private func countPrivate(_ field: String, depth: Int) throws(InputError) {
        if !counted(field), depth < FirebaseLimits.maximumDepth, try next() == UInt8(ascii: "{") {
            try forEachChild(arrays: false) { [self] member throws(InputError) in
                try countPrivate(member, depth: depth + 1)
            }
            return
        }
        try skip()
    }

    /// Counts `field` when it is private (its value is dropped); false for any other.
    private func counted(_ field: String) -> Bool {
        if Privacy.isPasswordField(field) {
            file.droppedPasswords += 1
        } else if Privacy.isEmailField(field) {
            file.droppedEmails += 1
        } else if Privacy.isDisplayNameField(field) {
            file.droppedNames += 1
        } else {
            return false
        }
        return true
    }

    // MARK: - The records

    /// Notes the occurrence of `name` under the occurrence `parent` (0 for the root): the
    /// last one wins, as in `JSON.parse`.
    private func mark(_ name: String, in parent: Int) -> Int {
        marks += 1
        if let earlier = occurrences.updateValue(
            marks, forKey: Occurrence(parent: parent, name: name))
        {
            replacedMarks.insert(earlier)
        }
        return marks
    }

    private func add(_ part: Part) {
        parts.append(part)
    }

    /// Whether no later occurrence of the names `part` is under replaced one of them (a
    /// later member of the same id in the same object is looked for among the id's parts).
    private func isCurrent(_ part: Part) -> Bool {
        replacedMarks.isEmpty
            || ![part.marks.top, part.marks.user, part.marks.field].contains(
                where: replacedMarks.contains)
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
        // A record's parts merge in the tree's sorted order (roots, users, their fields),
        // as they did read whole; of one id twice in one object, the last counts.
        var byID: [String: [Int]] = [:]
        for index in parts.indices where isCurrent(parts[index]) {
            byID[parts[index].id, default: []].append(index)
        }
        var records: [(id: String, fields: [String: JSONValue], path: String, owner: String?)] =
            []
        records.reserveCapacity(byID.count)
        for (id, indices) in byID {
            var objects: Set<Int> = []
            let kept = indices.reversed().filter { objects.insert(parts[$0].object).inserted }
            let ordered = kept.sorted {
                let a = parts[$0]
                let b = parts[$1]
                return (a.top, a.user ?? "", a.field ?? "", $0)
                    < (b.top, b.user ?? "", b.field ?? "", $1)
            }
            var fields: [String: JSONValue]?
            var path = ""
            var owner: String?
            for index in ordered {
                let part = parts[index]
                if part.isLocation {
                    fields = (fields ?? [:]).merging(part.fields ?? [:]) { _, location in location }
                    path = part.path
                } else {
                    // The user's key is the user's id: it wins over any field.
                    owner = part.user
                    if let tagged = part.fields {
                        fields = (fields ?? [:]).merging(tagged) { a, _ in a }
                        path = part.path
                    }
                }
            }
            if let fields { records.append((id, fields, path, owner)) }
        }
        records.sort { $0.id < $1.id }
        parts = []
        var file = self.file
        file.rejects += notObjects
        for record in records {
            let id = record.id
            let source = "\(name): \(record.path)"
            var fields: [(String, JSONValue)] = record.fields.sorted { $0.key < $1.key }
            if let owner = record.owner {
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

    /// A value whose text is longer than `RecordLimit`; `record` names it when it is a
    /// post's.
    private func tooLong(record: String?, line: Int) -> InputError {
        InputError(
            "\(name):\(line)",
            (record.map { "the post \($0)" } ?? "a value") + " is longer than "
                + "\(RecordLimit.words), the most trove reads as one record")
    }

    // MARK: - A parsed tree

    /// Reads an export already parsed (`root`, an object), with the same parts, counts and
    /// refusals as `read()` gives for the tree's text on one line, without writing that
    /// text: a value whose text would be longer than `RecordLimit` is refused where the
    /// stream would take it whole (a record, a name, a scalar passed over).
    ///
    /// - Throws: `InputError`.
    func read(tree root: JSONValue) throws(InputError) {
        try forEachChild(of: root) { [self] key, value throws(InputError) in
            let mark = self.mark(key, in: 0)
            switch key.lowercased() {
            case "users":
                found = true
                try users(top: key, mark: mark, in: value)
            case "locations":
                found = true
                try locations(top: key, mark: mark, in: value)
            default:
                try checkLengths(in: value)
            }
        }
    }

    /// `users(top:mark:)` over a parsed value.
    private func users(top: String, mark topMark: Int, in value: JSONValue) throws(InputError) {
        try forEachChild(of: value) { [self] user, userValue throws(InputError) in
            let userMark = mark(user, in: topMark)
            guard case .object = userValue else {
                try checkLengths(in: userValue)
                return
            }
            try forEachChild(of: userValue, arrays: false) {
                [self] field, fieldValue throws(InputError) in
                let fieldMark = mark(field, in: userMark)
                guard field.lowercased() == "taggedlocations" else {
                    try countPrivate(field, fieldValue, depth: 0)
                    return
                }
                let shown = Privacy.pseudonymizeUser(user).user
                try forEachChild(of: fieldValue) { [self] id, record throws(InputError) in
                    let path = "\(top)/\(shown)/\(field)/\(id)"
                    try checkLength(ofRecord: record, path: path)
                    taggedLocation(
                        id, path: path, top: top, user: user, field: field,
                        marks: (topMark, userMark, fieldMark), record: record)
                }
            }
        }
    }

    /// `locations(top:mark:)` over a parsed value.
    private func locations(top: String, mark topMark: Int, in value: JSONValue)
        throws(InputError)
    {
        try forEachChild(of: value) { [self] id, record throws(InputError) in
            let path = "\(top)/\(id)"
            try checkLength(ofRecord: record, path: path)
            try location(id, path: path, top: top, mark: topMark, record: record)
        }
    }

    /// `countPrivate(_:depth:)` over a parsed value.
    private func countPrivate(_ field: String, _ value: JSONValue, depth: Int)
        throws(InputError)
    {
        if !counted(field), depth < FirebaseLimits.maximumDepth, case .object = value {
            try forEachChild(of: value, arrays: false) {
                [self] member, memberValue throws(InputError) in
                try countPrivate(member, memberValue, depth: depth + 1)
            }
            return
        }
        try checkLengths(in: value)
    }

    /// `forEachChild(arrays:_:)` over a parsed value: an object's members (their names
    /// checked first), an array's non-null items by index when `arrays`; any other value
    /// is passed over.
    private func forEachChild(
        of value: JSONValue, arrays: Bool = true,
        _ body: (String, JSONValue) throws(InputError) -> Void
    ) throws(InputError) {
        switch value {
        case .object(let members):
            for member in members {
                try checkLength(of: member.name)
                try body(member.name, member.value)
            }
        case .array(let items) where arrays:
            for (index, item) in items.enumerated() where item != .null {
                try body(String(index), item)
            }
        default:
            try checkLengths(in: value)
        }
    }

    /// Refuses a record whose text is longer than `RecordLimit`.
    private func checkLength(ofRecord record: JSONValue, path: String) throws(InputError) {
        if JSONTextLength.isLonger(record, than: RecordLimit.bytes) {
            throw tooLong(record: path, line: 1)
        }
    }

    /// Refuses a name whose text is longer than `RecordLimit`.
    private func checkLength(of name: String) throws(InputError) {
        if JSONTextLength.isLonger(.string(name), than: RecordLimit.bytes) {
            throw tooLong(record: nil, line: 1)
        }
    }

    /// Refuses the first name or scalar in `value` whose text is longer than
    /// `RecordLimit`, as `skip()` takes them one at a time.
    private func checkLengths(in value: JSONValue) throws(InputError) {
        switch value {
        case .object(let members):
            for member in members {
                try checkLength(of: member.name)
                try checkLengths(in: member.value)
            }
        case .array(let items):
            for item in items { try checkLengths(in: item) }
        case .string, .number:
            if JSONTextLength.isLonger(value, than: RecordLimit.bytes) {
                throw tooLong(record: nil, line: 1)
            }
        case .null, .bool:
            break
        }
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
        return try parse(stream.takeValue(), record: record)
    }

    /// A value taken from the stream, parsed.
    private func parse(_ taken: (bytes: [UInt8], line: Int, column: Int), record: String? = nil)
        throws(InputError) -> JSONValue
    {
        if stream.overLimit { throw tooLong(record: record, line: taken.line) }
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
        guard try next("the text ends inside an object") == UInt8(ascii: "\"") else {
            throw syntax("expected a member name in quotes")
        }
        let line = stream.line
        let column = stream.column
        let taken = stream.takeValue()
        // Most names are plain: no escape, no control character, valid UTF-8.
        let bytes = taken.bytes
        if !stream.overLimit, bytes.count >= 2, bytes.last == UInt8(ascii: "\""),
            !bytes.dropFirst().dropLast().contains(where: { $0 < 0x20 || $0 == 0x5C }),
            let name = String(validating: bytes.dropFirst().dropLast(), as: UTF8.self)
        {
            return name
        }
        guard case .string(let name) = try parse(taken) else {
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

/// The length in bytes of a value's compact JSON text (`jsonText`), without writing it.
enum JSONTextLength {
    /// Whether the text is longer than `limit`, measured exactly only when its most is.
    static func isLonger(_ value: JSONValue, than limit: Int) -> Bool {
        most(value) > limit && exact(value) > limit
    }

    /// At most the length: every string as if each byte took a six-byte escape.
    static func most(_ value: JSONValue) -> Int {
        switch value {
        case .null: return 4
        case .bool(let flag): return flag ? 4 : 5
        case .number(let text): return text.utf8.count
        case .string(let text): return 6 * text.utf8.count + 2
        case .array(let items): return items.reduce(max(2, items.count + 1)) { $0 + most($1) }
        case .object(let members):
            return members.reduce(max(2, members.count + 1)) {
                $0 + 6 * $1.name.utf8.count + 3 + most($1.value)
            }
        }
    }

    /// The exact length; strings that escape nothing are not written out.
    static func exact(_ value: JSONValue) -> Int {
        switch value {
        case .string(let text): return quoted(text)
        case .array(let items): return items.reduce(max(2, items.count + 1)) { $0 + exact($1) }
        case .object(let members):
            return members.reduce(max(2, members.count + 1)) {
                $0 + quoted($1.name) + 1 + exact($1.value)
            }
        default: return most(value)
        }
    }

    private static func quoted(_ text: String) -> Int {
        let count = text.utf8.count
        // Bytes below 0x80 other than controls, quotes and backslashes are written as they are.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }) {
            return count + 2
        }
        return JSONText.quoted(text).utf8.count
    }
}
