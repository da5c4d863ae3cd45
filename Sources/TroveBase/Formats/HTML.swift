import Foundation

/// Escaping for the pages trove writes (the review sheet and its maps): user text only ever
/// reaches a page through these.
public enum HTML {
    /// Text between tags: `&`, `<`, `>` escaped; NUL replaced.
    public static func text(_ value: String) -> String {
        escape(value, quotes: false)
    }

    /// A quoted attribute value: also both quote characters, so no value can end the
    /// attribute whichever quote surrounds it.
    public static func attribute(_ value: String) -> String {
        escape(value, quotes: true)
    }

    private static func escape(_ value: String, quotes: Bool) -> String {
        var result = ""
        result.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where quotes: result += "&quot;"
            case "'" where quotes: result += "&#39;"
            case "`" where quotes: result += "&#96;"
            case "\0": result += "\u{FFFD}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A JSON string literal safe inside `<script type="application/json">`: `<`, `>` and
    /// `&` become `\u003c`, `\u003e`, `\u0026`, so no text can close the element.
    public static func scriptJSON(_ value: String) -> String {
        var result = ""
        for scalar in jsonString(value).unicodeScalars {
            switch scalar {
            case "<": result += "\\u003c"
            case ">": result += "\\u003e"
            case "&": result += "\\u0026"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
