import Foundation
import FuzzSupport

@testable import TroveBase
@testable import TroveKit

// The three posts readers on every input: a Realtime Database export (JSON tree),
// newline-delimited JSON and CSV, also setting invalid records aside as --skip-invalid
// does. Each either reads posts or throws an InputError.

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
    do throws(InputError) {
        let lenient = try PostReader.readJSON(Data(bytes), name: "fuzz.json", skipInvalid: true)
        _ = PostRejects.csv(lenient.rejects)
        _ = try PostReader.readCSV(bytes, name: "fuzz.csv", skipInvalid: true)
        _ = try PostReader.readLines(bytes, name: "fuzz.ndjson", skipInvalid: true)
    } catch {
        _ = error.description
    }
    return 0
}

@main enum FuzzPosts {
    static func main() { runFuzzer(fuzzPosts) }
}
