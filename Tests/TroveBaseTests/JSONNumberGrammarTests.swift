import Testing

@testable import TroveBase

@Suite struct JSONNumberGrammarTests {
    func end(_ text: String, from start: Int = 0) -> Result<Int, JSONNumberGrammar.Failure> {
        Array(text.utf8).withUnsafeBufferPointer { buffer in
            do throws(JSONNumberGrammar.Failure) {
                return .success(try JSONNumberGrammar.end(in: buffer, from: start))
            } catch {
                return .failure(error)
            }
        }
    }

    @Test(arguments: [
        ("0", 1), ("-0", 2), ("12", 2), ("-74.006,", 7), ("1.5E-2]", 6), ("1e3}", 3),
        ("0.10 ", 4), ("3e+07x", 5), ("12345678901234567890", 20),
    ])
    func aNumberEndsAfterItsLastByte(text: String, end expected: Int) {
        #expect(end(text) == .success(expected))
    }

    @Test(arguments: [
        ("-", 1, "a number needs digits"), ("-x", 1, "a number needs digits"),
        ("01", 0, "a number may not start with 0"), ("-00", 1, "a number may not start with 0"),
        ("1.", 2, "a number needs digits after '.'"),
        ("1.e5", 2, "a number needs digits after '.'"),
        ("1e", 2, "a number needs digits in its exponent"),
        ("1E+", 3, "a number needs digits in its exponent"),
    ])
    func whatIsNotANumberSaysWhereAndWhy(text: String, index: Int, message: String) {
        #expect(end(text) == .failure(JSONNumberGrammar.Failure(index: index, message: message)))
    }

    /// The parser takes a number the grammar takes, and says where one breaks.
    @Test func theParserReadsNumbersByTheGrammar() throws {
        var parser = JSONParser(Array("[-0.5e+2, 10]".utf8))
        #expect(try parser.parseValue() == .array([.number("-0.5e+2"), .number("10")]))
        var broken = JSONParser(Array("[1, 01]".utf8))
        #expect(throws: JSONSyntaxError.self) { try broken.parseValue() }
        do {
            var again = JSONParser(Array("[1, 01]".utf8))
            _ = try again.parseValue()
        } catch {
            #expect(error.message == "a number may not start with 0")
            #expect(error.column == 5)
        }
    }
}
