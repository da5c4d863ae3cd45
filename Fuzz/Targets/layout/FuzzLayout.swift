import FuzzSupport

@testable import TroveBase
@testable import TroveKit

// The layout parser: JSON text, path templates and placeholders, and the checks a layout
// gets before any record is looked at.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLayout(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    do throws(LayoutError) {
        let layout = try Layout(name: "fuzz.json", json: bytes)
        _ = layout.geoFireNodes
    } catch {
        _ = error.description
    }
    return 0
}

@main enum FuzzLayout {
    static func main() { runFuzzer(fuzzLayout) }
}
