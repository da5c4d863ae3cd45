import Testing

@testable import TroveCLI
@testable import TroveCommandLine

@Suite struct ParserTests {
    let parser = Parser(root: TroveCLI.root)

    @Test func findsNestedSubcommandsAndOptions() throws {
        let parsed = try parser.parse(["config", "set", "storage.bucket", "b.appspot.com", "-q"])
        #expect(parsed.path == ["config", "set"])
        #expect(parsed.arguments["key"] == ["storage.bucket"])
        #expect(parsed.arguments["value"] == ["b.appspot.com"])
        #expect(parsed.flags.contains("quiet"))
    }

    @Test func acceptsGlobalOptionsBeforeTheCommand() throws {
        let parsed = try parser.parse(["-w", "other.sqlite", "status", "--format=json"])
        #expect(parsed.path == ["status"])
        #expect(parsed.values["workspace"] == ["other.sqlite"])
        #expect(parsed.values["format"] == ["json"])
    }

    @Test(arguments: [
        (["statsu"], "unknown command 'statsu' (did you mean 'status'?)"),
        (
            ["geohash", "--precison", "3"],
            "unknown option '--precison' (did you mean '--precision'?)"
        ),
        (["geohash", "--precision"], "option '--precision' needs a value <n>"),
        (["config", "set", "storage.bucket"], "missing argument <value>"),
        (["status", "extra"], "unexpected argument 'extra'"),
        (["status", "--format", "xml"], "unknown format 'xml' (use text, json)"),
        (["config"], "missing command (one of: set, get, list, unset)"),
    ])
    func reportsUsageErrors(arguments: [String], message: String) {
        #expect(throws: UsageError.self) { try parser.parse(arguments) }
        do {
            _ = try parser.parse(arguments)
        } catch {
            #expect(error.message == message)
        }
    }

    @Test func negativeNumbersAreArgumentsNotOptions() throws {
        let latitude = Argument<Double>("lat", help: "")
        let longitude = Argument<Double>("lon", help: "")
        let command = Command(
            "near", abstract: "", arguments: [latitude, longitude], run: { _ in .success })
        let parsed = try Parser(root: command).parse(["40.7", "-74.01"])
        #expect(parsed[longitude] == -74.01)
    }

    @Test func suggestsOnlyCloseNames() {
        #expect(suggestion(for: "imprt", among: ["import", "init"]) == " (did you mean 'import'?)")
        #expect(suggestion(for: "zebra", among: ["import", "init"]) == "")
    }
}
