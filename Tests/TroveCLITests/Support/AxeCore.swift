import Foundation
import Testing

/// axe-core, the accessibility rules engine, that `make test-tools` installs (PyPI's
/// axe-playwright-python ships it as `axe.min.js`, linked as `.build/test-tools/axe.min.js`),
/// or the file `AXE_CORE_JS` names. It is run inside a page the tests drive over the
/// DevTools protocol: the page's policy lets no other script in, but `Runtime.evaluate`
/// is not a page's script.
///
///     @Test(.enabled(if: AxeCore.isAvailable, AxeCore.skipReason))
///     func passes() throws {
///         let violations = try AxeCore.run(in: browser)
///         #expect(violations.filter(\.isSerious).isEmpty)
///     }
enum AxeCore {
    /// The script, or nil when it is not installed.
    static let path: String? = {
        let candidates = [
            ProcessInfo.processInfo.environment["AXE_CORE_JS"],
            "\(packageRoot)/.build/test-tools/axe.min.js",
        ]
        return candidates.compactMap { $0 }.first {
            FileManager.default.isReadableFile(atPath: $0)
        }
    }()

    static var isAvailable: Bool { path != nil }
    static let skipReason: Comment =
        "axe-core is not installed (run 'make test-tools', or set AXE_CORE_JS)"

    /// The WCAG 2.2 A and AA rules (and those of 2.0 and 2.1 that 2.2 keeps).
    static let tags = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]

    /// One rule a page breaks, and where.
    struct Violation: CustomStringConvertible {
        var rule: String
        /// `minor`, `moderate`, `serious` or `critical`.
        var impact: String
        var help: String
        /// The CSS selectors of the elements that break it.
        var targets: [String]

        var isSerious: Bool { impact == "serious" || impact == "critical" }

        var description: String {
            "\(rule) (\(impact)): \(help) — " + targets.prefix(4).joined(separator: ", ")
                + (targets.count > 4 ? " and \(targets.count - 4) more" : "")
        }
    }

    /// Every violation of the WCAG A/AA rules in the page as it is now.
    static func run(in browser: BrowserSession) throws -> [Violation] {
        guard let path else { throw BrowserSession.Failure(description: "\(skipReason)") }
        if try browser.evaluate("typeof window.axe") as? String != "object" {
            let source = try String(contentsOfFile: path, encoding: .utf8)
            try browser.evaluate(source + "\n;typeof window.axe")
        }
        let tagList = tags.map { "'\($0)'" }.joined(separator: ", ")
        let text =
            try browser.evaluate(
                """
                axe.run(document, { runOnly: { type: 'tag', values: [\(tagList)] },
                                    resultTypes: ['violations'] })
                  .then((result) => JSON.stringify(result.violations.map((v) => ({
                    rule: v.id, impact: v.impact || '', help: v.help,
                    targets: v.nodes.map((n) => n.target.join(' ')) }))))
                """, awaitPromise: true) as? String ?? "[]"
        let list =
            (try JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] ?? []
        return list.map {
            Violation(
                rule: $0["rule"] as? String ?? "", impact: $0["impact"] as? String ?? "",
                help: $0["help"] as? String ?? "", targets: $0["targets"] as? [String] ?? [])
        }
    }
}
