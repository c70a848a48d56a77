import CassetteFormats
import Foundation
import Testing

@Suite struct EncodingTests {
    static let designExample = CassetteDocument(
        recordedWith: "Cassette 0.1.0",
        interactions: [
            Interaction(
                recordedAt: Date(timeIntervalSince1970: 1_795_342_530.123),
                request: .init(method: "GET", url: "https://api.example.com/users/42?fields=name", headers: ["Accept": "application/json"]),
                response: .init(
                    status: 200,
                    headers: Interaction.Headers([("Content-Type", "application/json"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2")]),
                    body: .init(Data(#"{"id":42,"name":"Ada"}"#.utf8), contentType: "application/json")),
                timing: .init(firstByte: 0.084, duration: 0.112)),
            Interaction(
                request: .init(method: "GET", url: "https://api.example.com/feed"),
                error: .init(code: .notConnectedToInternet)),
        ])

    @Test func writesTheDesignExampleExactly() throws {
        let text = String(decoding: try JSONCassetteCodec.encode(Self.designExample), as: UTF8.self)
        #expect(
            text == """
                {
                  "version": 1,
                  "recordedWith": "Cassette 0.1.0",
                  "interactions": [
                    {
                      "recordedAt": "2026-11-22T10:15:30.123Z",
                      "request": {
                        "method": "GET",
                        "url": "https://api.example.com/users/42?fields=name",
                        "headers": { "Accept": "application/json" }
                      },
                      "response": {
                        "status": 200,
                        "headers": { "Content-Type": "application/json", "Set-Cookie": ["a=1", "b=2"] },
                        "body": { "json": { "id": 42, "name": "Ada" } }
                      },
                      "timing": { "firstByte": 0.084, "duration": 0.112 }
                    },
                    {
                      "request": { "method": "GET", "url": "https://api.example.com/feed" },
                      "error": { "code": "notConnectedToInternet" }
                    }
                  ]
                }

                """)
    }

    @Test func sameDocumentSameBytes() throws {
        let first = try JSONCassetteCodec.encode(Self.designExample)
        for _ in 0..<20 { #expect(try JSONCassetteCodec.encode(Self.designExample) == first) }
    }

    @Test func anEmptyCassetteIsThreeFields() throws {
        #expect(
            String(decoding: try JSONCassetteCodec.encode(CassetteDocument()), as: UTF8.self)
                == "{\n  \"version\": 1,\n  \"interactions\": []\n}\n")
    }

    @Test func refusesToWriteWhatCouldNotBeReadBack() {
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(method: "GET", url: "/relative", headers: ["Bad Name": "x", "X-Ok": "a\nb"]),
                response: .init(status: 0), timing: .init(firstByte: 2, duration: 1)),
            Interaction(recordedAt: Date(timeIntervalSince1970: 1e13), request: .init(method: "", url: "https://a.example/")),
        ])
        do {
            _ = try JSONCassetteCodec.encode(document)
            Issue.record("an invalid document was encoded")
        } catch {
            #expect(
                error.problems.map { "\($0.path?.description ?? "-")" } == [
                    "interactions[0].request.url",
                    "interactions[0].request.headers[\"Bad Name\"]",
                    "interactions[0].request.headers[\"X-Ok\"]",
                    "interactions[0].response.status",
                    "interactions[0].timing",
                    "interactions[1].recordedAt",
                    "interactions[1].request.method",
                    "interactions[1]",
                ])
            #expect(error.problems[3].message == "expected an HTTP status from 100 to 599, found 0")
            #expect(error.problems[7].message == "expected a \"response\", an \"error\", or both")
            #expect(error.problems.allSatisfy { $0.line == nil && $0.column == nil })
        }
    }

    @Test func errorCodesWithoutANameAreWrittenAsNumbers() throws {
        let document = CassetteDocument(interactions: [
            Interaction(request: .init(url: "https://a.example/"), error: .init(code: .init(rawValue: -424242)))
        ])
        let text = String(decoding: try JSONCassetteCodec.encode(document), as: UTF8.self)
        #expect(text.contains(#""error": { "code": -424242 }"#))
        #expect(try JSONCassetteCodec.decode(Data(text.utf8)).interactions.first?.error?.code.rawValue == -424242)
        #expect(Interaction.TransportError.Code(name: "timedOut")?.rawValue == -1001)
        #expect(Interaction.TransportError.Code.timedOut.name == "timedOut")
        #expect(Interaction.TransportError.Code(name: "timedout") == nil)
    }
}
