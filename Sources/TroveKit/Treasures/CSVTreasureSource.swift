import TroveBase
import TroveStore

/// Maps CSV records to treasures by their header.
struct CSVTreasureSource {
    private var csv: CSVReader
    let header: [String]
    let extras: [Int]
    /// The name each extra column is stored under, by position in `extras`: as the header
    /// names it, made unique (see `uniqueNames`).
    let extraNames: [String]
    // Column indexes, looked up once rather than per row.
    private let keyIndex: Int?
    private let nameIndex: Int
    private let latitudeIndex: Int
    private let longitudeIndex: Int
    private let imageIndex: Int?
    private let descriptionIndex: Int?
    let decimalComma: Bool
    /// Read the `lat` column as the longitude and `lon` as the latitude.
    var swapCoordinates = false
    /// Records of only delimiters read so far, skipped as blank lines are.
    private(set) var blankRecords = 0

    package init(_ csv: CSVReader) throws(TreasureFileError) {
        var csv = csv
        let file = csv.displayPath
        let first: CSVRecord?
        do throws(CSVError) {
            first = try csv.next()
        } catch {
            throw TreasureFileError(error)
        }
        guard let first else {
            throw TreasureFileError(
                code: DiagnosticCode.missingColumn,
                message: "the file is empty; it needs a header with name, lat and lon columns",
                location: .init(file: file, line: 1))
        }
        let (columns, extras) = TreasureField.match(first.fields)
        // Every missing column at once, so one edit of the header fixes them all.
        guard let name = columns[.name], let latitude = columns[.latitude],
            let longitude = columns[.longitude]
        else {
            let missing = [TreasureField.name, .latitude, .longitude].filter { columns[$0] == nil }
            // A header can be long: the message names its first fields.
            var found = first.fields.prefix(20).map { "'\(TreasureCheck.shown($0))'" }
                .joined(separator: ", ")
            if first.fields.count > 20 { found += " and \(first.fields.count - 20) more" }
            let labels = missing.map { "'\($0.label)'" }
            let list =
                labels.count == 1
                ? labels[0] : labels.dropLast().joined(separator: ", ") + " and " + labels.last!
            let names = missing.map { field in
                field.names.map { "'\($0)'" }.joined(separator: " or ")
            }
            throw TreasureFileError(
                code: DiagnosticCode.missingColumn,
                message:
                    "there \(missing.count == 1 ? "is no \(list) column" : "are no \(list) columns"); "
                    + "the header has \(found)",
                location: .init(file: file, line: first.line),
                hint: "name \(missing.count == 1 ? "it" : "them") \(names.joined(separator: "; "))")
        }
        nameIndex = name
        latitudeIndex = latitude
        longitudeIndex = longitude
        keyIndex = columns[.key]
        imageIndex = columns[.image]
        descriptionIndex = columns[.description]
        self.csv = csv
        self.header = first.fields
        self.extras = extras
        let unique = Self.uniqueNames(first.fields)
        self.extraNames = extras.map { unique[$0] }
        // Wherever the comma is not the delimiter (semicolon and tab files, as European
        // spreadsheets save them), it is free to be the decimal separator.
        self.decimalComma = csv.delimiter != UInt8(ascii: ",")
    }

    /// Header names made unique, as csvkit does: an empty name becomes `column_N` (its
    /// 1-based position; spreadsheets write trailing delimiters), a repeated name gets
    /// `_2`, `_3`… on its second, third… use (skipping names the header already has), so
    /// that no column's values are lost or mixed with another's.
    static func uniqueNames(_ header: [String]) -> [String] {
        var taken = Set(header.filter { !$0.isEmpty })
        var seen: Set<String> = []
        var names: [String] = []
        for (index, name) in header.enumerated() {
            var base = name
            if name.isEmpty {
                base = "column_\(index + 1)"
                if !taken.contains(base) {
                    taken.insert(base)
                    names.append(base)
                    continue
                }
            } else if !seen.contains(name) {
                seen.insert(name)
                names.append(name)
                continue
            }
            var counter = 2
            while taken.contains("\(base)_\(counter)") { counter += 1 }
            let unique = "\(base)_\(counter)"
            taken.insert(unique)
            names.append(unique)
        }
        return names
    }

    package mutating func next() throws(TreasureFileError) -> TreasureRow? {
        while true {
            let record: CSVRecord?
            do throws(CSVError) {
                record = try csv.next()
            } catch {
                throw TreasureFileError(error)
            }
            guard let record else { return nil }
            // A row of only delimiters, as spreadsheets write below the data: a blank line.
            if record.fields.allSatisfy(\.isEmpty) {
                blankRecords += 1
                continue
            }
            return row(record)
        }
    }

    private func row(_ record: CSVRecord) -> TreasureRow {
        var location = Diagnostic.Location(file: csv.displayPath, line: record.line)
        let fields = record.fields
        func invalid(_ problem: TreasureCheck.Problem, column: Int?) -> TreasureRow {
            var place = location
            place.column = column.map { $0 + 1 }
            return .invalid(
                Diagnostic(.error, problem.code, problem.message, at: place, hint: problem.hint))
        }
        guard fields.count == header.count else {
            let problem = TreasureCheck.Problem(
                code: DiagnosticCode.raggedRow,
                message:
                    "row has \(fields.count) field\(fields.count == 1 ? "" : "s"), the header has \(header.count)",
                hint: "a field that contains the delimiter must be quoted")
            return invalid(problem, column: nil)
        }

        var key: String?
        if let keyIndex, !fields[keyIndex].isEmpty {
            key = fields[keyIndex]
            location.key = key
            do throws(TreasureCheck.Problem) {
                try TreasureCheck.key(fields[keyIndex])
            } catch {
                return invalid(error, column: keyIndex)
            }
        }
        let name = fields[nameIndex]
        guard !name.isEmpty else {
            return invalid(
                .init(code: DiagnosticCode.missingName, message: "the name is empty"),
                column: nameIndex)
        }
        let latitude: Double
        let longitude: Double
        let (latitudeIndex, longitudeIndex) =
            swapCoordinates
            ? (self.longitudeIndex, self.latitudeIndex) : (self.latitudeIndex, self.longitudeIndex)
        do throws(TreasureCheck.Problem) {
            latitude = try TreasureCheck.coordinate(
                fields[latitudeIndex], axis: "latitude", decimalComma: decimalComma)
            try TreasureCheck.latitude(latitude, text: fields[latitudeIndex])
        } catch {
            return invalid(error, column: latitudeIndex)
        }
        do throws(TreasureCheck.Problem) {
            longitude = try TreasureCheck.coordinate(
                fields[longitudeIndex], axis: "longitude", decimalComma: decimalComma)
            try TreasureCheck.longitude(longitude, text: fields[longitudeIndex])
        } catch {
            return invalid(error, column: longitudeIndex)
        }
        let image = imageIndex.flatMap { fields[$0].isEmpty ? nil : fields[$0] }
        let description = descriptionIndex.flatMap { fields[$0].isEmpty ? nil : fields[$0] }
        return .treasure(
            TreasureInput(
                key: key, name: name, latitude: latitude, longitude: longitude, image: image,
                description: description,
                extra: extras.indices.map {
                    ExtraField(name: extraNames[$0], value: fields[extras[$0]])
                },
                location: location))
    }
}
