import FuzzSupport

@testable import TroveBase
@testable import TroveKit

// The CSV reader (records) and the treasure rows made from them. The first byte picks the
// encoding and a small chunk size; the rest is the file. Besides not crashing, reading in
// small chunks must give exactly what reading in one chunk gives: fields and line breaks
// crossing a chunk boundary are where streaming readers go wrong.

private func records(
    _ file: UnsafeRawBufferPointer, encoding: TextEncoding, chunkSize: Int
) -> Result<[CSVRecord], CSVError> {
    do throws(CSVError) {
        var reader = try CSVReader(
            fileDescriptor: FuzzFile.descriptor(holding: file), closesDescriptor: false,
            displayPath: "fuzz.csv", encoding: encoding, delimiter: nil, chunkSize: chunkSize)
        var all: [CSVRecord] = []
        while let record = try reader.next() { all.append(record) }
        return .success(all)
    } catch {
        return .failure(error)
    }
}

private func treasures(_ file: UnsafeRawBufferPointer, encoding: TextEncoding) {
    do throws(TreasureFileError) {
        var reader = try TreasureReader(
            fileDescriptor: FuzzFile.descriptor(holding: file), format: .csv,
            displayPath: "fuzz.csv", encoding: encoding)
        _ = reader.extraColumns
        while let row = try reader.next() {
            if case .invalid(let diagnostic) = row { _ = diagnostic.compilerStyle }
        }
    } catch {
        _ = error.description
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    guard let mode = bytes.first else { return 0 }
    let encodings = TextEncoding.allCases
    let encoding = encodings[Int(mode) % encodings.count]
    let chunkSize = [1, 2, 3, 7, 64][Int(mode >> 4) % 5]
    let file = Array(bytes.dropFirst())
    file.withUnsafeBytes { file in
        let whole = records(file, encoding: encoding, chunkSize: 1 << 17)
        let chunked = records(file, encoding: encoding, chunkSize: chunkSize)
        if whole != chunked {
            fatalError("chunk size \(chunkSize) reads \(chunked), one chunk reads \(whole)")
        }
        treasures(file, encoding: encoding)
    }
    return 0
}

@main enum FuzzCSV {
    static func main() { runFuzzer(fuzzCSV) }
}
