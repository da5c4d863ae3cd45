/// JSON's number grammar, `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, scanned over
/// bytes: the one definition the parser (`JSONParser`) and the canonical text of a rendered
/// value share, so that they take exactly the same numbers.
package enum JSONNumberGrammar {
    /// Where the bytes stop being a number, and why (in the parser's words).
    package struct Failure: Error, Equatable {
        /// The index of the byte that breaks the grammar (or the end of the bytes).
        package let index: Int
        package let message: String
    }

    /// The end of the number that starts at `start` (its `-` or first digit): the index
    /// just past its last byte.
    ///
    /// - Throws: `Failure` when the bytes there are not a number.
    package static func end(in bytes: UnsafeBufferPointer<UInt8>, from start: Int)
        throws(Failure) -> Int
    {
        var index = start
        func digits() -> Int {
            let first = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - first
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        let integerDigits = digits()
        guard integerDigits > 0 else {
            throw Failure(index: index, message: "a number needs digits")
        }
        if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") {
            throw Failure(index: integerStart, message: "a number may not start with 0")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else {
                throw Failure(index: index, message: "a number needs digits after '.'")
            }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count,
                bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
            {
                index += 1
            }
            guard digits() > 0 else {
                throw Failure(index: index, message: "a number needs digits in its exponent")
            }
        }
        return index
    }
}
