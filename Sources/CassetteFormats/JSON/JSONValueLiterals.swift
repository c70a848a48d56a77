import Foundation

/// JSON values built in code, for what Cassette writes that is not a cassette (the admin
/// interface's answers, the commands' `--json` output), so that every JSON the project writes
/// goes through ``JSONWriter`` / ``JSONPrettyPrinter``:
///
/// ```swift
/// let answer: JSONValue = ["loaded": JSONValue(file.path), "replayed": JSONValue(3), "previous": .null]
/// let text = JSONPrettyPrinter().print(answer)
/// ```
///
/// An object keeps its members in the order written.
extension JSONValue: ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int) { self = .number(String(value)) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements.map { JSONNode($0) }) }
    package init(dictionaryLiteral members: (String, JSONValue)...) {
        self = .object(members.map { JSONMember(key: $0.0, value: JSONNode($0.1)) })
    }

    /// A string; `null` for nil.
    package init(_ text: String?) { self = text.map { .string($0) } ?? .null }
    package init(_ number: Int) { self = .number(String(number)) }
    /// A number as Swift writes it shortest (`30`, `0.5`); `null` when it is not finite.
    package init(_ number: Double) {
        guard number.isFinite else {
            self = .null
            return
        }
        self = number == number.rounded() && abs(number) < 1e15 ? .number(String(Int(number))) : .number("\(number)")
    }
    package init(_ flag: Bool) { self = .bool(flag) }
    package init(_ strings: [String]) { self = .array(strings.map { JSONNode(.string($0)) }) }
    package init(_ numbers: [Int]) { self = .array(numbers.map { JSONNode(.number(String($0))) }) }
    package init(_ values: [JSONValue]) { self = .array(values.map { JSONNode($0) }) }

    /// The value as a document of its own, pretty-printed as cassettes are, without a final newline.
    package var prettyPrinted: String { String(decoding: JSONPrettyPrinter().print(self).dropLast(), as: UTF8.self) }

    /// The value on one line, without a final newline.
    package var compactText: String { String(decoding: JSONWriter.compact(self), as: UTF8.self) }
}
