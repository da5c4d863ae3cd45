import Testing

@testable import TroveKit

/// The signed text is what the page's `JSON.stringify` writes, byte for byte (the
/// expected text is Node's output for the same array), and any change breaks the code.
@Suite struct SheetSignatureTests {
    static let note = "a\"b\\c\n\t\r\u{08}\u{0C}\u{01}\u{1F}\u{7F}\u{2028}é😀"

    static let file = SheetDecisionFile(
        sheet: "0123456789abcdef", workspace: "ws", moderator: "Zoë",
        decisions: [
            SheetDecision(
                id: "-Mq1a", version: "abcdef012345", expected: .pending, action: .reject(.spam),
                note: note),
            SheetDecision(
                id: "p2", expected: .flagged, action: .approve,
                decidedAt: "2026-12-01T10:00:00.000Z", confirmed: true),
        ])

    @Test func theMessageIsWhatJSONStringifyWrites() {
        let expected =
            #"["trove-review-decisions/2","0123456789abcdef","ws","Zoë",[["-Mq1a","abcdef012345","pending","reject","spam","a\"b\\c\n\t\r\b\f\u0001\u001f"#
            + "\u{7F}\u{2028}é😀"
            + #"",null,false],["p2",null,"flagged","approve",null,null,"2026-12-01T10:00:00.000Z",true]]]"#
        #expect(SheetSignature.message(Self.file) == expected)
    }

    @Test func everySignedFieldIsCovered() throws {
        let secret = String(repeating: "ab", count: 32)
        var file = Self.file
        file.signature = try #require(SheetSignature.sign(file, secret: secret))
        #expect(SheetSignature.verify(file, secret: secret))
        #expect(!SheetSignature.verify(file, secret: String(repeating: "cd", count: 32)))
        var changes: [SheetDecisionFile] = []
        for change in 0..<7 {
            var other = file
            switch change {
            case 0: other.sheet = "0000000000000000"
            case 1: other.moderator = "mallory"
            case 2: other.workspace = "elsewhere"
            case 3: other.decisions[0].version = "000000000000"
            case 4: other.decisions[1].action = .reject(.privacy)
            case 5: other.decisions.append(other.decisions[0])
            default: other.decisions[0].note = nil
            }
            changes.append(other)
        }
        for other in changes { #expect(!SheetSignature.verify(other, secret: secret)) }
        file.signature = nil
        #expect(!SheetSignature.verify(file, secret: secret))
        #expect(SheetSignature.sign(file, secret: "not hex") == nil)
    }
}
