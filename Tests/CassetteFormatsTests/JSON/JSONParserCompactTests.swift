import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteFormats

/// A cassette's `"json"` body is read as compact bytes without a tree: those bytes are the
/// writer's compact form of the body's tree, byte for byte, and a body that could read otherwise
/// (invalid, a duplicate or non-ASCII key, an escape the writer writes otherwise, many keys) is
/// parsed as a tree, so that what a cassette reads to, or the error it gives, is the same either way.
@Suite struct JSONParserCompactTests {
    /// A cassette whose one response body is `json`, and the offset where `json` starts.
    static func cassette(body json: String) -> (data: Data, offset: Int) {
        let head =
            #"{"version":1,"interactions":[{"request":{"method":"GET","url":"https://a.example/"},"response":{"status":200,"body":{"json":"#
        return (Data((head + json + "}}}]}").utf8), head.utf8.count)
    }

    /// The compact bytes the parser kept for `json` as a response body, or nil when it parsed a tree.
    static func compacted(_ json: String) throws -> String? {
        let (data, offset) = cassette(body: json)
        let tree = try JSONParser.parseCassette(data)
        #expect(tree.compactBodies.keys.allSatisfy { $0 == offset })
        return tree.compactBodies[offset].map { String(decoding: $0, as: UTF8.self) }
    }

    /// The writer's compact form of the value `text` parses to.
    static func written(_ text: String) throws -> String {
        String(decoding: JSONWriter.compact(try JSONParser.parse(Data(text.utf8)).value), as: UTF8.self)
    }

    /// What decoding gives, the document or the error's text, both ways.
    static func bothWays(_ data: Data) -> (compact: String, trees: String) {
        func text(_ decode: () throws -> CassetteDocument) -> String {
            do {
                let document = try decode()
                return document.interactions.map { String(decoding: $0.response?.body.data ?? Data(), as: UTF8.self) }.joined(
                    separator: "|")
            } catch {
                return "error: \(error)"
            }
        }
        return (
            text { try JSONCassetteCodec.decode(data, file: "c.json") },
            text { try JSONCassetteCodec.decodeFromTrees(data, file: "c.json") }
        )
    }

    @Test(arguments: [
        #"{ "a" : [ 1 , 2.50e+3, -0 ], "b": { }, "c": [] }"#,
        "{\n  \"k\": \"a b\\tc\\n\\\"q\\\" \\\\ \\u0001\\u001f\",\n  \"v\": \"é 😀 } ] ,\"\n}",
        "[\r\n\ttrue,false ,null, \"{ not: a [ container\" ]",
        #"[[[{"deep":[{}]}]]]"#,
        "{}", "[]",
    ])
    func theCompactBytesAreTheWritersCompactForm(json: String) throws {
        #expect(try Self.compacted(json) == (try Self.written(json)))
    }

    /// What the tree reads, or reports, differently: parsed as a tree.
    @Test(arguments: [
        #"{"url":"https:\/\/a.example\/"}"#, #"["caf\u00e9"]"#, #"["\u000a"]"#, #"["\u001F"]"#, #"["\u0041"]"#,
        #""a string""#, "42", "true", "null",
        #"{"a":1,"a":2}"#, #"[{"x":{"y":[1,{"k":1,"k":1}]}}]"#,
        // Keys the tree compares as Strings (canonical equivalence): "K" and the Kelvin sign are one key.
        "{\"K\":1,\"\u{212A}\":2}", "{\"é\":1}",
        "{" + (0..<33).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}",
        "[1,]", "{\"a\":1,}", "[01]", "[1.]", "[-]", "[tru]", "[\"\u{1}\"]", "[\"a", "{\"a\" 1}", "[1 2]",
        String(repeating: "[", count: 300) + String(repeating: "]", count: 300),
    ])
    func whatCouldReadOtherwiseIsParsedAsATree(json: String) throws {
        let (data, _) = Self.cassette(body: json)
        if (try? JSONParser.parseCassette(data)) != nil { #expect(try Self.compacted(json) == nil) }
        let read = Self.bothWays(data)
        #expect(read.compact == read.trees)
    }

    /// The errors are the tree's: a duplicate key with its path, a syntax error with its position.
    @Test func errorsAreTheTreesOwn() {
        let duplicate = Self.bothWays(Self.cassette(body: #"[{"x":{"y":[1,{"k":1,"k":1}]}}]"#).data).compact
        #expect(
            duplicate == "error: c.json:1:146: error: interactions[0].response.body.json[0].x.y[1].k: duplicate key \"k\" in a JSON body")
        let kelvin = Self.bothWays(Self.cassette(body: "{\"K\":1,\"\u{212A}\":2}").data).compact
        #expect(
            kelvin
                == "error: c.json:1:132: error: interactions[0].response.body.json[\"\u{212A}\"]: duplicate key \"\u{212A}\" in a JSON body"
        )
        let trailing = Self.bothWays(Self.cassette(body: "[1,]").data).compact
        #expect(trailing == "error: c.json:1:128: error: expected a value, found ']' (JSON does not allow a comma before ']')")
    }

    /// Only a body under `interactions` is compacted: the same shape in the metadata is a tree.
    @Test func aBodyShapeInTheMetadataIsATree() throws {
        let text =
            #"{"version":1,"metadata":{"a":{"b":{"body":{"json":{"x":[1]}}}}},"interactions":[{"request":{"method":"GET","url":"https://a.example/"},"#
            + #""response":{"status":200,"body":{"json":{"y" : 2}}}}]}"#
        let data = Data(text.utf8)
        #expect(try JSONParser.parseCassette(data).compactBodies.count == 1)
        let document = try JSONCassetteCodec.decode(data)
        #expect(document.metadata["a"] == MetadataValue(json: try JSONParser.parse(Data(#"{"b":{"body":{"json":{"x":[1]}}}}"#.utf8)).value))
        #expect(document.interactions.first?.response?.body.data == Data(#"{"y":2}"#.utf8))
    }

    /// Random trees, pretty-printed as cassettes are, with random duplicates: read both ways alike.
    @Test func randomBodiesReadAsTheirTreesDo() throws {
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
                // One object in eight repeats a key.
                let repeats = Int.random(in: 0..<8, using: &random) == 0
                return .object(
                    (0..<Int.random(in: 1...4, using: &random)).map { i in
                        JSONMember(key: repeats ? "same" : "k\(i)", value: JSONNode(value(depth + 1)))
                    })
            }
        }
        var compacted = 0
        for round in 0..<500 {
            let tree = JSONValue.object([JSONMember(key: "k", value: JSONNode(value(1)))])
            let pretty = String(decoding: JSONPrettyPrinter(lineWidth: [0, 40, 100][round % 3]).print(tree), as: UTF8.self)
            let (data, _) = Self.cassette(body: pretty)
            let read = Self.bothWays(data)
            #expect(read.compact == read.trees, "\(pretty)")
            if try JSONParser.parseCassette(data).compactBodies.isEmpty == false { compacted += 1 }
        }
        // Most bodies are compacted; those that repeat a key are not.
        #expect(compacted > 250 && compacted < 500)
    }
}
