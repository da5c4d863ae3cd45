import Foundation
import Testing

@testable import TroveBase
@testable import TroveKit
@testable import TroveStore

@Suite struct ReviewSheetTests {
    static let hostile = [
        "<script>document.title='pwned'</script>",
        "<img src=x onerror=\"document.title='pwned'\">",
        "\" onmouseover=\"alert(1)", "' autofocus onfocus='alert(1)",
        "javascript:alert(1)", "</script><script>alert(1)</script>", "{{cards}}",
    ]

    @Test(arguments: hostile)
    func textEscapingLeavesNoMarkup(_ text: String) {
        let escaped = HTML.text(text)
        #expect(!escaped.contains("<"))
        #expect(!escaped.contains(">"))
    }

    @Test(arguments: hostile)
    func attributeEscapingLeavesNoQuotes(_ text: String) {
        let escaped = HTML.attribute(text)
        for character in ["<", ">", "\"", "'", "`"] { #expect(!escaped.contains(character)) }
    }

    @Test func scriptJSONCannotCloseTheElement() throws {
        let json = HTML.scriptJSON("</script><!-- & \u{2028}")
        #expect(!json.contains("<"))
        #expect(!json.contains(">"))
        #expect(!json.contains("&"))
        let decoded =
            try JSONSerialization.jsonObject(
                with: Data(json.utf8), options: [.fragmentsAllowed]) as? String
        #expect(decoded == "</script><!-- & \u{2028}")
    }

    @Test func placeholdersAreFilledInOnePass() {
        let filled = ReviewSheet.fill(
            "a {{x}} b {{y}} {{unknown}}", ["x": "{{y}}", "y": "Y"])
        #expect(filled == "a {{y}} b Y {{unknown}}")
    }

    @Test func policyHashesTheTemplatesOwnScriptAndStyle() throws {
        let template =
            "<meta content=\"{{csp}}\"><style>p{}</style><script>var a = 1;</script>{{cards}}"
        let sheet = try ReviewSheet(template: template)
        // echo -n 'var a = 1;' | openssl dgst -sha256 -binary | base64
        #expect(
            sheet.contentSecurityPolicy.contains(
                "script-src 'sha256-\(Data(SHA256.digest(Array("var a = 1;".utf8))).base64EncodedString())'"
            ))
        #expect(sheet.contentSecurityPolicy.hasPrefix("default-src 'none'; img-src data:;"))
    }

    @Test func sha256MatchesKnownVectors() {
        #expect(
            SHA256.hex(Array("".utf8))
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex(Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            SHA256.hex(million)
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hostileTextInACardStaysText() throws {
        let template = "<style></style><script></script><main>{{cards}}</main>{{data}}"
        let sheet = try ReviewSheet(template: template)
        let record = Post(
            id: "p1\"><script>alert(1)</script>", user: "<b>mallory</b>", latitude: 1,
            longitude: 2, description: Self.hostile.joined(separator: " "),
            signalNames: "text-link",
            signals: [Signal(.textLink, "contains a link: javascript:alert(1)\"><script>")])
        let page = sheet.render(posts: [record], title: "t")
        #expect(!page.contains("<script>alert"))
        #expect(!page.contains("<img src=x"))
        #expect(!page.contains("<b>mallory"))
        #expect(
            page.contains("title=\"contains a link: javascript:alert(1)&quot;&gt;&lt;script&gt;\""))
        #expect(page.contains("data-id=\"p1&quot;&gt;&lt;script&gt;"))
        #expect(page.contains("&lt;script&gt;document.title="))
        #expect(page.contains("<main><article"))
    }
}
