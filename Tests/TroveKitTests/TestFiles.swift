import Foundation

@testable import TroveBase
@testable import TroveKit
@testable import TroveStore

/// A folder of its own for one test, removed when the test is done with it.
final class TemporaryFolder {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "trove-tests-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes bytes to a file in the folder and returns its path.
    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Writes UTF-8 text to a file in the folder and returns its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        try write(Array(text.utf8), to: name)
    }
}

/// Every record of a CSV file, read with the given chunk size.
func readCSV(
    _ path: String, encoding: TextEncoding = .utf8, delimiter: UInt8? = nil,
    chunkSize: Int = 1 << 20
) throws -> [CSVRecord] {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { throw CSVError(.unreadable("open failed"), file: path) }
    var reader = try CSVReader(
        fileDescriptor: descriptor, closesDescriptor: true, displayPath: "data.csv",
        encoding: encoding, delimiter: delimiter, chunkSize: chunkSize)
    var records: [CSVRecord] = []
    while let record = try reader.next() { records.append(record) }
    return records
}

/// Every row of a treasure file.
func readTreasures(
    _ path: String, displayPath: String? = nil, format: TreasureFormat? = nil,
    encoding: TextEncoding = .utf8
) throws -> [TreasureRow] {
    var reader = try TreasureReader(
        path: path, displayPath: displayPath, format: format, encoding: encoding)
    var rows: [TreasureRow] = []
    while let row = try reader.next() { rows.append(row) }
    return rows
}

extension TreasureRow {
    var treasure: TreasureInput? {
        if case .treasure(let input) = self { return input }
        return nil
    }

    var diagnostic: Diagnostic? {
        if case .invalid(let diagnostic) = self { return diagnostic }
        return nil
    }
}
