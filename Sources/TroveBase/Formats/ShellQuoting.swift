import Foundation

/// Text made one word for `sh` (and bash, zsh): inside single quotes nothing is special
/// but the single quote itself, written `'\''`. The one quoter of the tree, for the
/// Storage plan script, completion scripts and the commands trove suggests.
public enum ShellQuoting {
    /// `text` single-quoted.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        append(text.utf8, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `word` as is when it holds only characters no shell treats specially, else quoted.
    public static func word(_ word: String) -> String {
        let plain = word.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte)
                || (0x61...0x7A).contains(byte) || "-_./+,:@".utf8.contains(byte)
        }
        return plain && !word.isEmpty ? word : quoted(word)
    }

    /// Appends `text` single-quoted to `line`; text without a quote (object paths and
    /// tokens) is copied whole.
    public static func append(_ text: UnsafeBufferPointer<UInt8>, to line: inout [UInt8]) {
        if text.isEmpty || memchr(text.baseAddress!, Int32(UInt8(ascii: "'")), text.count) == nil {
            line.append(UInt8(ascii: "'"))
            line.append(contentsOf: text)
            line.append(UInt8(ascii: "'"))
        } else {
            append(AnySequence(text), to: &line)
        }
    }

    /// Appends `text` single-quoted to `line`.
    public static func append(_ text: some Sequence<UInt8>, to line: inout [UInt8]) {
        line.append(UInt8(ascii: "'"))
        for byte in text {
            if byte == UInt8(ascii: "'") {
                line.append(contentsOf: "'\\''".utf8)
            } else {
                line.append(byte)
            }
        }
        line.append(UInt8(ascii: "'"))
    }
}
