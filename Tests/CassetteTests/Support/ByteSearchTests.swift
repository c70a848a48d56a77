import Foundation
import Testing

@testable import Cassette

/// The byte searches every request's matching makes: the same answers as a search of the
/// characters where the two agree, and bytes (not Unicode equivalence) where they do not.
@Suite struct ByteSearchTests {
    @Test(arguments: [
        ("https://a.example/[REDACTED]", "[REDACTED", true), ("[REDACTED-2]", "[REDACTED", true), ("[REDACTE", "[REDACTED", false),
        ("[[REDACTED", "[REDACTED", true), ("[R[RE[REDACTED", "[REDACTED", true), ("x[REDACTEd]", "[REDACTED", false),
        ("", "", true), ("abc", "", true), ("", "a", false), ("ab", "abc", false), ("abc", "abc", true), ("xxabc", "abc", true),
        ("café", "é", true), ("cafe\u{301}", "é", false),
    ])
    func aStringHoldsTheBytesOfAnother(text: String, needle: String, holds: Bool) {
        #expect(text.utf8Contains(needle) == holds)
        #expect(PlaceholderPattern.containsPlaceholder(text) == text.utf8Contains("[REDACTED"))
        #expect(PlaceholderPattern.containsPlaceholder(Data(text.utf8)) == text.utf8Contains("[REDACTED"))
    }
}
