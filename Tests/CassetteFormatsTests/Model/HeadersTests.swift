import CassetteFormats
import Testing

@Suite struct HeadersTests {
    @Test func groupsRepeatedNamesAndLooksUpIgnoringCase() {
        var headers: Interaction.Headers = ["Content-Type": "text/html", "Set-Cookie": "a=1"]
        headers.add("set-cookie", "b=2")
        headers.add("X-Trace", "1")
        #expect(headers.fields.map(\.name) == ["Content-Type", "Set-Cookie", "X-Trace"])
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers["set-cookie"] == "a=1, b=2")
        #expect(headers["CONTENT-TYPE"] == "text/html")
        #expect(headers["Missing"] == nil)
        #expect(headers.count == 4)
        #expect(
            Array(headers).map { "\($0.name)=\($0.value)" } == ["Content-Type=text/html", "Set-Cookie=a=1", "Set-Cookie=b=2", "X-Trace=1"])
    }

    @Test func setReplacesInPlaceAndNilRemoves() {
        var headers: Interaction.Headers = ["A": "1", "B": "2", "C": "3"]
        headers["b"] = "two"
        #expect(headers.fields.map(\.name) == ["A", "B", "C"])
        #expect(headers.values(for: "B") == ["two"])
        headers["a"] = nil
        #expect(headers.fields.map(\.name) == ["B", "C"])
        #expect(!headers.contains("A"))
        headers.remove("C")
        #expect(headers.count == 1)
    }

    @Test func equalityKeepsSpellingAndValueOrder() {
        #expect(Interaction.Headers(dictionaryLiteral: ("ETag", "1")) != Interaction.Headers(dictionaryLiteral: ("Etag", "1")))
        #expect(
            Interaction.Headers([(name: "A", value: "1"), (name: "A", value: "2")])
                != Interaction.Headers([(name: "A", value: "2"), (name: "A", value: "1")]))
        // Interleaved fields group by name, as a file writes them.
        #expect(Interaction.Headers([("A", "1"), ("B", "x"), ("a", "2")]) == Interaction.Headers([("A", "1"), ("A", "2"), ("B", "x")]))
    }
}
