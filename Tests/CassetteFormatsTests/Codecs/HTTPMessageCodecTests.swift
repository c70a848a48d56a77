import CassetteFormats
import CassetteTestSupport
import Foundation
import Testing

/// The HTTP-message format (`docs/HTTPMessageFormat.md`): what a hand-written or pasted file
/// means, exactly what the writer writes, and the diagnostics for wrong files.
@Suite struct HTTPMessageCodecTests {
    static func decode(_ text: String) throws -> CassetteDocument {
        try HTTPMessageCassetteCodec.decode(Data(text.utf8), file: "t.http")
    }

    @Test func theWriterWritesWireMessagesWithASeparatorOfFields() throws {
        let document = CassetteDocument(
            recordedWith: "Cassette 0.1.0",
            interactions: [
                Interaction(
                    recordedAt: Date(timeIntervalSince1970: 1_795_349_730.123),
                    request: .init(
                        method: "POST", url: "https://api.example.com/users?b=2&a=1",
                        headers: ["Content-Type": "application/json", "X-Padded": "  two spaces  "],
                        body: .init(Data(#"{"name":"Ada"}"#.utf8), contentType: "application/json")),
                    response: .init(
                        status: 201, url: "https://api.example.com/users/42",
                        headers: Interaction.Headers([(name: "Set-Cookie", value: "a=1"), (name: "Set-Cookie", value: "b=2")]),
                        body: .init(text: "line 1\nline 2\n")),
                    timing: .init(firstByte: 0.084, duration: 0.112)),
                Interaction(request: .init(url: "https://api.example.com/feed"), error: .init(code: .notConnectedToInternet)),
                Interaction(
                    request: .init(url: "https://api.example.com/avatar"),
                    response: .init(
                        status: 599, headers: ["Content-Type": "image/png"], body: .init(Data([0x89, 0x50, 0x4E, 0x47, 0x00]))),
                    error: .init(code: .init(rawValue: -4242), afterBytes: 2),
                    latency: .fixed(firstByte: 2, duration: 2.5)),
            ])
        let text = String(decoding: try HTTPMessageCassetteCodec.encode(document), as: UTF8.self)
        #expect(
            text == """
                # version: 1
                # recordedWith: Cassette 0.1.0

                ### recordedAt=2026-11-22T12:15:30.123Z firstByte=0.084 duration=0.112 responseURL=https://api.example.com/users/42
                POST https://api.example.com/users?b=2&a=1 HTTP/1.1
                Content-Type: application/json
                X-Padded:   two spaces  \("")

                {"name":"Ada"}

                HTTP/1.1 201 Created
                Set-Cookie: a=1
                Set-Cookie: b=2

                line 1
                line 2


                ### error=notConnectedToInternet
                GET https://api.example.com/feed HTTP/1.1

                ### error=-4242 afterBytes=2 latency=fixed:2,2.5 responseBody=base64
                GET https://api.example.com/avatar HTTP/1.1

                HTTP/1.1 599
                Content-Type: image/png

                iVBORwA=


                """)
        #expect(try HTTPMessageCassetteCodec.decode(Data(text.utf8)) == document)
    }

    @Test func aHandWrittenFileMeansWhatTheReferenceSays() throws {
        let document = try Self.decode(
            """
            # Users API, trimmed by hand.
            # version: 1

            # The first interaction needs no ### line.
            GET https://api.example.com/users/42
            Accept: application/json
            HTTP/1.1 200 OK
            Content-Type: application/json
            Content-Length: 2

            {"id":42,"name":"edited without touching Content-Length"}

            ### firstByte=2 duration=2.5 error=timedOut
            # a comment before the request line
            GET https://api.example.com/slow HTTP/1.1

            ###    error=networkConnectionLost   afterBytes=3
            GET https://api.example.com/partial HTTP/1.1

            HTTP/2 200
            content-type: text/plain

            abcdef
            """)
        #expect(document.recordedWith == nil)
        #expect(document.interactions.count == 3)
        let first = document.interactions[0]
        #expect(first.request == .init(method: "GET", url: "https://api.example.com/users/42", headers: ["Accept": "application/json"]))
        #expect(first.response?.status == 200)
        #expect(first.response?.headers == ["Content-Type": "application/json", "Content-Length": "2"])
        #expect(first.response?.body.text == #"{"id":42,"name":"edited without touching Content-Length"}"#)
        #expect(first.response?.body.form == .json)
        #expect(document.interactions[1].response == nil)
        #expect(document.interactions[1].error == .init(code: .timedOut))
        #expect(document.interactions[1].timing == .init(firstByte: 2, duration: 2.5))
        #expect(document.interactions[2].response?.body.text == "abcdef")
        #expect(document.interactions[2].error == .init(code: .networkConnectionLost, afterBytes: 3))
    }

    /// What `curl -i` prints (CRLF line ends, an interim 100 Continue, `HTTP/2` without a reason)
    /// pasted under a request line.
    @Test func curlOutputPastedUnderARequestLineReads() throws {
        let pasted = "HTTP/1.1 100 Continue\r\n\r\nHTTP/2 201 \r\ncontent-type: application/json\r\nx-request-id:  abc\r\n\r\n{\"ok\":true}"
        let document = try Self.decode(
            "### \nPOST https://api.example.com/items HTTP/1.1\r\nContent-Type: text/plain\r\n\r\nhello\r\n\r\n" + pasted)
        let interaction = try #require(document.interactions.first)
        #expect(interaction.request.headers == ["Content-Type": "text/plain"])
        #expect(interaction.request.body.text == "hello")
        #expect(interaction.response?.status == 201)
        #expect(
            interaction.response?.headers
                == Interaction.Headers([(name: "content-type", value: "application/json"), (name: "x-request-id", value: " abc")]))
        #expect(interaction.response?.body.data == Data(#"{"ok":true}"#.utf8))
    }

    /// A `curl -i` paste whose body ends in a line break keeps it, however the paste ends (at the
    /// end of the file, after one Enter, after two), because `Content-Length` says it is there.
    @Test(arguments: ["", "\n", "\n\n", "\r\n"] as [EscapedText])
    func aPastedBodyKeepsTheLineBreakContentLengthPromises(ending argument: EscapedText) throws {
        let ending = argument.value
        let json = "{\n  \"origin\": \"127.0.0.1\"\n}\n"
        let pasted = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n" + json
        let document = try Self.decode("### \nGET https://httpbin.org/ip HTTP/1.1\n\n" + pasted + ending)
        #expect(document.interactions.first?.response?.body.data == Data(json.utf8))
        // Without a Content-Length the rule of the format applies: up to two line breaks are the file's.
        let unknown = try Self.decode("### \nGET https://httpbin.org/ip HTTP/1.1\n\nHTTP/1.1 200 OK\r\n\r\n" + json + ending)
        #expect(
            unknown.interactions.first?.response?.body.data
                == Data((ending.count >= 2 && ending != "\r\n" ? json : String(json.dropLast())).utf8))
    }

    /// A body one or two bytes shorter than its `Content-Length` (cut short on the wire) would
    /// read back with the writer's line breaks in it: it is written in base64, and comes back exact.
    @Test(arguments: [1, 2, 3, 0, -1])
    func aBodyJustShortOfItsContentLengthComesBackExact(missing: Int) throws {
        let body = "{\"cut\":true}"
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(url: "https://a.example/"),
                response: .init(status: 200, headers: ["Content-Length": String(body.utf8.count + missing)], body: .init(text: body)))
        ])
        let text = String(decoding: try HTTPMessageCassetteCodec.encode(document), as: UTF8.self)
        #expect(try HTTPMessageCassetteCodec.decode(Data(text.utf8)) == document)
        #expect(text.contains("responseBody=base64") == (missing == 1 || missing == 2), "\(text)")
    }

    /// Bodies the reader would cut short are written in base64, and come back exact.
    @Test(
        arguments: [
            "## heading\n### not a separator?\nyes it is\n",
            "HTTP/1.1 200 OK\nlooks like a status line",
            "ends in a carriage return\r",
            "tab\tand\u{1}control",
            "\n\n\n",
        ] as [EscapedText])
    func bodiesThatWouldBeMisreadAreWrittenInBase64(body argument: EscapedText) throws {
        let body = argument.value
        let data = Data(body.utf8)
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(method: "PUT", url: "https://a.example/", body: .init(data)),
                response: .init(status: 200, body: .init(data)))
        ])
        let text = String(decoding: try HTTPMessageCassetteCodec.encode(document), as: UTF8.self)
        let back = try HTTPMessageCassetteCodec.decode(Data(text.utf8))
        #expect(back.interactions.first?.request.body.data == data)
        #expect(back.interactions.first?.response?.body.data == data)
        let base64 = text.contains("requestBody=base64")
        // A status line only ends a request body; "\n\n\n" is plain text with line breaks.
        #expect(base64 == !(body == "\n\n\n"), "\(text)")
        #expect(text.contains("responseBody=base64") == (body != "\n\n\n" && !body.hasPrefix("HTTP/")))
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        var diagnostics: [String]
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        .init(
            name: "unknown field", text: "### firstbyte=1\nGET https://a.example/\n\nHTTP/1.1 200 OK\n\n",
            diagnostics: [
                ####"t.http:1:5: error: interactions[0]: unknown field "firstbyte" (did you mean "firstByte"?) on the "###" line; known fields: recordedAt, firstByte, duration, error, afterBytes, latency, responseURL, requestBody, responseBody, stream, webSocket"####
            ]),
        .init(
            name: "misspelt error code", text: "### error=timedOt\nGET https://a.example/\n",
            diagnostics: [
                #"t.http:1:11: error: interactions[0].error.code: unknown error code "timedOt" (did you mean "timedOut"?); expected a URLError.Code name or number. Names: "#
                    + Interaction.TransportError.Code.allNames.joined(separator: ", ")
            ]),
        .init(
            name: "origin-form target", text: "###\nGET /feed HTTP/1.1\n\nHTTP/1.1 200 OK\n",
            diagnostics: [
                #"t.http:2:5: error: interactions[0].request.url: expected an absolute URL (https://host/path) after the method, found "/feed"; the file cannot guess the scheme and host of a path alone"#
            ]),
        .init(
            name: "header without colon", text: "GET https://a.example/\nAccept application/json\n\nHTTP/1.1 200 OK\n",
            diagnostics: [
                #"t.http:2:1: error: interactions[0].request.headers: expected a header line "Name: value", or a blank line before the body, found "Accept application/json""#
            ]),
        .init(
            name: "neither response nor error", text: "### firstByte=1 duration=2\nGET https://a.example/\n",
            diagnostics: [
                ####"t.http:1:1: error: interactions[0]: expected a response (a status line like "HTTP/1.1 200 OK") or an error=… on the "###" line, or both"####
            ]),
        .init(
            name: "timing half given", text: "### duration=2\nGET https://a.example/\n\nHTTP/1.1 200 OK\n",
            diagnostics: [
                #"t.http:1:5: error: interactions[0].timing: duration needs firstByte too: a timing is both"#
            ]),
        .init(
            name: "afterBytes without error", text: "### afterBytes=2\nGET https://a.example/\n\nHTTP/1.1 200 OK\n\nabc\n",
            diagnostics: [
                #"t.http:1:5: error: interactions[0].error.afterBytes: afterBytes needs error=… too: it says after how many bytes the error cuts the response"#
            ]),
        .init(
            name: "afterBytes beyond the body", text: "### error=timedOut afterBytes=9\nGET https://a.example/\n\nHTTP/1.1 200 OK\n\nabc\n",
            diagnostics: [
                #"t.http:1:1: error: interactions[0].error.afterBytes: afterBytes (9) is more than the response body holds (3 bytes)"#
            ]),
        .init(
            name: "bad base64", text: "### responseBody=base64\nGET https://a.example/\n\nHTTP/1.1 200 OK\n\nab*d\n",
            diagnostics: [
                ####"t.http:6:1: error: interactions[0].response.body: the body is marked base64 on the "###" line but is not valid base64: invalid base64: '*' at character 3; expected A–Z, a–z, 0–9, '+', '/' and '=' padding"####
            ]),
        .init(
            name: "unsupported version, and the next interaction still checked",
            text: "# version: 2\n### error=timedOut\nGET https://a.example/\n### error=timedOut latency=slow\nGET https://b.example/\n",
            diagnostics: [
                #"t.http:1:12: error: version: unsupported format version "2"; this version of Cassette reads version 1. A newer Cassette may read it."#,
                #"t.http:4:28: error: interactions[1].latency: expected a latency (\#(Latency.textForms)), found "slow""#,
            ]),
        .init(
            name: "status out of range", text: "GET https://a.example/\n\nHTTP/1.1 099 Odd\n",
            diagnostics: [
                #"t.http:3:1: error: interactions[0].response.status: expected an HTTP status from 100 to 599, found 99"#
            ]),
        .init(
            name: "nothing after the separator", text: "GET https://a.example/\n\nHTTP/1.1 200 OK\n\n### error=timedOut\n",
            diagnostics: [
                ####"t.http:5:1: error: interactions[1].request: expected a request line like "GET https://api.example.com/users HTTP/1.1" after "###""####
            ]),
    ]

    @Test(arguments: malformed)
    func malformedFilesSayWhereAndWhat(_ example: Malformed) {
        #expect(throws: CassetteFormatError.self) { try Self.decode(example.text) }
        do {
            _ = try Self.decode(example.text)
        } catch {
            #expect((error as? CassetteFormatError)?.description.components(separatedBy: "\n") == example.diagnostics)
        }
    }
}
