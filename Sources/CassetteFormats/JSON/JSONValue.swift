import Foundation

/// A parsed JSON value that remembers where it came from.
///
/// The cassette codec needs three things Foundation's JSON coders do not give: the byte offset of
/// every value (so an error can name a line and column), object members in the order they were
/// written (so output is deterministic and inline JSON bodies keep their key order), and number
/// literals as written (so `1.50` in a body stays `1.50`). This is that tree, and nothing more.
package struct JSONNode: Sendable {
    /// The value.
    package var value: JSONValue
    /// Byte offset of the value's first byte in the source, or `-1` for a value built in code.
    package var offset: Int

    package init(_ value: JSONValue, offset: Int = -1) {
        self.value = value
        self.offset = offset
    }

    /// The value of this object's first member named `key`; nil when there is none or this is
    /// not an object.
    package func memberValue(_ key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The node `path` leads to from this one (the first member of each key), or nil.
    package func node(at path: JSONPath) -> JSONNode? {
        var node = self
        for component in path.components {
            switch (component, node.value) {
            case (.key(let key), _):
                guard let next = node.memberValue(key) else { return nil }
                node = next
            case (.index(let index), .array(let elements)) where elements.indices.contains(index):
                node = elements[index]
            case (.index, _):
                return nil
            }
        }
        return node
    }
}

/// One JSON value. Objects keep their members in source order, duplicates included: detecting
/// duplicate keys is the reader's job, because only the reader knows the path to report.
package enum JSONValue: Sendable {
    case null
    case bool(Bool)
    /// A number literal exactly as written; always valid JSON number grammar.
    case number(String)
    case string(String)
    /// A long string without escapes, kept as its bytes in the source until it is read (only
    /// from ``JSONParser/parse(_:keepingStringsLongerThan:)``): a cassette's base64 body then
    /// decodes from the file's bytes instead of from a copy of them.
    case longString(JSONLongString)
    /// Bytes written as a base64 string: built by the cassette writer (never by the parser), so
    /// that a large body goes into the file a piece at a time, without a base64 copy of it.
    case base64(Data)
    case array([JSONNode])
    case object([JSONMember])

    /// A short name for the kind of value, for error messages ("found a string").
    package var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return "the number \(n)"
        case .string, .longString, .base64: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The text of a string, long or not; nil for any other value.
    package var stringValue: String? {
        switch self {
        case .string(let text): return text
        case .longString(let long): return long.string
        default: return nil
        }
    }
}

/// The UTF-8 bytes of a long JSON string that has no escapes: a slice of the parsed source,
/// which it keeps alive. Read it into something of its own (``string``, or a decoded body)
/// before the source may go.
package struct JSONLongString: Sendable {
    /// Valid UTF-8, exactly the string's characters.
    package let bytes: Data
    /// Where ``bytes`` start in the source, for ``release``.
    package var offset = 0
    /// Told which bytes of the source (offsets from its start) are no longer needed: the file
    /// behind a mapped source can give back that memory. Reading a string again afterwards is
    /// still correct; it only costs reading the file again.
    package var release: (@Sendable (Range<Int>) -> Void)?

    package init(bytes: Data, offset: Int = 0, release: (@Sendable (Range<Int>) -> Void)? = nil) {
        self.bytes = bytes
        self.offset = offset
        self.release = release
    }

    /// The text, copied out of the source.
    package var string: String { String(decoding: bytes, as: UTF8.self) }

    /// The bytes, copied out of the source, which is then released.
    package var copiedBytes: Data {
        let copy = bytes.withUnsafeBytes { Data($0) }
        release?(offset..<(offset + bytes.count))
        return copy
    }

    /// The bytes the string encodes in base64, decoded a few megabytes at a time, each part of
    /// the source released once decoded; nil when it is not base64 (see ``Base64``).
    package var base64Decoded: Data? {
        Base64.decode(bytes, inChunksOf: 4 << 20) { done in release?((offset + done.lowerBound)..<(offset + done.upperBound)) }
    }
}

/// One `"key": value` member of a JSON object.
package struct JSONMember: Sendable {
    package var key: String
    /// Byte offset of the key's opening quote, or `-1` for a member built in code.
    package var keyOffset: Int
    package var value: JSONNode

    package init(key: String, keyOffset: Int = -1, value: JSONNode) {
        self.key = key
        self.keyOffset = keyOffset
        self.value = value
    }
}

extension JSONValue {
    /// The first key that appears twice in one object, searching depth first in document order:
    /// the key, its path (relative to this value, ending with the key) and the offset of its
    /// second occurrence and of the first.
    package func firstDuplicateKey() -> (key: String, path: JSONPath, offset: Int, firstOffset: Int)? {
        switch self {
        case .array(let elements):
            for (i, element) in elements.enumerated() {
                if let found = element.value.firstDuplicateKey() {
                    return (found.key, JSONPath([.index(i)] + found.path.components), found.offset, found.firstOffset)
                }
            }
        case .object(let members):
            // A few keys are compared with each other, which costs less than hashing them.
            let hashes = members.count > 16
            var seen: [String: Int] = [:]
            if hashes { seen.reserveCapacity(members.count) }
            for (index, member) in members.enumerated() {
                let first = hashes ? seen[member.key] : members[..<index].first { $0.key == member.key }?.keyOffset
                if let first {
                    return (member.key, JSONPath([.key(member.key)]), member.keyOffset, first)
                }
                if hashes { seen[member.key] = member.keyOffset }
                if let found = member.value.value.firstDuplicateKey() {
                    return (found.key, JSONPath([.key(member.key)] + found.path.components), found.offset, found.firstOffset)
                }
            }
        case .null, .bool, .number, .string, .longString, .base64:
            break
        }
        return nil
    }
}
