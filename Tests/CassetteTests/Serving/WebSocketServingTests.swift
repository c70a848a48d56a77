import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// WebSocket conversations through the tape's server: recorded with the server as a relay in
/// front of the loopback server's echo + push WebSocket, then replayed offline — the same
/// messages in the same order, on the recorded schedule, the same close — and what a replay does
/// with a client that says something else, a hand-edited cassette, and broken frames.
@Suite(.timingIsolated) struct WebSocketServingTests {
    /// What a client saw: each message with its offset from the handshake.
    typealias Seen = [WebSocketTestClient.Received]

    /// The conversation as the tests' client holds it: three JSON messages, each sent once the
    /// previous one is answered, then everything until the server's close.
    static func converse(
        port: Int, say: [String] = (1...3).map { #"{"say":"hello \#($0)"}"# }, headers: [(String, String)] = []
    ) throws -> Seen {
        let client = try WebSocketTestClient(port: port, path: LoopbackWebSocket.path, headers: headers)
        var seen: Seen = []
        for text in say {
            #expect(client.send(text: text))
            guard let answer = try client.receive() else { return seen }
            seen.append(answer)
            if case .close = answer.message { return seen }
        }
        return seen + (try client.receiveAll(timeout: 5 * TimingIsolation.scale))
    }

    static let expected: [WebSocketFrameReader.Message] =
        (1...3).map { .text(#"{"echo":{"say":"hello \#($0)"},"n":\#($0)}"#) } + (1...5).map { .text(#"{"update":\#($0)}"#) }
        + [.close(code: 1000, reason: "done")]

    /// Records the conversation through a server relaying to the loopback server; returns the cassette's conversation.
    static func record(_ scratch: ScratchTape, redaction: Redaction = .default) throws -> Interaction.WebSocketConversation {
        let tape = try scratch.tape(mode: .once, options: Tape.Options(redaction: redaction))
        let server = try tape.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL)))
        let seen = try converse(port: server.port)
        #expect(seen.map(\.message) == expected)
        try tape.eject()
        let document = try CassetteFile.read(scratch.file)
        return try #require(document.interactions.first?.webSocket)
    }

    /// Live, recorded through the server, replayed offline: the same messages, in the same order,
    /// with the same close; on replay each server message arrives within 10 % + 20 ms of its
    /// recorded offset.
    @Test func liveRecordedAndReplayedAreTheSame() throws {
        try withScratchTape { scratch in
            let live = try Self.converse(port: scratch.server.port)
            #expect(live.map(\.message) == Self.expected)
            let recorded = try Self.record(scratch)
            #expect(recorded.messages.map(\.from) == [.client, .server, .client, .server, .client] + Array(repeating: .server, count: 7))
            #expect(recorded.messages.last?.kind == .close && recorded.messages.last?.code == 1000)
            let document = try CassetteFile.read(scratch.file)
            let interaction = try #require(document.interactions.first)
            #expect(interaction.response?.status == 101)
            #expect(interaction.request.headers["Sec-WebSocket-Key"] == nil)
            #expect(interaction.response?.headers["Sec-WebSocket-Accept"] == nil)

            let tape = try scratch.tape(mode: .none, options: Tape.Options(latency: .recorded))
            let server = try tape.serve()
            let replayed = try Self.converse(port: server.port)
            #expect(replayed.map(\.message) == live.map(\.message))
            let recordedServer = recorded.messages.filter { $0.from == .server }
            for (seen, message) in zip(replayed, recordedServer) {
                #expect(
                    TimingIsolation.isOnTime(seen.at, recorded: message.at), "\(seen.message) at \(seen.at) s, recorded at \(message.at) s")
            }
            let report = try tape.eject()
            #expect(report.replayed == 1)
            #expect(report.unmatched.isEmpty)
        }
    }

    /// A client message that differs from the recording: the client gets a close 1008 naming the
    /// message, and the miss report names message 2 and the JSON path that differs.
    @Test func aClientMessageThatDiffersIsAMiss() throws {
        try withScratchTape { scratch in
            _ = try Self.record(scratch)
            let heard = Locked<[UnmatchedRequest]>([])
            let tape = try scratch.tape(mode: .none)
            let server = try tape.serve(TapeServer.Options(onUnmatched: { miss in heard.withLock { $0.append(miss) } }))
            let seen = try Self.converse(port: server.port, say: [#"{"say":"hello 1"}"#, #"{"say":"goodbye"}"#, #"{"say":"hello 3"}"#])
            #expect(
                seen.map(\.message) == [
                    Self.expected[0], .close(code: 1008, reason: "Cassette: message 2 does not match the recording"),
                ])
            let report = try tape.eject()
            let miss = try #require(report.unmatched.first)
            #expect(report.unmatched.count == 1)
            #expect(heard.withLock { $0 } == [miss])
            #expect(
                miss.description.hasPrefix(
                    "Cassette: WebSocket message 2 (webSocket.messages[2] of interaction #1, the client's message 2 of 3) of the "
                        + "conversation recorded in \(scratch.file.path) for GET \(scratch.server.baseURL)/ws/echo-push does not match: "
                        + #"$.say: "hello 2" → "goodbye". The server closed the connection with 1008."#), "\(miss.description)")
        }
    }

    /// A client message that misses is shown as it would be stored: the tape's body pattern
    /// hides the secret the client sent in the miss report, the server's report and the close.
    @Test func aMissShowsTheClientsMessageRedacted() throws {
        try withScratchTape { scratch in
            let redaction = Redaction.default.redactingBodyMatches("sk_live_[A-Za-z0-9]+")
            _ = try Self.record(scratch, redaction: redaction)
            let tape = try scratch.tape(mode: .none, options: Tape.Options(redaction: redaction))
            let server = try tape.serve()
            let secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
            let seen = try Self.converse(port: server.port, say: [#"{"say":"hello 1"}"#, #"{"say":"LOGIN \#(secret)"}"#])
            #expect(seen.last?.message == .close(code: 1008, reason: "Cassette: message 2 does not match the recording"))
            let miss = try #require(try tape.eject().unmatched.first)
            #expect(miss.description.contains(#"$.say: "hello 2" → "LOGIN [REDACTED]". The server closed"#), "\(miss.description)")
            #expect(!miss.description.contains("sk_live_4eC3"))
        }
    }

    /// The tape's latency applies: instant (the default) sends the five timed updates at once.
    @Test func instantLatencySendsAtOnce() throws {
        try withScratchTape { scratch in
            _ = try Self.record(scratch)
            let tape = try scratch.tape(mode: .none)
            let seen = try Self.converse(port: try tape.serve().port)
            #expect(seen.map(\.message) == Self.expected)
            #expect(seen.allSatisfy { $0.at < 0.09 * TimingIsolation.scale }, "\(seen.map(\.at))")
            try tape.eject()
        }
    }

    /// A field named in `ignoringJSONPaths` may differ in a client message, as in a body.
    @Test func ignoredJSONPathsApplyToMessages() throws {
        try withScratchTape { scratch in
            _ = try Self.record(scratch)
            let tape = try scratch.tape(mode: .none, matching: .default.ignoringJSONPaths("say"))
            let server = try tape.serve()
            let seen = try Self.converse(port: server.port, say: ["{\"say\":\"a\"}", "{\"say\":\"b\"}", "{\"say\":\"c\"}"])
            #expect(seen.map(\.message) == Self.expected)
            #expect(try tape.eject().unmatched.isEmpty)
        }
    }

    /// The cassette edited by hand: a close 1011 after the third message reaches the client as
    /// that close; a conversation without a close drops the connection after its last message.
    @Test func handEditsCutOrDropTheConversation() throws {
        try withScratchTape { scratch in
            let recorded = try Self.record(scratch)
            var document = try CassetteFile.read(scratch.file)
            var cut = Array(recorded.messages.prefix(6))
            cut.append(.close(code: 1011, reason: "overloaded", from: .server, at: recorded.messages[5].at + 0.01))
            document.interactions[0].webSocket = .init(messages: cut)
            try CassetteFile.write(document, to: scratch.file)
            let tape = try scratch.tape(mode: .none)
            let server = try tape.serve()
            let seen = try Self.converse(port: server.port)
            #expect(seen.map(\.message) == Array(Self.expected.prefix(3)) + [.close(code: 1011, reason: "overloaded")])
            try tape.eject()

            document.interactions[0].webSocket = .init(messages: Array(recorded.messages.dropLast()))
            try CassetteFile.write(document, to: scratch.file)
            let dropping = try scratch.tape(mode: .none)
            let dropped = try Self.converse(port: try dropping.serve().port)
            #expect(dropped.map(\.message) == Array(Self.expected.dropLast()))
            try dropping.eject()
        }
    }

    /// During a replay pings are answered; a frame that breaks RFC 6455 closes that connection
    /// with its code, and the server goes on serving; a client message that never comes is a miss.
    @Test func pingsBrokenFramesAndSilence() throws {
        try withScratchTape { scratch in
            _ = try Self.record(scratch)
            let tape = try scratch.tape(mode: .none, options: Tape.Options(allowsRepeatedReplays: true))
            let limits = TapeServer.Limits(bodyBytes: 1_000, idleTimeout: 0.5)
            let server = try tape.serve(TapeServer.Options(limits: limits))

            let pinging = try WebSocketTestClient(port: server.port, path: LoopbackWebSocket.path)
            pinging.send(.ping, Data("are you there".utf8))
            #expect(try pinging.receive()?.message == .pong(Data("are you there".utf8)))

            func closes(after bytes: [UInt8]) throws -> WebSocketFrameReader.Message? {
                let client = try WebSocketTestClient(port: server.port, path: LoopbackWebSocket.path)
                client.sendRaw(Data(bytes))
                return try client.receive()?.message
            }
            #expect(try closes(after: [0x81, 0x01, 0x41]) == .close(code: 1002, reason: "a client frame that is not masked"))
            #expect(
                try closes(after: [0x81, 0x82, 0, 0, 0, 0, 0xC3, 0x28]) == .close(code: 1007, reason: "a text message that is not UTF-8"))
            #expect(
                try closes(after: [0x82, 0xFE, 0x10, 0x00, 0, 0, 0, 0]) == .close(code: 1009, reason: "a frame of 4096 bytes, over 1000"))

            let silent = try WebSocketTestClient(port: server.port, path: LoopbackWebSocket.path)
            #expect(try silent.receive()?.message == .close(code: 1008, reason: "Cassette: message 0 does not match the recording"))

            #expect(try Self.converse(port: server.port).map(\.message) == Self.expected)
            let report = try tape.eject()
            // The pinging client and the silent one never sent their first message.
            #expect(
                report.unmatched.map {
                    $0.description.contains("webSocket.messages[0]") && $0.description.contains("it never came (waited 0.5 s)")
                }
                    == [true, true])
        }
    }

    /// Redaction reaches message payloads: a JSON key named in the rules is kept out of the
    /// cassette, and the replay still matches the client's message that carries it.
    @Test func redactionReachesMessagesAndReplayStillMatches() throws {
        try withScratchTape { scratch in
            let secret = "s3cr3t-token-0123456789"
            let tape = try scratch.tape(
                mode: .once, options: Tape.Options(redaction: Redaction(headers: ["Authorization"], jsonKeys: ["token"])))
            let server = try tape.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL)))
            let says = (1...3).map { #"{"say":"hello \#($0)","token":"\#(secret)"}"# }
            let seen = try Self.converse(port: server.port, say: says, headers: [("Authorization", "Bearer upgrade-credential-42")])
            #expect(seen.count == 9)
            try tape.eject()
            let text = String(decoding: try Data(contentsOf: scratch.file), as: UTF8.self)
            #expect(!text.contains(secret))
            #expect(!text.contains("upgrade-credential-42"))
            let upgradeHeaders = try #require(try CassetteFile.read(scratch.file).interactions.first?.request.headers)
            #expect(upgradeHeaders["Authorization"] == "Bearer [REDACTED-1]", "\(upgradeHeaders)")
            #expect(text.contains("[REDACTED"))

            let replaying = try scratch.tape(mode: .none)
            let replayed = try Self.converse(port: try replaying.serve().port, say: says)
            #expect(replayed.count == 9)
            #expect(try replaying.eject().unmatched.isEmpty)
        }
    }

    /// An upgrade the upstream refuses (`403`) reaches the client as the upstream said it, is
    /// recorded as that answer, and replays as it.
    @Test func anUpgradeTheUpstreamRefusesIsRecordedAsItsAnswer() throws {
        try withScratchTape { scratch in
            func upgrade(_ port: Int) -> (head: String, body: Data)? {
                guard let client = try? RawHTTP(port: port) else { return nil }
                client.send(
                    "GET /account HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
                return client.receiveResponse()
            }
            let tape = try scratch.tape(mode: .once)
            let recorded = try #require(upgrade(try tape.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL))).port))
            #expect(recorded.head.hasPrefix("HTTP/1.1 403 "))
            #expect(String(decoding: recorded.body, as: UTF8.self) == "signed out")
            #expect(try tape.eject().recorded == 1)
            let interaction = try #require(try CassetteFile.read(scratch.file).interactions.first)
            #expect(interaction.response?.status == 403 && interaction.webSocket == nil)
            #expect(interaction.response?.body.text == "signed out")

            let replaying = try scratch.tape(mode: .none)
            let replayed = try #require(upgrade(try replaying.serve().port))
            #expect(replayed.head.hasPrefix("HTTP/1.1 403 Forbidden\r\n"))
            #expect(String(decoding: replayed.body, as: UTF8.self) == "signed out")
            #expect(try replaying.eject().replayed == 1)
        }
    }

    /// A `wss://` upstream cannot be recorded: the client gets a 502 that says why and what to do.
    @Test func aTLSUpstreamIsRefusedWithWhy() throws {
        try withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            func upgrade(_ port: Int) throws -> (head: String, body: Data)? {
                let client = try RawHTTP(port: port)
                client.send(
                    "GET /feed HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
                return client.receiveResponse()
            }
            let server = try tape.serve(TapeServer.Options(upstream: URL(string: "wss://stream.example.com")))
            let response = try #require(try upgrade(server.port))
            #expect(response.head.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"))
            #expect(
                String(decoding: response.body, as: UTF8.self).hasPrefix(
                    "Cassette cannot record the WebSocket at wss://stream.example.com/feed: it is over TLS (wss://)"))
            // An upstream that cannot be reached: why, and nothing recorded.
            let closed = try tape.serve(TapeServer.Options(upstream: URL(string: "ws://127.0.0.1:1")))
            let unreachable = try #require(try upgrade(closed.port))
            #expect(unreachable.head.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"))
            #expect(
                String(decoding: unreachable.body, as: UTF8.self)
                    == "Cassette could not record the WebSocket at ws://127.0.0.1:1/feed: cannot connect to 127.0.0.1:1: Connection refused. "
                    + "Nothing was recorded.\n")
            #expect(try tape.eject().recorded == 0)
        }
    }

    /// Load: 64 conversations replayed at once, each 100 client messages answered and a close,
    /// every message right and in order.
    @Test func sixtyFourConcurrentReplaysOfAHundredMessages() throws {
        try withScratchTape { scratch in
            let count = 100
            var messages: [Interaction.WebSocketMessage] = []
            for index in 0..<count {
                messages += [
                    .text(#"{"n":\#(index)}"#, from: .client, at: Double(index) * 0.001),
                    .text(#"{"answer":\#(index)}"#, from: .server, at: Double(index) * 0.001),
                ]
            }
            messages.append(.close(code: 1000, reason: "bye", from: .server, at: Double(count) * 0.001))
            try CassetteFile.write(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(url: "http://127.0.0.1/ws/load"), response: .init(status: 101),
                        webSocket: .init(messages: messages))
                ]), to: scratch.file)
            let tape = try scratch.tape(mode: .none, matching: .default.ignoringHost(), options: Tape.Options(allowsRepeatedReplays: true))
            let server = try tape.serve()
            let clients = try (0..<64).map { _ in try WebSocketTestClient(port: server.port, path: "/ws/load") }
            let wrong = Locked<[String]>([])
            let group = DispatchGroup()
            for (number, client) in clients.enumerated() {
                group.enter()
                Thread {
                    defer { group.leave() }
                    for index in 0..<count {
                        client.send(text: #"{"n":\#(index)}"#)
                        let answer = try? client.receive(timeout: 30 * TimingIsolation.scale)?.message
                        guard answer == .text(#"{"answer":\#(index)}"#) else {
                            return wrong.withLock { $0.append("client \(number), message \(index): \(String(describing: answer))") }
                        }
                    }
                    let close = try? client.receive(timeout: 30 * TimingIsolation.scale)?.message
                    if close != .close(code: 1000, reason: "bye") {
                        wrong.withLock { $0.append("client \(number): \(String(describing: close)) instead of the close") }
                    }
                }.start()
            }
            group.wait()
            #expect(wrong.withLock { $0 } == [])
            let report = try tape.eject()
            #expect(report.replayed == 64 && report.unmatched.isEmpty)
        }
    }

    #if canImport(Darwin)
    /// Apple platforms: `URLSessionWebSocketTask` is a client of the server like any other (not
    /// compiled on Linux, whose task answers "WebSockets not supported by libcurl").
    @Test func urlSessionWebSocketTaskIsAClientOfTheServer() async throws {
        try await withScratchTape { scratch in
            _ = try Self.record(scratch)
            let tape = try scratch.tape(mode: .none)
            let server = try tape.serve()
            let url = try #require(URL(string: "ws://127.0.0.1:\(server.port)\(LoopbackWebSocket.path)"))
            let task = URLSession.shared.webSocketTask(with: url)
            task.resume()
            var texts: [String] = []
            for n in 1...3 {
                try await task.send(.string(#"{"say":"hello \#(n)"}"#))
                if case .string(let text) = try await task.receive() { texts.append(text) }
            }
            while texts.count < 8, case .string(let text) = try await task.receive() { texts.append(text) }
            #expect(texts.map { WebSocketFrameReader.Message.text($0) } == Array(Self.expected.prefix(8)))
            _ = try? await task.receive()  // the close ends the receiving
            #expect(task.closeCode == .normalClosure)
            #expect(task.closeReason == Data("done".utf8))
            try tape.eject()
        }
    }
    #endif
}
