import Foundation
import FuzzDriver

/// A fuzz target's test: called with each input; returns 0 (or -1 to keep the input out
/// of the corpus).
public typealias FuzzTest = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

/// Runs libFuzzer over `test` with the process's arguments (libFuzzer's options, corpus
/// folders or input files) and exits with libFuzzer's status.
public func runFuzzer(_ test: FuzzTest) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, test))
}

/// Bytes of one fuzz input as an open file, for readers that take a descriptor.
///
/// One unlinked temporary file is reused for every input (truncated, rewritten, rewound),
/// so an input costs three system calls and leaves nothing on disk.
public enum FuzzFile {
    nonisolated(unsafe) private static var descriptor: Int32 = -1

    /// A descriptor positioned at the start of a file holding exactly `bytes`. Valid until
    /// the next call; do not close it.
    public static func descriptor(holding bytes: UnsafeRawBufferPointer) -> Int32 {
        if descriptor < 0 {
            var template = Array("/tmp/trove-fuzz-XXXXXX".utf8CString)
            descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            precondition(descriptor >= 0, "cannot create a temporary file")
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
        precondition(ftruncate(descriptor, 0) == 0)
        var written = 0
        while written < bytes.count {
            let count = pwrite(
                descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(written))
            precondition(count > 0, "cannot write the temporary file")
            written += count
        }
        precondition(lseek(descriptor, 0, SEEK_SET) == 0)
        return descriptor
    }
}

/// The input as bytes; an empty input has no base address.
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}
