import Foundation
import Testing

@testable import TroveBase
@_spi(Testing) @testable import TroveKit

/// One rule for every input file, whichever command reads it: a FIFO, a device or a socket
/// is refused at once (exit 3), and a record longer than the cap (10 MB: a CSV row, a line
/// of newline-delimited JSON, a GeoJSON feature) is an error naming the file and line,
/// read in bounded memory.
@Suite struct InputKindsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        #expect(sandbox.run("init").status == 0)
    }

    static let commands: [[String]] = [
        ["import", "treasures"], ["validate"], ["import", "posts"],
    ]

    /// A FIFO no one writes to: reading it would wait for ever.
    @Test(arguments: commands)
    func aFIFOIsRefusedAtOnce(command: [String]) throws {
        let name = command.last == "posts" ? "pipe.json" : "pipe.csv"
        #expect(mkfifo(sandbox.path(name), 0o600) == 0)
        let outcome = try TroveProcess.run(
            command + [name], in: sandbox.folder.path, patience: 60)
        #expect(!outcome.hung, "still waiting on the FIFO after \(outcome.seconds) s")
        #expect(outcome.status == 3, "\(outcome.stderr)")
        let said = outcome.stderr + outcome.stdout
        #expect(said.contains("\(name):"), "\(said)")
        #expect(said.contains("cannot read the file: it is a FIFO"), "\(said)")
    }

    @Test(arguments: commands)
    func aDeviceIsRefusedAtOnce(command: [String]) throws {
        let result = sandbox.run(command + ["/dev/zero"])
        let said = result.stderr + result.stdout
        #expect(result.status == 3, "\(said)")
        #expect(said.contains("/dev/zero:"), "\(said)")
        #expect(said.contains("cannot read the file: it is a device"), "\(said)")
    }

    /// A 200 MB row on one line, under 400 MB of address space.
    @Test(arguments: commands)
    func aRowOverTheCapIsAnErrorNamingItsLine(command: [String]) throws {
        let path = sandbox.path("long.csv")
        if !FileManager.default.fileExists(atPath: path) {
            FileManager.default.createFile(atPath: path, contents: nil)
            let handle = try #require(FileHandle(forWritingAtPath: path))
            handle.write(Data("id,name,lat,lon\nx,".utf8))
            let chunk = Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
            for _ in 0..<200 { handle.write(chunk) }
            handle.write(Data(",1,2\n".utf8))
            try handle.close()
        }
        let outcome = try TroveProcess.run(
            command + ["long.csv"], in: sandbox.folder.path, addressSpaceKiB: 400_000)
        #expect(!outcome.signalled && !outcome.hung, "\(outcome.stderr)")
        #expect(outcome.status == 3, "\(outcome.stderr)")
        let said = outcome.stderr + outcome.stdout
        #expect(said.contains("long.csv:2:"), "\(said)")
        #expect(said.contains("the row is longer than 10 MB"), "\(said)")
    }

    @Test func aFeatureOverTheCapNamesItsLine() throws {
        let long = String(repeating: "d", count: 11 << 20)
        try sandbox.write(
            "f.geojson",
            "{\"type\": \"FeatureCollection\", \"features\": [\n"
                + "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": "
                + "[2, 48]}, \"properties\": {\"name\": \"A\"}},\n"
                + "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Point\", \"coordinates\": "
                + "[2, 48]}, \"properties\": {\"name\": \"\(long)\"}}]}\n")
        for command in [["import", "treasures"], ["validate"]] {
            let result = sandbox.run(command + ["f.geojson"])
            #expect(result.status == 3, "\(result.stderr)\(result.stdout)")
            #expect(
                (result.stderr + result.stdout).contains("f.geojson:3:"),
                "\(result.stderr)\(result.stdout)")
            #expect((result.stderr + result.stdout).contains("longer than 10 MB"))
        }
    }
}
