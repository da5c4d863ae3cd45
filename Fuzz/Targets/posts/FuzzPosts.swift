import Foundation
import FuzzSupport

@testable import TroveKit

// The three posts readers on every input: a Realtime Database export (JSON tree),
// newline-delimited JSON and CSV. Each either reads posts or throws an InputError.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPosts(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    do throws(InputError) {
        _ = try PostReader.readJSON(Data(bytes), name: "fuzz.json")
    } catch {
        _ = error.description
    }
    do throws(InputError) {
        _ = try PostReader.readLines(bytes, name: "fuzz.ndjson")
    } catch {
        _ = error.description
    }
    do throws(InputError) {
        _ = try PostReader.readCSV(bytes, name: "fuzz.csv")
    } catch {
        _ = error.description
    }
    return 0
}

@main enum FuzzPosts {
    static func main() { runFuzzer(fuzzPosts) }
}
