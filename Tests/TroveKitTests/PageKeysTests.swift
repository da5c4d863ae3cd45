import Testing
import TroveBase

@testable import TroveKit

/// A page that comes back as the last pull had it is passed over by its keys alone: they
/// must be the keys a whole read of it finds.
@Suite struct PageKeysTests {
    @Test(arguments: [
        #"{}"#, #" { "a" : 1 , "b":[1,{"c":"}"}],"d":null } "#,
        #"{"-Nx1":{"text":"a, b} and \"quoted\" [x]","n":[[]]},"-Nx2":"\\"}"#,
        #"{"\u00e9t\u00e9":true,"k\"ey":{"deep":{"deeper":[1,2,{"x":"{"}]}}}"#,
        #"{"caf\u00e9 ☕":1.5e3,"2":false}"#,
    ])
    func keysAreThoseAWholeReadFinds(_ text: String) throws {
        var parser = JSONParser(Array(text.utf8))
        let whole = PostPull.children(try parser.parseValue()).map(\.name)
        #expect(PostPull.topLevelKeys(Array(text.utf8)) == whole)
    }

    @Test(arguments: [
        "[1,2]", "", "null", #"{"a":1"#, #"{"a":1}x"#, #"{"a" 1}"#, #"{"a":"unterminated}"#,
        #"{"a":1,}"#,
    ])
    func anythingButAnObjectIsLeftToTheParser(_ text: String) {
        #expect(PostPull.topLevelKeys(Array(text.utf8)) == nil)
    }
}
