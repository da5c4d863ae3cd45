import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit

/// Malformed input of every sort must end in rows, diagnostics or a thrown file error,
/// never in a crash.
@Suite struct RobustnessTests {
    let folder = TemporaryFolder()

    static let csvAlphabet: [UInt8] =
        Array("\",;\t\r\n a1.-eE".utf8) + [0xE9, 0xC3, 0xA9, 0xEF, 0xBB, 0xBF, 0x00]
    static let jsonAlphabet: [UInt8] =
        Array("{}[]\":,\n 0123456789.-eE\\utrflnasFPoyipe".utf8) + [0xE9, 0x00]

    /// Reads everything, and returns how the reading ended.
    func drain(_ path: String, format: TreasureFormat, encoding: TextEncoding) -> String {
        do throws(TreasureFileError) {
            var reader = try TreasureReader(path: path, format: format, encoding: encoding)
            var rows = 0
            while try reader.next() != nil { rows += 1 }
            return "rows \(rows)"
        } catch {
            return error.code ?? "unreadable"
        }
    }

    @Test(arguments: [TreasureFormat.csv, .geojson])
    func randomBytesNeverCrash(format: TreasureFormat) throws {
        var random = SeededGenerator(state: format == .csv ? 1 : 2)
        let alphabet = format == .csv ? Self.csvAlphabet : Self.jsonAlphabet
        let header = Array((format == .csv ? "name,lat,lon\n" : "").utf8)
        for round in 0..<400 {
            let count = Int.random(in: 0...200, using: &random)
            let bytes = (0..<count).map { _ in alphabet.randomElement(using: &random) ?? 0 }
            let path = try folder.write(header + bytes, to: "fuzz-\(round)")
            for encoding in [TextEncoding.utf8, .cp1252] {
                let outcome = drain(path, format: format, encoding: encoding)
                #expect(!outcome.isEmpty)
            }
        }
    }

    @Test func mutatedValidFilesNeverCrash() throws {
        var random = SeededGenerator(state: 3)
        let csv = Array(
            "key,name,lat,lon,image\n1,\"A, \"\"b\"\"\",40.7,-74.0,a.png\n2,B,1,2,\n".utf8)
        let json = Array(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[1,2]},"properties":{"name":"A"}}]}"#
                .utf8)
        for round in 0..<300 {
            for (base, format) in [(csv, TreasureFormat.csv), (json, .geojson)] {
                var bytes = base
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let index = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: bytes.remove(at: index)
                    case 1:
                        bytes.insert(
                            bytes[Int.random(in: 0..<bytes.count, using: &random)], at: index)
                    default: bytes[index] = UInt8.random(in: 0...255, using: &random)
                    }
                }
                let path = try folder.write(bytes, to: "mutant-\(round)")
                #expect(!drain(path, format: format, encoding: .utf8).isEmpty)
            }
        }
    }
}
