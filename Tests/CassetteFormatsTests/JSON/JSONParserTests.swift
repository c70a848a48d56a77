import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteFormats

@Suite struct JSONParserTests {
    private func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try JSONParser.parse(Data(text.utf8)).value
    }

    private func syntaxError(_ bytes: [UInt8]) -> JSONSyntaxError? {
        do {
            _ = try JSONParser.parse(Data(bytes))
            return nil
        } catch {
            return error
        }
    }

    @Test func keepsMemberOrderNumberLiteralsAndOffsets() throws {
        let root = try JSONParser.parse(Data(#"{"b": 1.50, "a": [true, null, -0, 2E+3]}"#.utf8))
        guard case .object(let members) = root.value else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["b", "a"])
        #expect(members.map(\.keyOffset) == [1, 12])
        #expect(members[0].value.offset == 6)
        guard case .number(let literal) = members[0].value.value else {
            Issue.record("not a number")
            return
        }
        #expect(literal == "1.50")
        #expect(JSONWriter.compact(root.value) == Array(#"{"b":1.50,"a":[true,null,-0,2E+3]}"#.utf8))
    }

    @Test func decodesEveryEscapeAndSurrogatePairs() throws {
        let value = try parse(#""\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00""#)
        guard case .string(let text) = value else {
            Issue.record("not a string")
            return
        }
        #expect(Array(text.unicodeScalars).map(\.value) == [0x22, 0x5C, 0x2F, 0x08, 0x0C, 0x0A, 0x0D, 0x09, 0xE9, 0x1F600])
    }

    /// Strings with escapes are decoded into a buffer as long as they are written: every escape
    /// form, in any mix with plain, multibyte and four-byte characters, gives back the text that
    /// was written — by Foundation's encoder, by Cassette's writer, and by an encoder that
    /// escapes characters at random (`\u` in either case, surrogate pairs, `\/`).
    @Test func decodesRandomEscapedStringsAsWritten() throws {
        var generator = SeededGenerator(seed: 0x5C)
        let pieces: [String] = [
            "a", "Z", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{1}", "\u{1F}", "é", "€", "😀", "\u{10FFFF}", "\u{7F}",
        ]
        for round in 0..<2_000 {
            let text = (0..<Int(generator.next() % 40)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            var encodings = [
                try JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed]),
                Data(JSONWriter.compact(.array([JSONNode(.string(text))]))),
            ]
            var random = "[\""
            for scalar in text.unicodeScalars {
                switch generator.next() % 3 {
                case 0 where scalar.value >= 0x20 && scalar != "\"" && scalar != "\\": random.unicodeScalars.append(scalar)
                case 1 where scalar.value <= 0xFFFF:
                    random += String(format: generator.next() % 2 == 0 ? "\\u%04x" : "\\u%04X", scalar.value)
                default:
                    let short: [Unicode.Scalar: String] = [
                        "\"": "\\\"", "\\": "\\\\", "/": "\\/", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u{8}": "\\b", "\u{C}": "\\f",
                    ]
                    if let escape = short[scalar] {
                        random += escape
                    } else {
                        for unit in String(scalar).utf16 { random += String(format: "\\u%04X", unit) }
                    }
                }
            }
            encodings.append(Data((random + "\"]").utf8))
            for encoded in encodings {
                let value = try JSONParser.parse(encoded).value
                guard case .array(let elements) = value, elements.count == 1, case .string(let decoded) = elements[0].value else {
                    Issue.record("round \(round): \(String(decoding: encoded, as: UTF8.self)) did not parse to one string")
                    return
                }
                #expect(
                    Array(decoded.unicodeScalars) == Array(text.unicodeScalars),
                    "round \(round): \(String(decoding: encoded, as: UTF8.self))")
            }
        }
    }

    /// A body's compaction whose memory runs out gives nothing, so the tree's parse is tried
    /// instead: neither a first allocation that fails nor a growth that fails hands out the bytes
    /// copied before as the body. With memory, the same steps give every byte.
    @Test func aCompactionWhoseMemoryRunsOutGivesNothing() {
        let text = Array(#"{"a":[1,2,3],"b":"x"}"#.utf8)  // 21 bytes: more than the first 16 hold
        text.withUnsafeBufferPointer { bytes in
            func copied(expected: Int, reallocate: @escaping (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer?) -> Data? {
                var copy = JSONParser.Compaction(run: 0, expected: expected, reallocate: reallocate)
                copy.flush(bytes, upTo: 10)
                copy.run = 10
                copy.flush(bytes, upTo: bytes.count)
                return copy.data()
            }
            #expect(copied(expected: 4) { realloc($0, $1) } == Data(text))
            #expect(copied(expected: 4) { _, _ in nil } == nil)
            var calls = 0
            let growthFails: (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer? = { pointer, size in
                calls += 1
                return calls == 1 ? realloc(pointer, size) : nil
            }
            #expect(copied(expected: 4, reallocate: growthFails) == nil)
            #expect(calls == 2)
        }
    }

    @Test func skipsAUTF8ByteOrderMark() throws {
        let value = try JSONParser.parse(Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)))
        #expect(JSONWriter.compact(value.value) == Array("[1]".utf8))
    }

    @Test(
        arguments: [
            (#"[1,]"#, 3, "JSON does not allow a comma before ']'"),
            (#"[1 2]"#, 3, "expected ',' or ']' after an array element, found '2'"),
            (#"{"a" 1}"#, 5, "expected ':' after the key \"a\", found '1'"),
            (#"{"a":1 "b":2}"#, 7, "expected ',' or '}' after the value of \"a\", found '\"'"),
            (#""\x""#, 1, "invalid escape \\x in a string"),
            (#""\u12""#, 1, "\\u must be followed by four hexadecimal digits"),
            (#""\uD800""#, 1, "\\uD800 is an unpaired surrogate"),
            (#""\uDC00x""#, 1, "\\uDC00 is an unpaired surrogate"),
            (#""\uD800\u0041""#, 1, "\\uD800 is an unpaired surrogate"),
            (#""abc"#, 0, "unterminated string"),
            ("-", 0, "expected a digit after '-'"),
            ("1.", 0, "expected a digit after '.'"),
            ("1e", 0, "expected a digit in the exponent"),
            ("+1", 0, "expected a value, found '+1'"),
            ("tru", 0, "expected a value, found 'tru'"),
            ("True", 0, "expected a value, found 'True'"),
            ("[1] [2]", 4, "unexpected '[' after the end of the JSON document"),
            ("\"a\u{1}\"", 2, "the control character U+0001 inside a string: write it as \\u0001"),
            ("\"a\tb\"", 2, "a tab inside a string"),
            // The same after an escape, where the rest of a string is decoded.
            (#""\na"# + "\u{1}\"", 4, "the control character U+0001 inside a string: write it as \\u0001"),
            (#""\"\""#, 0, "unterminated string: no closing '\"' before the end of the file"),
            (#""\"\""# + "\n", 5, "a line break inside a string"),
            (#"["\n"#, 1, "unterminated string: no closing '\"' before the end of the file"),
            (#""ab\"#, 3, "unterminated string: the file ends inside an escape"),
            (#""\t\u00"#, 3, "\\u must be followed by four hexadecimal digits"),
            (#""\t\u00" "#, 3, "\\u must be followed by four hexadecimal digits"),
            (#""\n\uD83D""#, 3, "\\uD83D is an unpaired surrogate"),
        ] as [(String, Int, String)])
    func rejectsInvalidJSONAtTheRightOffset(text: String, offset: Int, message: String) {
        let error = syntaxError(Array(text.utf8))
        #expect(error?.offset == offset)
        #expect(error?.message.contains(message) == true, "message was: \(error?.message ?? "none")")
    }

    @Test(
        arguments: [
            ([0x22, 0xC0, 0x80, 0x22], 1),  // overlong encoding of NUL
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // UTF-8-encoded surrogate
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // beyond U+10FFFF
            ([0x22, 0x61, 0xE2, 0x82, 0x22], 2),  // truncated sequence
            ([0x22, 0x61, 0x80, 0x22], 2),  // lone continuation byte
            ([0xFF, 0xFE, 0x5B, 0x00], 0),  // UTF-16 byte order mark
        ] as [([UInt8], Int)])
    func rejectsInvalidUTF8(bytes: [UInt8], offset: Int) {
        let error = syntaxError(bytes)
        #expect(error?.offset == offset)
        #expect(error?.message.contains("UTF") == true, "message was: \(error?.message ?? "none")")
    }

    @Test func acceptsValidMultibyteUTF8() throws {
        let text = "\"aé€😀\u{10FFFF}\""
        guard case .string(let s) = try parse(text) else {
            Issue.record("not a string")
            return
        }
        #expect(s == "aé€😀\u{10FFFF}")
    }

    @Test func nestingIsLimitedInsteadOfOverflowingTheStack() {
        let ok = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(syntaxError(Array(ok.utf8)) == nil)
        let deep = String(repeating: "[", count: 100_000)
        let error = syntaxError(Array(deep.utf8))
        #expect(error?.offset == JSONParser.maximumDepth)
        #expect(error?.message == "JSON nested deeper than 256 levels")
    }
}
