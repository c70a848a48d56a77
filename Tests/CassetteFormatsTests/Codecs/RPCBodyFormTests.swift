import CassetteFormats
import Foundation
import Testing

/// Connect and gRPC-Web bodies in a JSON cassette: written message by message when their media
/// type says so, read back to the same bytes, edited by hand (a status into a failure), and
/// refused with their place when written wrong. Every other body is written as before.
@Suite struct RPCBodyFormTests {
    static let hello = ProtobufWire.encode([.init(1, .delimited(.text("ada"))), .init(2, .varint(7))])
    static let trailers = RPCEnvelope(flags: RPCEnvelope.trailers, payload: Data("grpc-status: 0\r\ngrpc-message: \r\n".utf8))

    static func cassette(request: Interaction.Body = .empty, response: Interaction.Body, contentType: String) -> CassetteDocument {
        CassetteDocument(interactions: [
            Interaction(
                request: .init(method: "POST", url: "https://api.example.com/users.v1.UserService/GetUser", body: request),
                response: .init(status: 200, headers: ["Content-Type": contentType], body: response))
        ])
    }

    /// The response's `"body"` as the file has it.
    static func writtenBody(_ document: CassetteDocument) throws -> String {
        let text = String(decoding: try JSONCassetteCodec.encode(document), as: UTF8.self)
        let start = try #require(text.range(of: "\"body\": ")).upperBound
        let end = try #require(text.range(of: "\n      }\n    }\n  ]", range: start..<text.endIndex)).lowerBound
        return String(text[start..<end])
    }

    @Test func aUnaryConnectMessageIsWrittenFieldByField() throws {
        let document = Self.cassette(response: .init(Self.hello, contentType: "application/proto"), contentType: "application/proto")
        #expect(
            try Self.writtenBody(document) == """
                { "proto": [{ "field": 1, "text": "ada" }, { "field": 2, "varint": 7 }] }
                """)
        let read = try JSONCassetteCodec.decode(try JSONCassetteCodec.encode(document))
        #expect(read.interactions[0].response?.body.data == Self.hello)
    }

    @Test func aGRPCWebBodyIsWrittenEnvelopeByEnvelope() throws {
        let body = RPCEnvelope(flags: 0, payload: Self.hello).framed + Self.trailers.framed
        let document = Self.cassette(
            response: .init(body, contentType: "application/grpc-web+proto"), contentType: "application/grpc-web+proto")
        #expect(
            try Self.writtenBody(document) == """
                {
                          "envelopes": [
                            { "proto": [{ "field": 1, "text": "ada" }, { "field": 2, "varint": 7 }] },
                            { "trailers": ["grpc-status: 0", "grpc-message: "] }
                          ]
                        }
                """)
        #expect(try JSONCassetteCodec.decode(try JSONCassetteCodec.encode(document)).interactions[0].response?.body.data == body)
    }

    /// The reviewer's edit: the trailers' status turned into a failure, a field's value changed;
    /// the envelopes' lengths follow.
    @Test func aHandEditedStatusAndFieldAreTheNewBytes() throws {
        let text = """
            { "version": 1, "interactions": [ { "request": { "method": "POST", "url": "https://a.example/s.v1.S/M" },
              "response": { "status": 200, "headers": { "Content-Type": "application/grpc-web+proto" },
                "body": { "envelopes": [
                  { "proto": [ { "field": 1, "text": "grace" } ] },
                  { "trailers": [ "grpc-status: 14", "grpc-message: try again" ] } ] } } } ] }
            """
        let read = try JSONCassetteCodec.decode(Data(text.utf8))
        let expected =
            RPCEnvelope(flags: 0, payload: ProtobufWire.encode([.init(1, .delimited(.text("grace")))])).framed
            + RPCEnvelope(flags: 0x80, payload: Data("grpc-status: 14\r\ngrpc-message: try again\r\n".utf8)).framed
        #expect(read.interactions[0].response?.body.data == expected)
    }

    /// A Connect stream: JSON messages, a compressed one, the end of stream, and a cut last envelope.
    @Test func aConnectStreamKeepsEveryKindOfEnvelope() throws {
        let framed = RPCEnvelope.Framed(
            envelopes: [
                .init(flags: 0, payload: Data(#"{"id":1}"#.utf8)), .init(flags: 1, payload: Data([0x1F, 0x8B])),
                .init(flags: 2, payload: Data(#"{"error":{"code":"unavailable"}}"#.utf8)),
            ],
            rest: Data([0, 0, 0]))
        let document = Self.cassette(
            response: .init(framed.joined, contentType: "application/connect+json"), contentType: "application/connect+json")
        let written = try Self.writtenBody(document)
        #expect(written.contains(#"{ "json": { "id": 1 } },"#))
        #expect(written.contains(#"{ "flags": 1, "base64": "H4s=" },"#))
        #expect(written.contains(#"{ "endStream": { "error": { "code": "unavailable" } } },"#))
        #expect(written.contains(#"{ "cut": "AAAA" }"#))
        #expect(try JSONCassetteCodec.decode(try JSONCassetteCodec.encode(document)).interactions[0].response?.body.data == framed.joined)
    }

    /// Other media types, and RPC bodies that do not read in their framing, are written as before.
    /// A stream cut at its envelopes is written envelope by envelope, each with its `at`; one cut
    /// elsewhere stays chunks.
    @Test func aStreamIsWrittenEnvelopeByEnvelopeWithItsTimes() throws {
        let message = RPCEnvelope(flags: 0, payload: Self.hello).framed
        var response = Interaction.Response(status: 200, headers: ["Content-Type": "application/grpc-web+proto"])
        response.stream = .init(chunks: [
            .init(at: 0.1, data: message), .init(at: 0.25, data: Self.trailers.framed), .init(at: 0.3, data: Data([0, 0])),
        ])
        let document = CassetteDocument(interactions: [
            Interaction(request: .init(method: "POST", url: "https://a.example/s.v1.S/Watch"), response: response)
        ])
        let text = String(decoding: try JSONCassetteCodec.encode(document), as: UTF8.self)
        #expect(
            text.contains(
                """
                "stream": {
                          "envelopes": [
                            { "at": 0.1, "proto": [{ "field": 1, "text": "ada" }, { "field": 2, "varint": 7 }] },
                            { "at": 0.25, "trailers": ["grpc-status: 0", "grpc-message: "] },
                            { "at": 0.3, "cut": "AAA=" }
                          ]
                        }
                """), "\(text)")
        #expect(try JSONCassetteCodec.decode(Data(text.utf8)).interactions[0].response?.stream == response.stream)

        // Two envelopes in one chunk: written as chunks.
        response.stream = .init(chunks: [.init(at: 0.1, data: message + Self.trailers.framed)])
        let chunks = String(
            decoding: try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [Interaction(request: .init(url: "https://a.example/"), response: response)])),
            as: UTF8.self)
        #expect(chunks.contains(#""chunks": ["#))
    }

    @Test func aStreamEnvelopeWithoutItsTimeIsNamed() {
        let text = """
            { "version": 1, "interactions": [ { "request": { "method": "POST", "url": "https://a.example/" }, "response": { "status": 200, "stream": { "envelopes": [ { "text": "x" } ] } } } ] }
            """
        let problems = BadInputTests.problems(text, as: .json)
        #expect(
            problems.map(\.message) == [
                #"missing required field "at" (the seconds from the start of the request to the envelope's arrival)"#
            ])
        #expect(problems.first?.path?.description == "interactions[0].response.stream.envelopes[0]")
    }

    @Test(arguments: [
        ("application/x-protobuf", "base64"), ("application/json", "base64"), ("application/proto", "base64"),
        ("application/grpc-web", "base64"),
    ])
    func anythingElseKeepsItsForm(contentType: String, form: String) throws {
        // Overlong varints do not read as a message; four bytes are no envelope.
        let body = Interaction.Body(Data([0x08, 0x96, 0x81, 0x00]), contentType: contentType)
        #expect(try Self.writtenBody(Self.cassette(response: body, contentType: contentType)).hasPrefix("{ \"\(form)\":"))
    }

    /// A cassette written before, with a gRPC-Web body in base64, reads the same bytes and is
    /// saved again as it was; a new recording writes it envelope by envelope.
    @Test func aBase64BodyWrittenBeforeReadsTheSame() throws {
        let body = RPCEnvelope(flags: 0, payload: Self.hello).framed + Self.trailers.framed
        let text = """
            { "version": 1, "interactions": [ { "request": { "method": "POST", "url": "https://a.example/s.v1.S/M" },
              "response": { "status": 200, "headers": { "Content-Type": "application/grpc-web+proto" },
                "body": { "base64": "\(body.base64EncodedString())" } } } ] }
            """
        let read = try JSONCassetteCodec.decode(Data(text.utf8))
        #expect(read.interactions[0].response?.body.data == body)
        #expect(try Self.writtenBody(read).hasPrefix(#"{ "base64": ""#))
    }

    @Test(arguments: [
        (
            #"{ "proto": [ { "field": 0, "varint": 1 } ] }"#, #"interactions[0].response.body.proto[0].field"#,
            "a field's number is 1 to 536870911, found 0"
        ),
        (
            #"{ "proto": [ { "field": 1, "varint": -1 } ] }"#, #"interactions[0].response.body.proto[0].varint"#,
            "expected a whole number from 0 to 18446744073709551615, found -1"
        ),
        (
            #"{ "proto": [ { "field": 1, "fixed32": 4294967296 } ] }"#, #"interactions[0].response.body.proto[0].fixed32"#,
            "expected a whole number from 0 to 4294967295, found 4294967296"
        ),
        (
            #"{ "proto": [ { "field": 1, "text": "a", "varint": 1 } ] }"#, #"interactions[0].response.body.proto[0]"#,
            #"a protobuf field holds one value: "varint", "fixed64", "fixed32", "text", "message" or "base64"; found "varint" and "text""#
        ),
        (
            #"{ "envelopes": [ { "cut": "AA==" }, { "text": "x" } ] }"#, #"interactions[0].response.body.envelopes[0]"#,
            #""cut" stands alone, in the last envelope: the bytes of a stream cut short"#
        ),
        (
            #"{ "envelopes": [ { "flags": 256, "text": "x" } ] }"#, #"interactions[0].response.body.envelopes[0].flags"#,
            "the flags byte is 0 to 255"
        ),
        (
            #"{ "envelopes": [ { "flags": 1, "trailers": [] } ] }"#, #"interactions[0].response.body.envelopes[0].flags"#,
            #""trailers" sets its own flags; remove "flags""#
        ),
        (
            #"{ "envelopes": [ { "flags": 1 } ] }"#, #"interactions[0].response.body.envelopes[0]"#,
            #"an envelope holds one payload: "proto", "json", "text", "base64", "trailers" or "endStream"; found none"#
        ),
        (
            #"{ "envelopes": [ { "trailer": [] } ] }"#, #"interactions[0].response.body.envelopes[0].trailer"#,
            #"unknown field "trailer" (did you mean "trailers"?); expected one of "flags", "proto", "json", "text", "base64", "trailers", "endStream""#
        ),
    ])
    func aWrongBodyIsNamedWithItsPlace(body: String, path: String, message: String) {
        let text = """
            { "version": 1, "interactions": [ { "request": { "method": "POST", "url": "https://a.example/" }, "response": { "status": 200, "body": \(body) } } ] }
            """
        let problems = BadInputTests.problems(text, as: .json)
        #expect(problems.first?.message == message)
        #expect(problems.first?.path?.description == path)
    }
}
