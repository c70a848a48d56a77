import Testing

/// A string test argument shown escaped as Swift writes it (`"a\nb"`): a parameterized test over
/// texts with line breaks then prints one line per case, not the text's lines among the results.
///
/// ```swift
/// @Test(arguments: ["data: a\n", "\n\n"] as [EscapedText])
/// func isNoEvent(_ text: EscapedText) { … text.value … }
/// ```
public struct EscapedText: Sendable, CustomTestStringConvertible, ExpressibleByStringLiteral {
    public let value: String

    public init(stringLiteral value: String) { self.value = value }

    public var testDescription: String { value.debugDescription }
}
