import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// `CanonicalURL.text` returns a URL that is already canonical as it is, without building it
/// again; every URL gets exactly the text the full canonicalisation gives.
@Suite struct CanonicalURLTests {
    /// The full canonicalisation: a rule to ignore a parameter no URL has turns the shortcut off.
    static func fullText(_ url: String, origin: RequestMatching.Origin = .exact) -> String {
        CanonicalURL.text(url, ignoringQuery: ["\u{1}never"], origin: origin)
    }

    @Test(arguments: [
        ("https://api.example.com/users/42?fields=name", "https://api.example.com/users/42?fields=name"),
        ("https://API.example.com/users", "https://api.example.com/users"),
        ("HTTPS://api.example.com/users", "https://api.example.com/users"),
        ("https://api.example.com:443/a", "https://api.example.com/a"),
        ("http://api.example.com:80/a", "http://api.example.com/a"),
        ("http://api.example.com:443/a", "http://api.example.com:443/a"),
        ("https://api.example.com", "https://api.example.com/"),
        ("https://api.example.com/a?b=2&a=1", "https://api.example.com/a?a=1&b=2"),
        ("https://api.example.com/a?a=2&a=1", "https://api.example.com/a?a=2&a=1"),
        ("https://api.example.com/a?a=%41&b", "https://api.example.com/a?a=A&b="),
        ("https://api.example.com/a?", "https://api.example.com/a"),
        ("https://api.example.com/a?a=1&&b=2", "https://api.example.com/a?a=1&b=2"),
        ("https://user:pw@api.example.com/a", "https://api.example.com/a"),
        ("https://api.example.com/a#part", "https://api.example.com/a"),
        ("https://api.example.com/a?q=a+b", "https://api.example.com/a?q=a+b"),
        ("https://[::1]:8080/a", "https://[::1]:8080/a"),
        ("https://bücher.example/a", "https://bücher.example/a"),
    ])
    func aURLHasOneCanonicalText(_ url: String, _ expected: String) {
        #expect(CanonicalURL.text(url) == expected)
        #expect(Self.fullText(url) == expected)
        // With any origin (`ignoringHost()`), the text is the path and the query.
        let path = expected.firstRange(of: "://").flatMap { expected[$0.upperBound...].firstIndex(of: "/") }.map { String(expected[$0...]) }
        #expect(CanonicalURL.text(url, origin: .any) == path)
        #expect(Self.fullText(url, origin: .any) == path)
    }

    @Test func theShortcutAgreesWithTheFullCanonicalisationOnRandomURLs() {
        var random = SeededGenerator(seed: 17)
        let pieces = ["a", "B", "%41", "+", "=", "&", "?", "#", ":", "80", "443", "/", "@", "é", "z", "1", "[", "]", ""]
        for _ in 0..<20_000 {
            var url = ["http://", "https://", "HTTP://"].randomElement(using: &random) ?? "http://"
            for _ in 0..<Int.random(in: 0...12, using: &random) { url += pieces.randomElement(using: &random) ?? "" }
            #expect(CanonicalURL.text(url) == Self.fullText(url), "\(url)")
            #expect(CanonicalURL.text(url, origin: .any) == Self.fullText(url, origin: .any), "\(url)")
        }
    }
}
