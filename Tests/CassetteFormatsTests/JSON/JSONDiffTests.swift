import Foundation
import Testing

@testable import CassetteFormats

/// JSON compared by structure: order of members is not a change, numbers compare by value.
@Suite struct JSONDiffTests {
    static func changes(_ old: String, _ new: String) throws -> [String] {
        JSONDiff.changes(from: try JSONParser.parse(Data(old.utf8)).value, to: try JSONParser.parse(Data(new.utf8)).value).map(
            \.description)
    }

    @Test func membersByNameArraysByPlace() throws {
        #expect(try Self.changes(#"{"a":1,"b":[1,2]}"#, #"{"b":[1,2],"a":1.0}"#) == [])
        #expect(try Self.changes(#"{"b":[1,2,3]}"#, #"{"b":[1,5]}"#) == ["$.b[1]: 2 → 5", "$.b[2]: removed (was 3)"])
        #expect(try Self.changes(#"[{"id":1}]"#, #"[{"id":1},{"id":2}]"#) == [#"$[1]: added (an object of 1 member)"#])
        #expect(try Self.changes(#"{"x":null}"#, #"{"x":{"y":true}}"#) == ["$.x: was null, is an object of 1 member"])
        #expect(try Self.changes(#"{"x":"1"}"#, #"{"x":1}"#) == [#"$.x: was a string "1", is a number 1"#])
        #expect(try Self.changes(#""a""#, #""b""#) == [#"$: "a" → "b""#])
        #expect(try Self.changes(#"{"a b":1}"#, #"{"a b":2}"#) == [#"$["a b"]: 1 → 2"#])
    }

    @Test func stopsAtTheLimit() throws {
        let old = "[" + (0..<500).map(String.init).joined(separator: ",") + "]"
        let new = "[" + (0..<500).map { String($0 + 1) }.joined(separator: ",") + "]"
        let parsed = (try JSONParser.parse(Data(old.utf8)).value, try JSONParser.parse(Data(new.utf8)).value)
        #expect(JSONDiff.changes(from: parsed.0, to: parsed.1, limit: 10).count == 10)
    }
}
