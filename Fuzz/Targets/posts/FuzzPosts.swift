import Foundation
import FuzzSupport
import TroveStore

@testable import TroveBase
@testable import TroveKit

// The three posts readers on every input: a Realtime Database export (JSON tree),
// newline-delimited JSON and CSV, also setting invalid records aside as --skip-invalid
// does. Each either reads posts or throws an InputError. The readers stream: the export
// and the lines are read again from a stream that hands out 1 to 64 bytes at a time (the
// first byte says how many), and must read exactly as from memory, where values and lines
// cross a read's boundary. Fuzz/run runs this target under a memory limit.

/// What a read gave, comparable.
private struct Read: Equatable {
    var posts: [PostInput] = []
    var rejects: [PostReject] = []
    var dropped: [Int] = []
    var error: String?

    init(_ read: () throws(InputError) -> PostFile) {
        do throws(InputError) {
            let file = try read()
            posts = file.posts
            rejects = file.rejects
            dropped = [file.droppedPasswords, file.droppedEmails, file.droppedNames]
            _ = PostRejects.csv(file.rejects)
        } catch {
            self.error = error.description
        }
    }
}

/// A stream of `bytes` whose reads return at most `piece` bytes.
private func pieces(_ bytes: [UInt8], _ piece: Int) -> JSONStream {
    var offset = 0
    return JSONStream { target, count in
        let got = min(count, piece, bytes.count - offset)
        bytes.withUnsafeBytes {
            target.copyMemory(from: $0.baseAddress! + offset, byteCount: got)
        }
        offset += got
        return got
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPosts(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = fuzzBytes(data, size)
    let piece = [1, 2, 3, 7, 64][Int(bytes.first ?? 0) % 5]
    // A file refused from its first bytes is never streamed.
    let text = (try? PostReader.refuseBinary(Array(bytes.prefix(512)), name: "fuzz")) != nil
    for skipInvalid in [false, true] {
        let export = Read { () throws(InputError) in
            try PostReader.readJSON(Data(bytes), name: "fuzz.json", skipInvalid: skipInvalid)
        }
        if text {
            let streamed = Read { () throws(InputError) in
                try PostReader.readJSON(
                    { pieces(bytes, piece) }, name: "fuzz.json", skipInvalid: skipInvalid)
            }
            if streamed != export {
                fatalError("read \(piece) bytes at a time: \(streamed); at once: \(export)")
            }
        }
        let lines = Read { () throws(InputError) in
            try PostReader.readLines(bytes, name: "fuzz.ndjson", skipInvalid: skipInvalid)
        }
        if text {
            let streamed = Read { () throws(InputError) in
                try PostReader.readLines(
                    pieces(bytes, piece), name: "fuzz.ndjson", skipInvalid: skipInvalid)
            }
            if streamed != lines {
                fatalError("read \(piece) bytes at a time: \(streamed); at once: \(lines)")
            }
        }
        _ = Read { () throws(InputError) in
            try PostReader.readCSV(bytes, name: "fuzz.csv", skipInvalid: skipInvalid)
        }
    }
    return 0
}

@main enum FuzzPosts {
    static func main() { runFuzzer(fuzzPosts) }
}
