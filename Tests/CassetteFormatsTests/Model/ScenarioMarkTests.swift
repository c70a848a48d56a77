import CassetteFormats
import Foundation
import Testing

/// An interaction's `scenario` mark (a fault the live service will not make, in one line): written
/// and read alike by every format, read from a hand-written `.http` comment, and refused with its
/// place when it is not one line.
@Suite struct ScenarioMarkTests {
    static let marked = CassetteDocument(interactions: [
        Interaction(
            request: .init(url: "https://api.example.com/feed"), error: .init(code: .timedOut), scenario: " spaces kept — 503 "),
        Interaction(request: .init(url: "https://api.example.com/users"), response: .init(status: 200)),
    ])

    @Test(arguments: CassetteFormat.allCases)
    func everyFormatWritesAndReadsTheMark(_ format: CassetteFormat) throws {
        let data = try format.encode(Self.marked)
        #expect(try format.decode(data) == Self.marked)
        let text = String(decoding: data, as: UTF8.self)
        switch format {
        case .json: #expect(text.contains(#""error": { "code": "timedOut" },\#n      "scenario": " spaces kept — 503 "\#n"#), "\(text)")
        case .httpMessages: #expect(text.contains("### error=timedOut\n# scenario:  spaces kept — 503 \nGET https://"), "\(text)")
        case .har: #expect(text.contains(#""scenario": " spaces kept — 503 ""#), "\(text)")
        }
    }

    @Test func aHandWrittenHTTPCommentMarksItsInteraction() throws {
        let text = """
            ### error=timedOut
            # the feed times out, for the retry test
            #   scenario:   the API times out
            GET https://api.example.com/feed HTTP/1.1

            ###
            GET https://api.example.com/users HTTP/1.1

            HTTP/1.1 200 OK

            """
        let document = try CassetteFormat.httpMessages.decode(Data(text.utf8), file: "feed.http")
        #expect(document.interactions.map(\.scenario) == ["the API times out", nil])
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var name: String
        var format: CassetteFormat
        var text: String
        var place: String
        var testDescription: String { "\(format): \(name)" }
    }

    static let bad: [Bad] = [
        Bad(
            name: "blank",
            format: .json,
            text:
                #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "https://a.example/" }, "error": { "code": "timedOut" }, "scenario": "  " } ] }"#,
            place: #"bad.json:1:143: error: interactions[0].scenario: expected a line saying what the interaction simulates, found "  ""#),
        Bad(
            name: "not a string",
            format: .json,
            text:
                #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "https://a.example/" }, "error": { "code": "timedOut" }, "scenario": true } ] }"#,
            place: "bad.json:1:143: error: interactions[0].scenario: expected a line saying what it simulates, found true"),
        Bad(
            name: "two lines",
            format: .json,
            text:
                #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "https://a.example/" }, "error": { "code": "timedOut" }, "scenario": "a\nb" } ] }"#,
            place: #"bad.json:1:143: error: interactions[0].scenario: a scenario is one line, found a line break or NUL in "a\nb""#),
        Bad(
            name: "an empty comment",
            format: .httpMessages, text: "### error=timedOut\n# scenario:\nGET https://a.example/ HTTP/1.1\n",
            place: #"bad.http:2:12: error: interactions[0].scenario: expected a line saying what the interaction simulates, found """#),
        Bad(
            name: "empty",
            format: .har,
            text:
                #"{ "log": { "version": "1.2", "creator": { "name": "T", "version": "1" }, "entries": [ { "request": { "method": "GET", "url": "https://a.example/" }, "response": { "status": 200 }, "_cassette": { "scenario": "" } } ] } }"#,
            place:
                #"bad.har:1:208: error: log.entries[0]._cassette.scenario: expected a line saying what the interaction simulates, found """#
        ),
    ]

    @Test(arguments: bad)
    func aMarkThatIsNotOneLineIsRefusedWithItsPlace(_ test: Bad) {
        let name = "bad.\(test.format.fileExtension)"
        #expect(throws: (any Error).self) { try test.format.decode(Data(test.text.utf8), file: name) }
        do {
            _ = try test.format.decode(Data(test.text.utf8), file: name)
        } catch {
            #expect(error.description == test.place)
        }
    }

    @Test func aMarkThatIsNotOneLineIsNeverWritten() {
        var document = Self.marked
        document.interactions[0].scenario = "two\nlines"
        for format in CassetteFormat.allCases {
            #expect(throws: CassetteFormatError.self, "\(format)") { try format.encode(document) }
        }
    }
}
