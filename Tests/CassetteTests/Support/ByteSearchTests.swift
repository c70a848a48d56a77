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
        #expect((text.utf8Offset(of: needle) != nil) == holds)
        #expect(PlaceholderPattern.containsPlaceholder(text) == text.utf8Contains("[REDACTED"))
        #expect(PlaceholderPattern.containsPlaceholder(Data(text.utf8)) == text.utf8Contains("[REDACTED"))
    }

    @Test(
        arguments: [
            ("https://a.example/[REDACTED]", "[REDACTED", 18), ("[R[RE[REDACTED", "[REDACTED", 5), ("abc", "", 0), ("é://", "://", 2),
            ("ab", "abc", nil), ("x[REDACTEd]", "[REDACTED", nil),
        ] as [(String, String, Int?)])
    func theOffsetIsWhereTheFirstCopyStarts(text: String, needle: String, offset: Int?) {
        #expect(text.utf8Offset(of: needle) == offset)
    }

    /// The origin a replay's URLs move from or to: scheme and authority as written, up to the
    /// first `/`, `?` or `#` after `://`.
    @Test(
        arguments: [
            ("https://api.example/v1?x=1", "https://api.example"), ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("HTTP://Host:1?q", "HTTP://Host:1"), ("https://h#frag", "https://h"), ("https://[::1]:9/p", "https://[::1]:9"),
            ("https://ex\u{e4}mple.test/p", "https://ex\u{e4}mple.test"), ("/relative/path", nil), ("mailto:someone", nil), ("", nil),
        ] as [(String, String?)])
    func anOriginIsTheURLUpToItsPath(url: String, origin: String?) {
        #expect(OriginMove.origin(of: url) == origin)
    }
}
