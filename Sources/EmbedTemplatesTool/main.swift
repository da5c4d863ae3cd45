// Writes a Swift source holding every file below a folder, byte for byte:
// `EmbedTemplatesTool TEMPLATES_DIR OUTPUT.swift`. Used by the EmbedTemplates plugin.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: EmbedTemplatesTool DIR OUTPUT\n".utf8))
    exit(2)
}
let root = URL(fileURLWithPath: arguments[1]).standardizedFileURL
let prefix = root.path + "/"
var files: [(name: String, data: Data)] = []
if let enumerator = FileManager.default.enumerator(
    at: root, includingPropertiesForKeys: [.isRegularFileKey])
{
    for case let url as URL in enumerator {
        let path = url.standardizedFileURL.path
        let values = try url.resourceValues(forKeys: [.isRegularFileKey])
        guard values.isRegularFile == true, path.hasPrefix(prefix),
            !url.lastPathComponent.hasPrefix(".")
        else { continue }
        files.append((String(path.dropFirst(prefix.count)), try Data(contentsOf: url)))
    }
}
files.sort { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }

/// A Swift string literal whose UTF-8 is exactly `text`'s.
func literal(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": result += "\\\\"
        case "\"": result += "\\\""
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            result += "\\u{\(String(scalar.value, radix: 16))}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

var source = """
    // Generated from Templates/ by the EmbedTemplates build plugin; do not edit.

    enum EmbeddedTemplates {
        /// Every template file: its name below Templates/ and its bytes (UTF-8 text as a
        /// literal, anything else as base64).
        static let files: [(name: String, text: String?, base64: String?)] = [

    """
for file in files {
    if let text = String(data: file.data, encoding: .utf8), Data(text.utf8) == file.data {
        source += "        (\(literal(file.name)), \(literal(text)), nil),\n"
    } else {
        source +=
            "        (\(literal(file.name)), nil, \(literal(file.data.base64EncodedString()))),\n"
    }
}
source += "    ]\n}\n"
let output = URL(fileURLWithPath: arguments[2])
let existing = try? Data(contentsOf: output)
if existing != Data(source.utf8) {
    try Data(source.utf8).write(to: output, options: .atomic)
}
