import Foundation
import Testing

@testable import Cassette

/// The placeholder rule on its own: what `[REDACTED-n]` and `[REDACTED]` in a recorded text match.
@Suite struct PlaceholderPatternTests {
    typealias Pattern = PlaceholderPattern

    @Test func aNumberedPlaceholderMatchesAnyValueAndBindsIt() {
        let match = Pattern.match("flavour=[REDACTED-1]&page=2", "flavour=oatmeal&page=2", bound: [:])
        #expect(match == Pattern.Match(bindings: ["[REDACTED-1]": "oatmeal"], count: 1, values: ["oatmeal"]))
    }

    @Test func everythingElseMustBeEqual() {
        #expect(Pattern.match("flavour=[REDACTED-1]&page=2", "flavour=oatmeal&page=3", bound: [:]) == nil)
        #expect(
            Pattern.match("flavour=[REDACTED-1]&page=2", "flavour=&page=2", bound: [:]) == nil, "a placeholder never stands for nothing")
        #expect(Pattern.match("/users/[REDACTED-1]/orders", "/users/42/orders", bound: [:])?.bindings == ["[REDACTED-1]": "42"])
    }

    @Test func aBoundPlaceholderMatchesOnlyItsValue() {
        #expect(
            Pattern.match("token=[REDACTED-1]", "token=abc", bound: ["[REDACTED-1]": "abc"]) == Pattern.Match(count: 1, values: ["abc"]))
        #expect(Pattern.match("token=[REDACTED-1]", "token=xyz", bound: ["[REDACTED-1]": "abc"]) == nil)
    }

    @Test func theSamePlaceholderTwiceStandsForOneValue() {
        #expect(Pattern.match("a=[REDACTED-1]&b=[REDACTED-1]", "a=x1&b=x1", bound: [:])?.bindings == ["[REDACTED-1]": "x1"])
        #expect(Pattern.match("a=[REDACTED-1]&b=[REDACTED-1]", "a=x1&b=x2", bound: [:]) == nil)
        #expect(
            Pattern.match("a=[REDACTED-1]&b=[REDACTED-2]", "a=x1&b=x2", bound: [:])?.bindings == [
                "[REDACTED-1]": "x1", "[REDACTED-2]": "x2",
            ])
    }

    @Test func thePlainPlaceholderMatchesAnythingAndBindsNothing() {
        let match = Pattern.match("a=[REDACTED]&b=[REDACTED]", "a=x1&b=x2", bound: [:])
        #expect(match == Pattern.Match(count: 2, values: ["x1", "x2"]))
    }

    @Test func aPlaceholderInsideAValueStandsForThePartItReplaced() {
        let match = Pattern.match("url=/anything?api_key=[REDACTED-1]", "url=/anything?api_key=TOKEN123456", bound: [:])
        #expect(match?.bindings == ["[REDACTED-1]": "TOKEN123456"])
    }

    @Test func insideAJSONStringTheValueIsReadUnescaped() {
        let match = Pattern.match(#"{"password":"[REDACTED-1]"}"#, #"{"password":"a\"b\\c"}"#, bound: [:], spelling: .jsonString)
        #expect(match?.bindings == ["[REDACTED-1]": #"a"b\c"#])
        #expect(
            Pattern.match(#"{"password":"[REDACTED-1]"}"#, #"{"password":"a\"b"}"#, bound: ["[REDACTED-1]": #"a"b"#], spelling: .jsonString)
                != nil)
    }

    @Test func textThatOnlyLooksLikeAPlaceholderIsLiteral() {
        #expect(
            Pattern.pieces(of: Array("[REDACTED-x] [REDACTED-] [REDACTED".utf8)) == [
                .literal(Array("[REDACTED-x] [REDACTED-] [REDACTED".utf8))
            ])
        #expect(Pattern.isPlaceholder("[REDACTED-12]") && Pattern.isPlaceholder("[REDACTED]") && !Pattern.isPlaceholder("[REDACTED-12] "))
    }

    @Test func aPathologicalTextFailsInsteadOfHanging() {
        let recorded = String(repeating: "[REDACTED]", count: 40) + "!"
        let live = String(repeating: "a", count: 4_000)
        #expect(Pattern.match(recorded, live, bound: [:]) == nil)
    }

    /// Spellings a restored value takes: percent-encoded where the placeholder was, JSON-escaped in JSON.
    @Test func aBoundValueGoesBackSpelledAsThePlaceholderWas() {
        let any = SecretScrubber(restoring: [("[REDACTED-1]", "a b\"c")])
        #expect(any.apply("q=%5BREDACTED-1%5D") == "q=a%20b%22c")
        #expect(any.apply("x [REDACTED-1] y") == "x a b\"c y")
        let json = SecretScrubber(restoring: [("[REDACTED-1]", "a b\"c")], insideJSON: true)
        #expect(json.apply(#"{"v":"[REDACTED-1]"}"#) == #"{"v":"a b\"c"}"#)
    }
}
