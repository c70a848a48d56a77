import CassetteFormats
import Foundation
import Testing

/// The protobuf wire reader and writer: the encoding guide's own examples read as their fields,
/// everything read written back to the same bytes, and input it could not write back refused.
@Suite struct ProtobufWireTests {
    typealias Field = ProtobufWire.Field

    static func bytes(_ hex: String) -> Data {
        var out = Data()
        var rest = Substring(hex.filter { !$0.isWhitespace })
        while !rest.isEmpty {
            out.append(UInt8(rest.prefix(2), radix: 16) ?? 0xEE)
            rest = rest.dropFirst(2)
        }
        return out
    }

    /// protobuf.dev/programming-guides/encoding: `a = 150`, `b = "testing"`, `c { a = 150 }`.
    @Test func theEncodingGuidesExamples() throws {
        let varint = Self.bytes("08 96 01")
        #expect(ProtobufWire.decode(varint) == [Field(1, .varint(150))])
        let text = Self.bytes("12 07 74 65 73 74 69 6e 67")
        #expect(ProtobufWire.decode(text) == [Field(2, .delimited(.text("testing")))])
        let nested = Self.bytes("1a 03 08 96 01")
        #expect(ProtobufWire.decode(nested) == [Field(3, .delimited(.message([Field(1, .varint(150))])))])
        for data in [varint, text, nested] {
            #expect(ProtobufWire.encode(try #require(ProtobufWire.decode(data))) == data)
        }
    }

    @Test func everyWireTypeAndTheLimitsOfEach() throws {
        let fields = [
            Field(1, .varint(0)), Field(2, .varint(UInt64.max)), Field(3, .fixed64(0x0102_0304_0506_0708)),
            Field(4, .fixed32(0xDEAD_BEEF)), Field(5, .delimited(.bytes(Data([0x00, 0xFF])))),
            Field(ProtobufWire.maximumFieldNumber, .delimited(.bytes(Data()))), Field(6, .delimited(.text("héllo\tthere"))),
        ]
        let data = ProtobufWire.encode(fields)
        #expect(
            data
                == Self.bytes(
                    "08 00  10 ff ff ff ff ff ff ff ff ff 01  19 08 07 06 05 04 03 02 01  25 ef be ad de  2a 02 00 ff"
                        + "  fa ff ff ff 0f 00  32 0c 68 c3 a9 6c 6c 6f 09 74 68 65 72 65"))
        #expect(ProtobufWire.decode(data) == fields)
    }

    /// Bytes are shown as text when they are text, as a message when they read as one, else as bytes.
    @Test func aDelimitedValueIsShownInTheReadingThatFitsIt() {
        #expect(ProtobufWire.Delimited(reading: Data("hi".utf8)) == .text("hi"))
        #expect(
            ProtobufWire.Delimited(reading: Self.bytes("08 01 12 00"))
                == .message([Field(1, .varint(1)), Field(2, .delimited(.bytes(Data())))]))
        #expect(ProtobufWire.Delimited(reading: Self.bytes("ff ff")) == .bytes(Self.bytes("ff ff")))
        #expect(ProtobufWire.Delimited(reading: Data()) == .bytes(Data()))
    }

    /// Each is valid protobuf or a cut one, but not what the writer gives back: the caller keeps
    /// the bytes as they are.
    @Test(arguments: [
        ("08 80 01 00", "a zero byte after a field (key 0)"),
        ("08 96 81 00", "a varint written longer than it needs"),
        ("08 80 00", "a varint of 0 written in two bytes"),
        ("08 ff ff ff ff ff ff ff ff ff 02", "a varint beyond 64 bits"),
        ("08 ff ff ff ff ff ff ff ff ff ff 01", "a varint of 11 bytes"),
        ("00 01", "field number 0"),
        ("0b 0c", "a group (wire types 3 and 4)"),
        ("0e 00", "wire type 6"),
        ("12 05 61 62", "a length beyond the end"),
        ("19 01 02 03", "a fixed64 cut short"),
        ("1d 01", "a fixed32 cut short"),
        ("08", "a key without its value"),
        ("80 80 80 80 80 01 00", "a field number beyond 2^29 - 1"),
    ])
    func inputTheWriterWouldNotGiveBackIsRefused(hex: String, what: String) {
        #expect(ProtobufWire.decode(Self.bytes(hex)) == nil, "\(what)")
    }

    /// Nesting deeper than the reader goes stays bytes, and still comes back whole.
    @Test func deepNestingStopsAndKeepsTheBytes() throws {
        var data = Self.bytes("08 01")
        for _ in 0..<40 { data = Self.bytes("0a") + Data([UInt8(data.count)]) + data }
        let fields = try #require(ProtobufWire.decode(data))
        #expect(ProtobufWire.encode(fields) == data)
        var depth = 0
        var value = fields.first?.value
        while case .delimited(.message(let inner))? = value {
            depth += 1
            value = inner.first?.value
        }
        #expect(depth == 31)
        guard case .delimited(.bytes)? = value else {
            Issue.record("the innermost value read: \(String(describing: value))")
            return
        }
    }

    /// 2,000 pseudo-random inputs (a fixed seed): whatever reads is written back to its bytes.
    @Test func whateverReadsIsWrittenBackExactly() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var read = 0
        for _ in 0..<2_000 {
            var data = Data()
            for _ in 0..<Int(state % 24) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                data.append(UInt8(truncatingIfNeeded: state >> 56) & (state & 1 == 0 ? 0x7F : 0xFF))
            }
            if let fields = ProtobufWire.decode(data) {
                read += 1
                #expect(ProtobufWire.encode(fields) == data)
            }
        }
        #expect(read > 50, "the inputs exercised the reader: \(read) read")
    }
}
