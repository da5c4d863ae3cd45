import Foundation
import Testing

@testable import TroveBase

@Suite struct CSVReaderTests {
    let folder = TemporaryFolder()

    func records(
        _ text: String, encoding: TextEncoding = .utf8, delimiter: UInt8? = nil,
        chunkSize: Int = 1 << 20
    ) throws -> [CSVRecord] {
        let path = try folder.write(text, to: "data.csv")
        return try readCSV(path, encoding: encoding, delimiter: delimiter, chunkSize: chunkSize)
    }

    func fields(_ text: String, chunkSize: Int = 1 << 20) throws -> [[String]] {
        try records(text, chunkSize: chunkSize).map(\.fields)
    }

    // MARK: - RFC 4180

    static let cases: [(String, [[String]])] = [
        ("a,b,c\n1,2,3\n", [["a", "b", "c"], ["1", "2", "3"]]),
        ("a,b\n\"x,y\",z\n", [["a", "b"], ["x,y", "z"]]),
        ("a\n\"say \"\"hi\"\"\"\n", [["a"], ["say \"hi\""]]),
        ("a,b\n\"line 1\nline 2\",x\n", [["a", "b"], ["line 1\nline 2", "x"]]),
        ("a,b\r\n1,2\r\n", [["a", "b"], ["1", "2"]]),
        ("a,b\r1,2\r", [["a", "b"], ["1", "2"]]),
        ("a,b\n1,2", [["a", "b"], ["1", "2"]]),
        ("a,b\n1,2\n\n", [["a", "b"], ["1", "2"]]),
        ("a,b,c\n,,\n", [["a", "b", "c"], ["", "", ""]]),
        ("a,b\n\"\",\"\"\n", [["a", "b"], ["", ""]]),
        ("a,b\n1,\n", [["a", "b"], ["1", ""]]),
        ("\u{FEFF}name,lat\nx,1\n", [["name", "lat"], ["x", "1"]]),
        ("a\n\"\"\"\"\n", [["a"], ["\""]]),
        ("a,b\n\"ab\"c,d\n", [["a", "b"], ["abc", "d"]]),
        ("a,b\n\"x\r\ny\",z\r\n", [["a", "b"], ["x\r\ny", "z"]]),
        ("", []),
        ("\n\n", []),
        ("a, b ,c\n", [["a", " b ", "c"]]),
        ("héllo,wörld\n", [["héllo", "wörld"]]),
    ]

    @Test(arguments: cases)
    func readsRFC4180RecordsExactly(text: String, expected: [[String]]) throws {
        #expect(try fields(text) == expected)
    }

    @Test(arguments: cases)
    func readsTheSameWhateverTheChunkSize(text: String, expected: [[String]]) throws {
        for chunkSize in [1, 2, 3, 5, 7, 16] {
            #expect(try fields(text, chunkSize: chunkSize) == expected, "chunk \(chunkSize)")
        }
    }

    @Test func fieldsThatCrossChunkBoundariesAreWhole() throws {
        var text = "key,name,notes\n"
        var expected: [[String]] = [["key", "name", "notes"]]
        for row in 0..<200 {
            let notes = String(repeating: "ab,\"\n\r\n", count: row % 9)
            let quoted = "\"" + notes.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            text += "k\(row),Name \(row)," + quoted + (row % 2 == 0 ? "\r\n" : "\n")
            expected.append(["k\(row)", "Name \(row)", notes])
        }
        for chunkSize in [4, 13, 64, 1000] {
            #expect(try fields(text, chunkSize: chunkSize) == expected, "chunk \(chunkSize)")
        }
    }

    @Test func recordsCarryThePhysicalLineTheyStartOn() throws {
        let text = "a,b\n\n1,\"two\nlines\"\r\n3,4\r5,6\n"
        for chunkSize in [1, 3, 1 << 20] {
            let lines = try records(text, chunkSize: chunkSize).map(\.line)
            #expect(lines == [1, 3, 5, 6], "chunk \(chunkSize)")
        }
    }

    @Test func longFieldsGrowTheBuffer() throws {
        let long = String(repeating: "x", count: 10_000)
        #expect(
            try fields("a,b\n\(long),\"\(long)\"\n", chunkSize: 16) == [["a", "b"], [long, long]])
    }

    // MARK: - Delimiters

    @Test(arguments: [
        ("name;lat;lon\nx;1,5;2\n", UInt8(ascii: ";")),
        ("name\tlat\tlon\nx\t1\t2\n", UInt8(ascii: "\t")),
        ("name,lat,lon\nx,1,2\n", UInt8(ascii: ",")),
        ("\"a;b;c\",d,e\n", UInt8(ascii: ",")),
        ("single\nvalue\n", UInt8(ascii: ",")),
    ])
    func sniffsTheDelimiterFromTheHeader(text: String, delimiter: UInt8) throws {
        let path = try folder.write(text, to: "data.csv")
        let reader = try CSVReader(path: path)
        #expect(reader.delimiter == delimiter)
    }

    /// A quoted header name may hold a line break; the guess reads the whole first record
    /// however the file arrives (in small reads, as from a pipe), and only quotes that open
    /// a field (as the parser reads them) hide delimiters.
    @Test(arguments: [
        (
            "\"Treasure\nname\";lat;lon\n\"A\";1,5;2\n",
            [["Treasure\nname", "lat", "lon"], ["A", "1,5", "2"]]
        ),
        ("size 5\";lat;lon,x\nA;1;2,3\n", [["size 5\"", "lat", "lon,x"], ["A", "1", "2,3"]]),
        ("\u{FEFF}\"a\nb\"\tc\td;e\n1\t2\t3\n", [["a\nb", "c", "d;e"], ["1", "2", "3"]]),
    ])
    func sniffsTheWholeFirstRecordWhateverTheReadSize(text: String, expected: [[String]]) throws {
        for chunkSize in [1, 2, 3, 4, 7, 1 << 20] {
            #expect(try fields(text, chunkSize: chunkSize) == expected, "chunk \(chunkSize)")
        }
    }

    /// Excel's "Unicode Text": UTF-16 with a byte order mark, tab-separated; transcoded
    /// while read, whatever the read size (a surrogate pair may be split across reads).
    @Test(arguments: [false, true])
    func utf16WithAByteOrderMarkIsRead(bigEndian: Bool) throws {
        let text = "name\tCafé\r\n\"🌟 a\tb\"\tx\r\n"
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in text.utf16 {
            let pair = [UInt8(unit >> 8), UInt8(unit & 0xFF)]
            bytes += bigEndian ? pair : pair.reversed()
        }
        let path = try folder.write(bytes, to: "data.txt")
        for chunkSize in [1, 2, 3, 5, 1 << 20] {
            let read = try readCSV(path, chunkSize: chunkSize)
            #expect(
                read.map(\.fields) == [["name", "Café"], ["🌟 a\tb", "x"]], "chunk \(chunkSize)")
            #expect(read.map(\.line) == [1, 2])
        }
    }

    @Test func tsvExtensionMeansTab() throws {
        let path = try folder.write("a,b\tc\n1,2\t3\n", to: "data.tsv")
        var reader = try CSVReader(path: path)
        #expect(reader.delimiter == UInt8(ascii: "\t"))
        #expect(try reader.next()?.fields == ["a,b", "c"])
    }

    @Test func semicolonFilesKeepDecimalCommasInOneField() throws {
        #expect(
            try fields("lat;lon\n40,7128;-74,0060\n") == [
                ["lat", "lon"], ["40,7128", "-74,0060"],
            ])
    }

    // MARK: - Errors

    @Test func unterminatedQuoteNamesTheLineWhereItBegan() throws {
        for chunkSize in [2, 1 << 20] {
            let error = #expect(throws: CSVError.self) {
                try records("a,b\n1,2\n3,\"open\nstill open\n", chunkSize: chunkSize)
            }
            #expect(error?.reason == .unterminatedQuote)
            #expect(error?.line == 3)
            #expect(error?.code == DiagnosticCode.unterminatedQuote)
            #expect(error?.description.hasPrefix("data.csv:3: ") == true)
        }
    }

    @Test func invalidUTF8NamesTheLineAndSuggestsAnEncoding() throws {
        let path = try folder.write(
            Array("a,b\n1,2\n\"x\ny".utf8) + [0xE9] + Array("\",3\n".utf8), to: "bad.csv")
        let error = #expect(throws: CSVError.self) { try readCSV(path) }
        #expect(error?.reason == .invalidEncoding)
        #expect(error?.line == 4)
        #expect(error?.code == DiagnosticCode.invalidEncoding)
        #expect(error?.hint?.contains("--encoding cp1252") == true)
    }

    @Test(
        arguments: [
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xFF],
        ] as [[UInt8]])
    func malformedUTF8IsRefused(bytes: [UInt8]) throws {
        let path = try folder.write(Array("a\n".utf8) + bytes + [0x0A], to: "bad.csv")
        #expect(throws: CSVError.self) { try readCSV(path) }
    }

    @Test func missingFileIsUnreadable() throws {
        let error = #expect(throws: CSVError.self) {
            _ = try CSVReader(path: folder.url.appendingPathComponent("nope.csv").path)
        }
        guard case .unreadable? = error?.reason else {
            Issue.record("expected unreadable, got \(String(describing: error))")
            return
        }
    }

    // MARK: - Encodings

    @Test(arguments: [
        (TextEncoding.cp1252, [0x80, 0xE9, 0x93, 0x94] as [UInt8], "€é“”"),
        (TextEncoding.latin1, [0x80, 0xE9, 0xFC] as [UInt8], "\u{80}éü"),
        (TextEncoding.cp1252, [0x81, 0x9F] as [UInt8], "\u{81}Ÿ"),
    ])
    func transcodesSingleByteEncodings(encoding: TextEncoding, bytes: [UInt8], text: String) throws
    {
        let path = try folder.write(
            Array("name\n\"".utf8) + bytes + Array("\"\n".utf8), to: "w.csv")
        #expect(try readCSV(path, encoding: encoding).map(\.fields) == [["name"], [text]])
    }

    @Test func byteOrderMarkStaysInSingleByteEncodings() throws {
        let path = try folder.write([0xEF, 0xBB, 0xBF] + Array("a\n".utf8), to: "w.csv")
        #expect(try readCSV(path, encoding: .latin1).map(\.fields) == [["ï»¿a"]])
    }

    @Test(arguments: [
        ("utf8", TextEncoding.utf8), ("UTF-8", .utf8), ("cp1252", .cp1252),
        ("windows-1252", .cp1252), ("latin1", .latin1), ("ISO-8859-1", .latin1),
    ])
    func encodingNamesAreRecognised(name: String, encoding: TextEncoding) {
        #expect(TextEncoding(name: name) == encoding)
    }

    // MARK: - Standard input

    @Test func readsFromADescriptorSuchAsStandardInput() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let text = Array("name;lat;lon\nx;1;2\n".utf8)
        let written = text.withUnsafeBytes { Foundation.write(ends[1], $0.baseAddress, $0.count) }
        #expect(written == text.count)
        close(ends[1])
        var reader = try CSVReader(
            fileDescriptor: ends[0], closesDescriptor: true, displayPath: "<stdin>",
            encoding: .utf8, delimiter: nil)
        #expect(reader.delimiter == UInt8(ascii: ";"))
        #expect(try reader.next()?.fields == ["name", "lat", "lon"])
        #expect(try reader.next()?.fields == ["x", "1", "2"])
        #expect(try reader.next() == nil)
    }

    /// Every CSV output's one rule: a field that holds a delimiter, a quote or a line
    /// break (a lone LF too), or has surrounding spaces, is quoted, and reads back as
    /// written.
    @Test func csvWriterFieldsReadBackExactly() throws {
        let fields = [
            "plain", "a,b", "semi;colon", "tab\there", "say \"hi\"", "multi\nline", "cr\rlf",
            "crlf\r\nend", " lead", "trail ", "",
        ]
        #expect(CSVWriter.field("multi\nline") == "\"multi\nline\"")
        #expect(CSVWriter.field("plain") == "plain")
        let text = CSVWriter.record(fields) + CSVWriter.record(["x", "y"])
        #expect(text.hasSuffix("\r\nx,y\r\n"))
        #expect(try self.fields(text) == [fields, ["x", "y"]])
    }
}
