import Foundation
import Testing
import TroveImaging

/// Photos for post tests, built in code: JPEGs with optional EXIF GPS.
enum PostPhotos {
    /// A textured picture that differs with `seed`.
    static func bitmap(width: Int, height: Int, seed: Int) -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let s = Double(seed)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x) / Double(width)
                let fy = Double(y) / Double(height)
                let index = (y * width + x) * 3
                pixels[index] = byte(128 + 100 * sin(fx * (5 + s) + s))
                pixels[index + 1] = byte(128 + 90 * cos(fy * (4 + s * 1.7)))
                pixels[index + 2] = byte(60 + 150 * fy * fx + 20 * sin(s))
            }
        }
        return Bitmap(width: width, height: height, channels: 3, pixels: pixels)
    }

    private static func byte(_ value: Double) -> UInt8 {
        UInt8(max(0, min(255, value.rounded())))
    }

    /// A JPEG, with an EXIF GPS position when `gps` is given.
    static func jpeg(
        width: Int = 400, height: Int = 300, seed: Int = 1, gps: (Double, Double)? = nil
    ) throws -> Data {
        let plain = try JPEG.encode(bitmap(width: width, height: height, seed: seed), quality: 85)
        guard let gps else { return Data(plain) }
        let payload = Array("Exif".utf8) + [0, 0] + tiff(latitude: gps.0, longitude: gps.1)
        let length = payload.count + 2
        let segment = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return Data(Array(plain[0..<2]) + segment + Array(plain[2...]))
    }

    /// A little-endian TIFF block: IFD0 pointing to a GPS IFD with the four position tags.
    static func tiff(latitude: Double, longitude: Double) -> [UInt8] {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> ($0 * 8) & 0xFF) } }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            le16(tag) + le16(type) + le32(count) + value
                + [UInt8](repeating: 0, count: 4 - value.count)
        }
        func dms(_ value: Double) -> [UInt8] {
            let degrees = Int(value)
            let minutes = Int((value - Double(degrees)) * 60)
            let seconds = ((value - Double(degrees)) * 60 - Double(minutes)) * 60
            return le32(degrees) + le32(1) + le32(minutes) + le32(1)
                + le32(Int((seconds * 10000).rounded())) + le32(10000)
        }
        var block: [UInt8] = [0x49, 0x49, 42, 0] + le32(8)
        block += le16(1) + entry(0x8825, 4, 1, le32(26)) + le32(0)  // IFD0 → GPS IFD at 26
        block += le16(4)
        block += entry(1, 2, 2, Array((latitude < 0 ? "S" : "N").utf8) + [0])
        block += entry(2, 5, 3, le32(80))
        block += entry(3, 2, 2, Array((longitude < 0 ? "W" : "E").utf8) + [0])
        block += entry(4, 5, 3, le32(104))
        block += le32(0)
        block += dms(abs(latitude)) + dms(abs(longitude))
        return block
    }
}

/// The built `trove` binary, for tests that need real processes.
enum BuiltBinary {
    static var path: String {
        // Tests/TroveCLITests/PostFixtures.swift → the package root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/trove").path
    }

    /// Fails the calling test when the binary has not been built: a missing binary must
    /// not pass for a skipped, and so silently green, process test.
    static func require() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: path),
            "no trove binary at \(path): run 'swift build' (make test does) before 'swift test'")
    }

    /// Runs the binary to completion; the pipes are read before waiting.
    static func run(
        _ arguments: [String], environment: [String: String], directory: String,
        executable: String = path
    ) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
