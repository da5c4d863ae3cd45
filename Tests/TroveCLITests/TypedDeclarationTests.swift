import Foundation
import Testing

@testable import TroveCLI
@testable import TroveCommandLine

/// The typed declarations: what a command declares is what help shows, what the parser
/// accepts and what the command reads, converted.
@Suite struct TypedDeclarationTests {
    enum Shape: String, CaseIterable, CommandLineValue {
        case fit
        case cover
    }

    static let file = Argument<String>("file", help: "The file to read.")
    static let scale = Argument<Double>("scale", help: "How much.").optional
    static let more = Argument<String>("more", help: "More files.").variadic(minimum: 0)
    static let count = Option<Int>("count", value: "n", help: "How many.")
    static let jobs = Option<Int>(
        "jobs", short: "j", value: "n", help: "Worker threads.",
        expected: "a whole number from 1 to 256"
    ) { Int($0).flatMap { (1...256).contains($0) ? $0 : nil } }
    static let shape = Option<Shape>("shape", value: "shape", help: "How to fit.")
    static let tags = Option<String>("tag", value: "tag", help: "A tag.").repeated
    static let sizes = Option<Int>("size", value: "px", help: "A size.").repeated
    static let force = Flag("force", help: "Replace what is there.")

    static let command = Command(
        "try", abstract: "A command to try the declarations on.",
        arguments: [file, scale, more], options: [count, jobs, shape, tags, sizes, force],
        usesWorkspace: false, run: { _ in .success })
    static let layout = Option<String>("layout", value: "name", help: "Which layout.").required()
    static let note = Option<String>("note", value: "text", help: "Why.")
        .required(missing: "missing --note: say why")
    static let strict = Command(
        "strict", abstract: "A command with required options.", options: [layout, note],
        usesWorkspace: false, run: { _ in .success })
    static let root = Command(
        "trove", abstract: "", usesWorkspace: false, subcommands: [command, strict])

    func parse(_ words: String...) throws(UsageError) -> ParsedCommandLine {
        try Parser(root: Self.root).parse(["try"] + words)
    }

    func message(_ words: String...) -> String? {
        do {
            _ = try Parser(root: Self.root).parse(["try"] + words)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func readsEveryValueConverted() throws {
        let parsed = try parse(
            "in.csv", "2.5", "a", "b", "--count", "-3", "-j", "8", "--shape", "cover",
            "--tag", "x", "--tag=y", "--size", "10", "--size", "20", "--force")
        #expect(parsed[Self.file] == "in.csv")
        #expect(parsed[Self.scale] == 2.5)
        #expect(parsed[Self.more] == ["a", "b"])
        #expect(parsed[Self.count] == -3)
        #expect(parsed[Self.jobs] == 8)
        #expect(parsed[Self.shape] == .cover)
        #expect(parsed[Self.tags] == ["x", "y"])
        #expect(parsed[Self.sizes] == [10, 20])
        #expect(parsed[Self.force])
    }

    @Test func valuesNotGivenReadAsNothing() throws {
        let parsed = try parse("in.csv")
        #expect(parsed[Self.scale] == nil)
        #expect(parsed[Self.more] == [])
        #expect(parsed[Self.count] == nil)
        #expect(parsed[Self.tags] == [])
        #expect(!parsed[Self.force])
    }

    @Test func aMissingRequiredArgumentIsAUsageError() {
        #expect(throws: UsageError.self) { try parse() }
        do {
            _ = try parse("--force")
        } catch {
            #expect(error.message == "missing argument <file>")
            #expect(
                error.usage
                    == "usage: trove try <file> [<scale>] [<more>...] [--count <n>] [--jobs <n>]"
                    + " [--shape <shape>] [--tag <tag>] [--size <px>] [--force]")
        }
    }

    @Test func aRequiredOptionIsOnTheUsageLineAndMissingItIsAUsageError() throws {
        func refusal(_ words: String...) -> UsageError? {
            do {
                _ = try Parser(root: Self.root).parse(["strict"] + words)
                return nil
            } catch {
                return error
            }
        }
        let usage = "usage: trove strict --layout <name> --note <text>"
        #expect(refusal()?.message == "missing option --layout <name>")
        #expect(refusal()?.usage == usage)
        #expect(refusal("--layout", "a")?.message == "missing --note: say why")
        let parsed = try Parser(root: Self.root).parse(["strict", "--layout", "a", "--note", "b"])
        let layout: String = parsed[Self.layout]
        #expect(layout == "a")
        #expect(parsed[Self.note] == "b")
        #expect(Help.usageLine(Self.strict, path: ["strict"]) == usage)
    }

    @Test(arguments: [
        (
            ["in.csv", "--jobs", "0"],
            "invalid value '0' for --jobs: expected a whole number from 1 to 256"
        ),
        (
            ["in.csv", "-j", "many"],
            "invalid value 'many' for --jobs: expected a whole number from 1 to 256"
        ),
        (["in.csv", "--count", "1.5"], "invalid value '1.5' for --count: expected a whole number"),
        (
            ["in.csv", "--shape", "square"],
            "invalid value 'square' for --shape: expected fit or cover"
        ),
        (
            ["in.csv", "--size", "10", "--size", "big"],
            "invalid value 'big' for --size: expected a whole number"
        ),
        (["in.csv", "wide"], "invalid value 'wide' for <scale>: expected a number"),
        (["in.csv", "--count", "1", "--count", "2"], "option '--count' given twice"),
    ])
    func aBadValueNamesTheOptionAndTheValue(words: [String], expected: String) {
        var message: String?
        do {
            _ = try Parser(root: Self.root).parse(["try"] + words)
        } catch {
            message = error.message
        }
        #expect(message == expected)
    }

    @Test func aConversionMayWriteItsOwnMessage() {
        #expect(
            message("in.csv", "--format", "xml") == "unknown format 'xml' (use text)")
        let near = Parser(root: TroveCLI.root)
        #expect(
            throws: UsageError(
                message: "latitude 91 is outside [-90, 90]",
                usage: "usage: trove near <lat> <lon> [--radius <distance>] [--posts] [--limit <n>]"
            )
        ) { try near.parse(["near", "91", "0"]) }
    }

    @Test func helpComesFromTheSameDeclarations() {
        let lines = Help.text(for: Self.command, path: ["try"]).split(separator: "\n")
        func row(_ label: String) -> String? {
            lines.first { $0.hasPrefix("  \(label) ") }.map {
                $0.dropFirst(label.count + 2).trimmingCharacters(in: .whitespaces)
            }
        }
        #expect(row("<file>") == "The file to read.")
        #expect(row("[<scale>]") == "How much.")
        #expect(row("[<more>...]") == "More files.")
        #expect(row("-j, --jobs <n>") == "Worker threads.")
        #expect(row("--tag <tag>") == "A tag.")
        #expect(row("--force") == "Replace what is there.")
        #expect(Self.tags.declaration.repeatable && !Self.count.declaration.repeatable)
    }

    @Test func anEnumerationIsGivenByItsCases() {
        #expect(Shape.expectation == "fit or cover")
        #expect(Shape(commandLine: "fit") == .fit)
        #expect(Shape(commandLine: "Fit") == nil)
    }

    /// A run names the problem and the usage line on stderr and exits 2, before the
    /// workspace is opened.
    @Test func aBadValueStopsTheRunWithExitTwo() throws {
        let sandbox = try Sandbox()
        let result = sandbox.run("images", "--jobs", "0")
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "error: invalid value '0' for --jobs: expected a whole number from 1 to 256\n"
                    + "usage: trove images "))
        #expect(!FileManager.default.fileExists(atPath: sandbox.workspace))
        let missing = sandbox.run("near", "40.7")
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("error: missing argument <lon>\nusage: trove near "))
    }

    /// Reading a declaration the command does not have is a mistake in trove: it stops
    /// the process rather than reading nothing.
    @Test func readingAnotherCommandsDeclarationTraps() async {
        await #expect(processExitsWith: .failure) {
            let mine = Flag("mine", help: "")
            let theirs = Flag("theirs", help: "")
            let command = Command(
                "one", abstract: "", options: [mine], usesWorkspace: false,
                run: { _ in .success })
            let parsed = try Parser(root: command).parse(["--mine"])
            _ = parsed[theirs]
        }
    }
}
