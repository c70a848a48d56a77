import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// `trimmingWhitespace()` answers as `trimmingCharacters(in: .whitespaces)` does, on every input.
@Suite struct WhitespaceTrimmingTests {
    @Test(arguments: [
        ("  text/plain\t", "text/plain"), ("\t\t", ""), ("", ""), ("a b", "a b"), (" a  b ", "a  b"),
        ("\u{A0}value\u{A0}", "value"), (" \u{3000}value", "value"), ("value\u{2003} ", "value"), ("café ", "café"),
        (" \u{301}x", "\u{301}x"), ("\u{85}x", "\u{85}x"), ("\u{B}x\u{C}", "\u{B}x\u{C}"), ("\r\nx", "\r\nx"),
    ])
    func aValueLosesTheSpacesAtItsEnds(_ value: String, _ trimmed: String) {
        #expect(value.trimmingWhitespace() == trimmed)
        #expect(value.trimmingCharacters(in: .whitespaces) == trimmed)
        #expect(value[...].trimmingWhitespace() == trimmed)
    }

    @Test func itAgreesWithFoundationOnRandomValues() {
        var random = SeededGenerator(seed: 29)
        let pieces = [" ", "\t", "a", "Z", "\u{A0}", "\u{3000}", "\u{2009}", "é", "e\u{301}", "\u{1}", "\r", "\n", "\u{85}", ",", ""]
        for _ in 0..<20_000 {
            var value = ""
            for _ in 0..<Int.random(in: 0...8, using: &random) { value += pieces.randomElement(using: &random) ?? "" }
            #expect(value.trimmingWhitespace() == value.trimmingCharacters(in: .whitespaces), "\(value.unicodeScalars.map(\.value))")
        }
    }
}
