import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteFormats

/// A `"json"` body's compact form copied from the file's bytes is the writer's compact form of
/// its tree, byte for byte, or nil (and the writer writes it) where the two could differ.
@Suite struct JSONCompactCopyTests {
    /// The copy of the value that starts `text`, from its bytes.
    static func copy(_ text: String) -> String? {
        Data(text.utf8).withUnsafeBytes { JSONCompactCopy.copy($0, from: 0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The writer's compact form of the value `text` parses to.
    static func written(_ text: String) throws -> String {
        String(decoding: JSONWriter.compact(try JSONParser.parse(Data(text.utf8)).value), as: UTF8.self)
    }

    @Test(arguments: [
        #"{ "a" : [ 1 , 2.50e+3, -0 ], "b": { }, "c": [] }"#,
        "{\n  \"k\": \"a b\\tc\\n\\\"q\\\" \\\\ \\u0001\\u001f\",\n  \"é\": \"😀 } ] ,\"\n}",
        "[\r\n\ttrue,false ,null, \"{ not: a [ container\" ]",
        #"[[[{"deep":[{}]}]]]"#,
    ])
    func theCopyIsTheWritersCompactForm(text: String) throws {
        #expect(Self.copy(text) == (try Self.written(text)))
        // What follows the value is not copied.
        #expect(Self.copy(text + " , \"next\": 1 }") == (try Self.written(text)))
    }

    /// Escapes the writer writes otherwise, and scalars: nil, for the writer.
    @Test(arguments: [
        #"{"url":"https:\/\/a.example\/"}"#, #"["caf\u00e9"]"#, #"["\u000a"]"#, #"["\u001F"]"#, #"["\u0041"]"#,
        #""a string""#, "42", "true",
    ])
    func whatTheWriterWritesOtherwiseIsLeftToIt(text: String) {
        #expect(Self.copy(text) == nil)
    }

    /// Random trees, pretty-printed as cassettes are: each copy is the writer's compact form.
    @Test func randomTreesCopyAsTheWriterWrites() throws {
        var random = SeededGenerator(seed: 68)
        let pieces = ["a", "é", "😀", " ", "\"", "\\", "\n", "\t", "\u{1}", "\u{1f}", "}", "]", ",", ":", "/"]
        func string() -> String { (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() }
        func value(_ depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &random) {
            case 0: return .number(["0", "-1", "2.5", "1e10", "123456789012345678901234567890"].randomElement(using: &random)!)
            case 1: return .string(string())
            case 2: return [.null, .bool(true), .bool(false)].randomElement(using: &random)!
            case 3: return .string("")
            case 4: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in JSONNode(value(depth + 1)) })
            default:
                return .object(
                    (0..<Int.random(in: 0...4, using: &random)).map { i in
                        JSONMember(key: "\(i)" + string(), value: JSONNode(value(depth + 1)))
                    })
            }
        }
        var compared = 0
        for _ in 0..<500 {
            let tree = JSONValue.array([JSONNode(value(0)), JSONNode(.object([JSONMember(key: "k", value: JSONNode(value(1)))]))])
            for lineWidth in [0, 40, 100] {
                let pretty = JSONPrettyPrinter(lineWidth: lineWidth).print(tree)
                let copied = Data(pretty).withUnsafeBytes { JSONCompactCopy.copy($0, from: 0) }
                // The writer's own escapes are all in the written form: every copy succeeds.
                #expect(
                    copied == JSONWriter.compact(try JSONParser.parse(Data(pretty)).value), "\(String(decoding: pretty, as: UTF8.self))")
                compared += 1
            }
        }
        #expect(compared == 1500)
    }

    /// Through the codec: a hand-written body with an escape the writer writes otherwise reads to
    /// the writer's bytes, as before; one in the written form is the copy.
    @Test func aCassettesJSONBodyReadsToTheSameBytesEitherWay() throws {
        func body(_ json: String) throws -> String {
            let cassette =
                #"{"version":1,"interactions":[{"request":{"method":"GET","url":"https://a.example/"},"#
                + #""response":{"status":200,"body":{"json":\#(json)}}}]}"#
            let read = try JSONCassetteCodec.decode(Data(cassette.utf8))
            return String(decoding: try #require(read.interactions.first?.response?.body.data), as: UTF8.self)
        }
        #expect(try body(#"{ "u": "https:\/\/a.example\/caf\u00e9" }"#) == #"{"u":"https://a.example/café"}"#)
        #expect(try body("{\n  \"u\": \"tab\\there\",\n  \"n\": [1, 2]\n}") == #"{"u":"tab\there","n":[1,2]}"#)
    }
}
