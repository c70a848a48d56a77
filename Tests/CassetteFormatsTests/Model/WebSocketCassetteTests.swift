import Foundation
import Testing

@testable import CassetteFormats

/// A WebSocket conversation in a cassette: read and written by hand in JSON, carried by `.http`
/// and HAR without loss, a browser's HAR imported, and every broken rule refused with its place.
@Suite struct WebSocketCassetteTests {
    static let upgrade = Interaction.Request(
        url: "https://api.example.com/live",
        headers: Interaction.Headers([
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ("Sec-WebSocket-Version", "13"),
        ]))
    static let switching = Interaction.Response(
        status: 101,
        headers: Interaction.Headers([
            ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
        ]))

    static func interaction(_ messages: [Interaction.WebSocketMessage]) -> Interaction {
        Interaction(
            recordedAt: Date(timeIntervalSince1970: 1_795_000_000.25), request: upgrade, response: switching,
            timing: .init(firstByte: 0.05, duration: 0.05), webSocket: .init(messages: messages))
    }

    /// Every kind, and payloads each format has to take care with.
    static let conversation: [Interaction.WebSocketMessage] = [
        .text(#"{"say":"hello"}"#, from: .client, at: 0.012),
        .text(#"{"echo":{"say":"hello"},"n":1}"#, from: .server, at: 0.015),
        .text("two lines\nand a third\n", from: .client, at: 0.2),
        .text(">>> 1 text\nlooks like a message line", from: .server, at: 0.25),
        .init(from: .server, at: 0.4, kind: .binary, data: Data([0, 1, 2, 255])),
        .init(from: .client, at: 0.5, kind: .ping, data: Data("are you there".utf8)),
        .init(from: .server, at: 0.5, kind: .pong, data: Data("are you there".utf8)),
        .init(from: .server, at: 0.6, kind: .ping, data: Data([0x0D])),
        .close(code: 1000, reason: "bye", from: .client, at: 1.2),
        .close(code: 1000, reason: "", from: .server, at: 1.201),
    ]

    @Test(arguments: CassetteFormat.allCases)
    func aConversationCrossesEveryFormatUnchanged(_ format: CassetteFormat) throws {
        let document = CassetteDocument(interactions: [Self.interaction(Self.conversation), Self.interaction([])])
        let encoded = try format.encode(document)
        #expect(try format.decode(encoded) == document)
        #expect(format.roundTripProblem(of: encoded) == nil)
    }

    @Test func theJSONFormIsForPeople() throws {
        let json = try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [
                Self.interaction(Array(Self.conversation.prefix(2)) + [Self.conversation[4], Self.conversation[8]])
            ]))
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#"{ "from": "client", "at": 0.012, "kind": "text", "json": { "say": "hello" } }"#), "\(text)")
        #expect(text.contains(#"{ "from": "server", "at": 0.4, "kind": "binary", "base64": "AAEC/w==" }"#), "\(text)")
        #expect(text.contains(#"{ "from": "client", "at": 1.2, "kind": "close", "code": 1000, "reason": "bye" }"#), "\(text)")
    }

    /// As a person writes it: a conversation cut by a close 1011 after the third message.
    @Test func aHandWrittenConversationReads() throws {
        let json = """
            { "version": 1, "interactions": [ {
              "request": { "method": "GET", "url": "wss://api.example.com/live" },
              "response": { "status": 101 },
              "webSocket": { "messages": [
                { "from": "client", "at": 0, "kind": "text", "text": "subscribe" },
                { "from": "server", "at": 0.1, "kind": "text", "json": { "price": 101.5 } },
                { "from": "server", "at": 0.2, "kind": "text", "json": { "price": 101.7 } },
                { "from": "server", "at": 0.25, "kind": "close", "code": 1011, "reason": "overloaded" }
              ] }
            } ] }
            """
        let messages = try JSONCassetteCodec.decode(Data(json.utf8)).interactions[0].webSocket?.messages
        #expect(
            messages == [
                .text("subscribe", from: .client, at: 0), .text(#"{"price":101.5}"#, from: .server, at: 0.1),
                .text(#"{"price":101.7}"#, from: .server, at: 0.2), .close(code: 1011, reason: "overloaded", from: .server, at: 0.25),
            ])
    }

    @Test func theHTTPFormShowsEachMessageOnItsOwnLine() throws {
        let document = CassetteDocument(interactions: [
            Self.interaction([Self.conversation[0], Self.conversation[4], Self.conversation[8]])
        ])
        let text = String(decoding: try HTTPMessageCassetteCodec.encode(document), as: UTF8.self)
        #expect(
            text.hasSuffix(
                """
                HTTP/1.1 101 Switching Protocols
                Upgrade: websocket
                Connection: Upgrade
                Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=

                >>> 0.012 text
                {"say":"hello"}

                <<< 0.4 binary base64
                AAEC/w==

                >>> 1.2 close 1000
                bye


                """), "\(text)")
    }

    /// A HAR exported by Chrome's DevTools: `_webSocketMessages` with absolute times, binary data in
    /// base64, no close frames, no Cassette fields.
    @Test func aBrowsersHARImports() throws {
        let har = """
            { "log": { "version": "1.2", "creator": { "name": "WebInspector", "version": "537.36" }, "entries": [ {
              "startedDateTime": "2026-11-18T11:06:40.250Z", "time": 50,
              "request": { "method": "GET", "url": "wss://api.example.com/live", "httpVersion": "HTTP/1.1",
                "headers": [ { "name": "Upgrade", "value": "websocket" } ], "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0 },
              "response": { "status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1",
                "headers": [ { "name": "Upgrade", "value": "websocket" } ], "cookies": [], "content": { "size": 0, "mimeType": "x-unknown" },
                "redirectURL": "", "headersSize": -1, "bodySize": 0 },
              "cache": {}, "timings": { "blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": 50, "receive": 0, "ssl": -1 },
              "_resourceType": "websocket",
              "_webSocketMessages": [
                { "type": "send", "time": 1795000000.312, "opcode": 1, "data": "{\\"say\\":\\"hi\\"}" },
                { "type": "receive", "time": 1795000000.5, "opcode": 2, "data": "AAEC" }
              ]
            } ] } }
            """
        let interaction = try HARCassetteCodec.decode(Data(har.utf8)).interactions[0]
        #expect(
            interaction.webSocket?.messages == [
                .text(#"{"say":"hi"}"#, from: .client, at: 0.012), .init(from: .server, at: 0.2, kind: .binary, data: Data([0, 1, 2])),
            ])
    }

    /// Each rule, broken by hand, refused with the place and what is expected.
    @Test(arguments: [
        (
            #"{ "from": "client", "at": 0.5, "kind": "text", "text": "a" }, { "from": "server", "at": 0.2, "kind": "text", "text": "b" }"#,
            "interactions[0].webSocket.messages[1].at: this message is sent at 0.2 s, before the one above it (0.5 s)"
        ),
        (
            #"{ "from": "client", "at": 0, "kind": "close", "code": 1000 }, { "from": "client", "at": 0.1, "kind": "text", "text": "late" }"#,
            "interactions[0].webSocket.messages[1].from: the client already closed the connection"
        ),
        (
            #"{ "from": "client", "at": 0, "kind": "shout", "text": "a" }"#,
            "interactions[0].webSocket.messages[0].kind: unknown kind \"shout\""
        ),
        (
            #"{ "from": "browser", "at": 0, "kind": "text", "text": "a" }"#,
            "interactions[0].webSocket.messages[0].from: expected \"client\" or \"server\""
        ),
        (
            #"{ "from": "server", "at": 0, "kind": "close", "code": 1005 }"#,
            "interactions[0].webSocket.messages[0].code: close code 1005 may not be sent"
        ),
        (
            #"{ "from": "server", "at": 0, "kind": "text", "code": 1000, "text": "a" }"#,
            "interactions[0].webSocket.messages[0].code: only a close has a code"
        ),
        (
            #"{ "from": "server", "at": 0, "kind": "ping", "base64": "\#(Data(count: 126).base64EncodedString())" }"#,
            "interactions[0].webSocket.messages[0]: a ping carries at most 125 bytes, found 126"
        ),
    ])
    func aBrokenRuleIsRefusedWithItsPlace(messages: String, expected: String) {
        let json = """
            { "version": 1, "interactions": [ { "request": { "method": "GET", "url": "wss://api.example.com/live" },
              "response": { "status": 101 }, "webSocket": { "messages": [ \(messages) ] } } ] }
            """
        do {
            _ = try JSONCassetteCodec.decode(Data(json.utf8), file: "live.json")
            Issue.record("accepted: \(messages)")
        } catch {
            #expect(error.problems.contains { $0.description.hasPrefix(expected) }, "\(error.problems.map(\.description))")
            #expect(error.problems.allSatisfy { $0.line != nil && $0.column != nil })
        }
    }

    @Test func aConversationNeedsA101() {
        let json = """
            { "version": 1, "interactions": [ { "request": { "method": "GET", "url": "https://api.example.com/live" },
              "response": { "status": 200 }, "webSocket": { "messages": [] } } ] }
            """
        #expect(throws: CassetteFormatError.self) { try JSONCassetteCodec.decode(Data(json.utf8)) }
        do {
            _ = try JSONCassetteCodec.decode(Data(json.utf8))
        } catch {
            #expect(
                error.problems.map(\.description) == [
                    "interactions[0].webSocket: a WebSocket conversation follows a 101 Switching Protocols response, not a 200"
                ])
        }
        var interaction = Self.interaction([])
        interaction.response?.status = 200
        #expect(throws: CassetteFormatError.self) { try HARCassetteCodec.encode(CassetteDocument(interactions: [interaction])) }
    }
}
