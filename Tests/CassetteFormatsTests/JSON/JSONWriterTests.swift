import Foundation
import Testing

@testable import CassetteFormats

@Suite struct JSONWriterTests {
    private func string(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func escapesOnlyWhatJSONRequires() {
        var out: [UInt8] = []
        JSONWriter.appendString("\"\\/\u{8}\u{C}\n\r\t\u{1}\u{1F}é😀\u{7F}", to: &out)
        #expect(string(out) == #""\"\\/\b\f\n\r\t\u0001\u001fé😀"# + "\u{7F}\"")
    }

    @Test func prettyPrintsInlineWhenItFitsAndOtherwiseOnePerLine() throws {
        let short = try JSONParser.parse(Data(#"{"a":{"b":[1,2],"c":{}},"d":[]}"#.utf8)).value
        #expect(string(JSONPrettyPrinter(lineWidth: 100).print(short)) == #"{ "a": { "b": [1, 2], "c": {} }, "d": [] }"# + "\n")
        #expect(
            string(JSONPrettyPrinter(lineWidth: 20).print(short))
                == """
                {
                  "a": { "b": [1, 2], "c": {} },
                  "d": []
                }

                """.replacingOccurrences(of: "{ \"b\": [1, 2], \"c\": {} }", with: "{\n    \"b\": [1, 2],\n    \"c\": {}\n  }"))
        // Depth below multilineDepth always spans lines.
        #expect(
            string(JSONPrettyPrinter(lineWidth: 100, multilineDepth: 1).print(short)) == """
                {
                  "a": { "b": [1, 2], "c": {} },
                  "d": []
                }

                """)
    }

    @Test func inlineWidthCountsUnicodeScalarsNotBytes() throws {
        // `{ "k": "` + 44 × "é" (88 bytes) + `" }` is 55 columns: inline at 55, not at 54.
        let value = JSONValue.object([JSONMember(key: "k", value: JSONNode(.string(String(repeating: "é", count: 44))))])
        #expect(string(JSONPrettyPrinter(lineWidth: 55).print(value)).split(separator: "\n").count == 1)
        #expect(string(JSONPrettyPrinter(lineWidth: 54).print(value)).split(separator: "\n").count == 3)
    }
}
