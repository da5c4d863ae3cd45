import CZlib

/// Blobs the workspace keeps compressed: a publish plan's update bodies are JSON that
/// deflate about fourfold, and a first publish writes each of them twice (the write-ahead
/// log, then the database) before it sends them once.
///
/// A compressed blob is a 0x01 byte, the length as 8 bytes little-endian, then a zlib
/// stream. No JSON text starts with 0x01, so bodies stored before compression read as
/// they are.
package enum CompressedBlob {
    private static let marker: UInt8 = 0x01
    /// Below this, the header and zlib's own costs outweigh what deflate saves.
    private static let smallest = 256

    /// `bytes` compressed (zlib's fastest level), or as they are when small or when
    /// deflate does not make them smaller.
    package static func pack(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= smallest else { return bytes }
        var capacity = compressBound(uLong(bytes.count))
        var packed = [UInt8](repeating: 0, count: 9 + Int(capacity))
        packed[0] = marker
        withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { length in
            for index in 0..<8 { packed[1 + index] = length[index] }
        }
        let status = packed.withUnsafeMutableBufferPointer { target in
            bytes.withUnsafeBufferPointer { source in
                compress2(
                    target.baseAddress! + 9, &capacity, source.baseAddress, uLong(source.count), 1)
            }
        }
        guard status == Z_OK, 9 + Int(capacity) < bytes.count else { return bytes }
        packed.removeSubrange((9 + Int(capacity))...)
        return packed
    }

    /// The bytes `pack` was given; nil when a compressed blob is damaged.
    package static func unpack(_ blob: [UInt8]) -> [UInt8]? {
        guard blob.first == marker else { return blob }
        guard blob.count > 9 else { return nil }
        var length: UInt64 = 0
        for index in (1...8).reversed() { length = length << 8 | UInt64(blob[index]) }
        guard length > 0, length <= UInt64(Int32.max) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        var written = uLongf(length)
        let status = bytes.withUnsafeMutableBufferPointer { target in
            blob.withUnsafeBufferPointer { source in
                uncompress(
                    target.baseAddress, &written, source.baseAddress! + 9, uLong(source.count - 9))
            }
        }
        guard status == Z_OK, written == uLongf(length) else { return nil }
        return bytes
    }
}
