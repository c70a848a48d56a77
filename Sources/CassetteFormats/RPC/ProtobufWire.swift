import Foundation

/// The protobuf wire format, read field by field without a schema (what `protoc --decode_raw`
/// shows), and written back to the same bytes.
///
/// A message is a sequence of fields, each a key (the field's number and its wire type, as a
/// varint) and a value: a varint, 8 or 4 little-endian bytes, or a length and that many bytes
/// (protobuf.dev/programming-guides/encoding). Without the schema a length-delimited value may
/// be a string, bytes or a nested message; ``Value/delimited(_:)`` says which reading shows it
/// best, and all three give back the same bytes.
///
/// Only input that ``encode(_:)`` writes back byte for byte is read: a varint written longer
/// than it needs (protobuf allows it), a group (wire types 3 and 4, deprecated), field number 0
/// or a value cut short makes ``decode(_:)`` return nil, and the caller keeps the bytes as they
/// are (base64 in a cassette). So `encode(decode(bytes)) == bytes` whenever `decode` answers.
package enum ProtobufWire {
    /// One field of a message, as the wire has it.
    package struct Field: Sendable, Hashable {
        /// The field's number, 1 to 2^29 − 1.
        package var number: Int
        package var value: Value

        package init(_ number: Int, _ value: Value) {
            self.number = number
            self.value = value
        }
    }

    /// A field's value, by wire type.
    package enum Value: Sendable, Hashable {
        /// Wire type 0: an `int32`, `int64`, `uint32`, `uint64`, `sint32`, `sint64`, `bool` or `enum`.
        case varint(UInt64)
        /// Wire type 1: a `fixed64`, `sfixed64` or `double`, as its bits.
        case fixed64(UInt64)
        /// Wire type 5: a `fixed32`, `sfixed32` or `float`, as its bits.
        case fixed32(UInt32)
        /// Wire type 2: a `string`, `bytes`, nested message or packed repeated field.
        case delimited(Delimited)

        /// The wire type the value is written with.
        package var wireType: UInt8 {
            switch self {
            case .varint: return 0
            case .fixed64: return 1
            case .delimited: return 2
            case .fixed32: return 5
            }
        }
    }

    /// A length-delimited value, in the reading that shows it best.
    package enum Delimited: Sendable, Hashable {
        /// UTF-8 text without control characters other than tab, line feed and carriage return.
        case text(String)
        /// A nested message: bytes that read as fields (and are not such text).
        case message([Field])
        /// Anything else.
        case bytes(Data)

        /// The reading that shows `data` best: text, else a nested message, else bytes.
        package init(reading data: Data) {
            self.init(reading: data, depth: 0)
        }

        fileprivate init(reading data: Data, depth: Int) {
            if !data.isEmpty, Interaction.Body.isWritableAsText(data) {
                self = .text(String(decoding: data, as: UTF8.self))
            } else if !data.isEmpty, depth < ProtobufWire.maximumDepth, let fields = ProtobufWire.decode(data, depth: depth) {
                self = .message(fields)
            } else {
                self = .bytes(data)
            }
        }

        /// The bytes it stands for.
        package var data: Data {
            switch self {
            case .text(let text): return Data(text.utf8)
            case .message(let fields): return ProtobufWire.encode(fields)
            case .bytes(let data): return data
            }
        }
    }

    /// The largest field number protobuf allows.
    package static let maximumFieldNumber = (1 << 29) - 1

    /// How deep nested messages are read; deeper ones stay bytes, so that no input recurses
    /// without end.
    static let maximumDepth = 32

    // MARK: Reading

    /// The fields of `data`, or nil when it is not a message written as ``encode(_:)`` writes one.
    /// Empty input is a message with no fields.
    package static func decode(_ data: Data) -> [Field]? {
        decode(data, depth: 0)
    }

    /// The fields of `data` as ``decode(_:)`` reads them, each length-delimited value left as
    /// ``Delimited/bytes(_:)``: for a reader that knows what each field holds (``ProtobufSchema``).
    package static func decodeTopLevel(_ data: Data) -> [Field]? {
        decode(data, depth: 0, nested: false)
    }

    fileprivate static func decode(_ data: Data, depth: Int, nested: Bool = true) -> [Field]? {
        var reader = Reader(data)
        var fields: [Field] = []
        while !reader.isAtEnd {
            guard let key = reader.varint(), key >> 3 >= 1, key >> 3 <= UInt64(maximumFieldNumber) else { return nil }
            let number = Int(key >> 3)
            switch key & 7 {
            case 0:
                guard let value = reader.varint() else { return nil }
                fields.append(Field(number, .varint(value)))
            case 1:
                guard let value = reader.littleEndian(8) else { return nil }
                fields.append(Field(number, .fixed64(value)))
            case 5:
                guard let value = reader.littleEndian(4) else { return nil }
                fields.append(Field(number, .fixed32(UInt32(value))))
            case 2:
                guard let length = reader.varint(), let bytes = reader.bytes(length) else { return nil }
                fields.append(Field(number, .delimited(nested ? Delimited(reading: bytes, depth: depth + 1) : .bytes(bytes))))
            default:
                return nil  // 3 and 4 (groups), 6 and 7 (none)
            }
        }
        return fields
    }

    /// Reads varints, fixed-width numbers and byte runs from the front of some bytes.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        init(_ data: Data) { bytes = [UInt8](data) }

        var isAtEnd: Bool { index == bytes.count }

        /// A varint in its shortest form (no trailing 0x80…0x00 groups), at most 10 bytes.
        mutating func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count, shift < 70 {
                let byte = bytes[index]
                index += 1
                if shift == 63, byte > 1 { return nil }  // beyond 64 bits
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 {
                    // A last group of 0 after others means the varint was written longer than it needs.
                    return byte == 0 && shift > 0 ? nil : value
                }
                shift += 7
            }
            return nil
        }

        mutating func littleEndian(_ count: Int) -> UInt64? {
            guard bytes.count - index >= count else { return nil }
            var value: UInt64 = 0
            for offset in 0..<count { value |= UInt64(bytes[index + offset]) << (8 * UInt64(offset)) }
            index += count
            return value
        }

        mutating func bytes(_ count: UInt64) -> Data? {
            guard count <= UInt64(bytes.count - index) else { return nil }
            let run = Data(bytes[index..<index + Int(count)])
            index += Int(count)
            return run
        }
    }

    // MARK: Writing

    /// The bytes of `fields`, each varint in its shortest form.
    package static func encode(_ fields: [Field]) -> Data {
        var out: [UInt8] = []
        for field in fields { append(field, to: &out) }
        return Data(out)
    }

    private static func append(_ field: Field, to out: inout [UInt8]) {
        appendVarint(UInt64(field.number) << 3 | UInt64(field.value.wireType), to: &out)
        switch field.value {
        case .varint(let value):
            appendVarint(value, to: &out)
        case .fixed64(let value):
            for offset in 0..<8 { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(offset)))) }
        case .fixed32(let value):
            for offset in 0..<4 { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(offset)))) }
        case .delimited(let delimited):
            let data = delimited.data
            appendVarint(UInt64(data.count), to: &out)
            out.append(contentsOf: data)
        }
    }

    static func appendVarint(_ value: UInt64, to out: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }
}
