import FuzzSupport

@testable import TroveBase
@testable import TroveKit

// The GeoJSON reader: FeatureCollections, single Features and newline-delimited Features,
// through the treasure rows they become (and their diagnostics' text).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeoJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    bytes.withUnsafeBytes { file in
        do throws(TreasureFileError) {
            var reader = try TreasureReader(
                fileDescriptor: FuzzFile.descriptor(holding: file), format: .geojson,
                displayPath: "fuzz.geojson")
            while let row = try reader.next() {
                if case .invalid(let diagnostic) = row { _ = diagnostic.compilerStyle }
            }
        } catch {
            _ = error.description
        }
    }
    return 0
}

@main enum FuzzGeoJSON {
    static func main() { runFuzzer(fuzzGeoJSON) }
}
