import Foundation

/// A value a test keeps with its cassette (``CassetteDocument/metadata``): JSON — the API version
/// it was recorded against, the account used, a ticket.
///
/// ```swift
/// tape.metadata["apiVersion"] = "2026-10-01"
/// tape.metadata["account"] = ["id": 42, "plan": "pro"]
/// ```
public enum MetadataValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    /// A whole number (read from a JSON number without fraction or exponent that fits an `Int`).
    case integer(Int)
    /// Any other number; finite.
    case number(Double)
    /// A number kept exactly as it was written where a ``number(_:)`` would write it otherwise
    /// (`1.10`, `12345678901234567890123`, `1E3`): a cassette's metadata reads back, and converts
    /// to another format, as written. Made by reading; in code, the text must be a JSON number.
    case numberLiteral(String)
    case string(String)
    case array([MetadataValue])
    /// An object; written with its keys sorted.
    case object([String: MetadataValue])

    /// The value as compact JSON: `{"id":42,"plan":"pro"}`.
    public var description: String { String(decoding: JSONWriter.compact(json), as: UTF8.self) }

    /// The text of a ``string(_:)``; nil for any other value.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number of an ``integer(_:)``; nil for any other value.
    public var integerValue: Int? {
        if case .integer(let number) = self { return number }
        return nil
    }

    /// The value as the JSON writer writes it.
    package var json: JSONValue {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .integer(let value): return .number(String(value))
        // Swift's shortest form that reads back the same ("3.0", "1e-05"): a number stays a number.
        case .number(let value): return .number(value.description)
        case .numberLiteral(let text): return .number(text)
        case .string(let text): return .string(text)
        case .array(let values): return .array(values.map { JSONNode($0.json) })
        case .object(let members):
            return .object(members.keys.sorted().map { JSONMember(key: $0, value: JSONNode(members[$0]?.json ?? .null)) })
        }
    }

    /// `json` as a metadata value; a duplicate key is left to the caller to report (the last one counts).
    package init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let text):
            if let whole = Int(text), String(whole) == text {
                self = .integer(whole)
            } else if let value = Double(text), value.isFinite, value.description == text {
                self = .number(value)
            } else {
                // Written otherwise than a double would write it, or beyond a double (1e400, valid
                // JSON): kept as written, never the reason a cassette cannot be read.
                self = .numberLiteral(text)
            }
        case .string, .longString, .base64: self = .string(json.stringValue ?? "")
        case .array(let elements): self = .array(elements.map { MetadataValue(json: $0.value) })
        case .object(let members):
            var object: [String: MetadataValue] = [:]
            for member in members { object[member.key] = MetadataValue(json: member.value.value) }
            self = .object(object)
        }
    }

    /// Whether `text` is one JSON number, and nothing else.
    private static func isJSONNumber(_ text: String) -> Bool {
        guard let node = try? JSONParser.parse(Data(text.utf8)), case .number = node.value else { return false }
        return true
    }

    /// What is wrong with the value (a number that is not finite, which JSON cannot hold), or nil.
    var problem: String? {
        switch self {
        case .number(let value) where !value.isFinite:
            return "a metadata number must be finite (a double holds up to about 1.8e308), found \(value)"
        case .numberLiteral(let text) where !Self.isJSONNumber(text):
            return "a metadata number literal must be a JSON number (like 1.10 or 12345678901234567890123), found \"\(text)\""
        case .array(let values): return values.lazy.compactMap(\.problem).first
        case .object(let members): return members.keys.sorted().lazy.compactMap { members[$0]?.problem }.first
        default: return nil
        }
    }
}

extension MetadataValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    /// A ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An ``integer(_:)``.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// A ``number(_:)``.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An ``array(_:)``.
    public init(arrayLiteral elements: MetadataValue...) { self = .array(elements) }
    /// An ``object(_:)``; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, MetadataValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// ``null``.
    public init(nilLiteral: ()) { self = .null }
}
