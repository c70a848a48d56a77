import Foundation
import Testing

@testable import Cassette
@testable import CassetteTools

/// A body is JSON to matching, the miss report, `cassette diff`, `cassette check --live` and
/// `cassette view` alike: each reads it through `BodyContent`, by its `Content-Type`.
@Suite struct BodyContentTests {
    /// A JSON body changed from `{"a":1}` to `{"a":2}` (or the same bytes under another type).
    static let cases: [(contentType: String?, isJSON: Bool)] = [
        ("application/json", true),
        ("application/problem+json; charset=utf-8", true),
        (nil, true),
        ("text/plain", false),
        ("application/octet-stream", false),
    ]

    static func response(_ body: String, _ contentType: String?) -> Interaction.Response {
        var headers = Interaction.Headers()
        if let contentType { headers.add("Content-Type", contentType) }
        return Interaction.Response(status: 200, headers: headers, body: Interaction.Body(Data(body.utf8), contentType: contentType))
    }

    static func interaction(_ body: String, _ contentType: String?) -> Interaction {
        Interaction(request: Interaction.Request(url: "https://api.example.com/a"), response: response(body, contentType))
    }

    @Test(arguments: 0..<cases.count)
    func everyReaderAgreesWhetherABodyIsJSON(_ index: Int) throws {
        let (contentType, isJSON) = Self.cases[index]
        let (old, new) = (Self.interaction(#"{"a":1}"#, contentType), Self.interaction(#"{"a":2}"#, contentType))

        #expect((BodyContent(of: try #require(old.response)).json != nil) == isJSON)

        // cassette diff: JSON path by path, anything else by size and hash.
        let changes = CassetteDiff.changes(from: old, to: new, ignoring: .default)
        #expect(changes.map(\.field) == [isJSON ? "response.body.$.a" : "response.body"])

        // cassette check --live: the same.
        let drift = LiveCheck.drift(from: old, to: try #require(new.response), values: true)
        #expect(
            drift == [
                isJSON ? "response.body.$.a: 1 → 2" : "response.body: 7 bytes, fnv1a 9c3e82dd6fcae8b1 → 7 bytes, fnv1a 9c3b82dd6fc8b2da"
            ])

        // cassette view: the page's data says how it shows the body.
        let page = CassetteViewPage(sources: [
            .init(file: "a.json", format: "JSON", document: CassetteDocument(interactions: [old]), warnings: [])
        ])
        let data = page.dataJSON()
        #expect(data.contains(isJSON ? #""kind":"json""# : #""kind":"text""#), "\(data)")

        // Matching: a JSON body matches by meaning (key order and spacing aside), others byte for byte.
        let recorded = Interaction.Request(
            method: "POST", url: "https://api.example.com/a", headers: contentType.map { ["Content-Type": $0] } ?? [:],
            body: Interaction.Body(Data(#"{"a":1,"b":2}"#.utf8), contentType: contentType))
        var live = recorded
        live.body = Interaction.Body(Data(#"{ "b": 2, "a": 1 }"#.utf8), contentType: contentType)
        #expect(RequestMatching.default.matches(live, recorded) == isJSON)
    }
}
