import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// The loopback server's WebSocket and the project's WebSocket client, which the WebSocket
/// record and replay tests stand on: the echo + push conversation, RFC 6455 spot checks, and the
/// same conversation held by a client nobody here wrote (Python's `websockets`).
@Suite(.timingIsolated) struct LoopbackWebSocketTests {
    static func text(_ received: WebSocketTestClient.Received?) -> String? {
        if case .text(let text)? = received?.message { text } else { nil }
    }

    @Test func theEchoAndPushConversation() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let client = try WebSocketTestClient(port: server.port, path: "/ws/echo-push", protocols: ["chat.v1", "chat.v0"])
        #expect(client.handshake.contains("Sec-WebSocket-Protocol: chat.v1"))
        #expect(!client.handshake.lowercased().contains("sec-websocket-extensions"))
        for n in 1...3 {
            #expect(client.send(text: #"{ "say": "hello \#(n)" }"#))
            #expect(Self.text(try client.receive()) == #"{"echo":{"say":"hello \#(n)"},"n":\#(n)}"#)
        }
        let rest = try client.receiveAll(timeout: 5)
        #expect(rest.map(\.message) == (1...5).map { .text(#"{"update":\#($0)}"#) } + [.close(code: 1000, reason: "done")])
        let gaps = zip(rest.dropFirst(), rest).prefix(4).map { $0.at - $1.at }
        #expect(gaps.allSatisfy { $0 > 0.05 && $0 < 1 * TimingIsolation.scale }, "\(gaps)")
    }

    /// RFC 6455 spot checks: a ping is answered, a fragmented message reassembled, and each
    /// broken rule closes the connection with its code.
    @Test func pingsFragmentsAndBrokenRules() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let client = try WebSocketTestClient(port: server.port, path: "/ws/echo-push")
        client.send(.ping, Data("are you there".utf8))
        #expect(try client.receive()?.message == .pong(Data("are you there".utf8)))
        client.send(.text, Data("frag".utf8), fin: false)
        client.send(.ping, Data("between".utf8))
        client.send(.continuation, Data("mented".utf8))
        #expect(try client.receive()?.message == .pong(Data("between".utf8)))
        #expect(Self.text(try client.receive()) == #"{"echo":"fragmented","n":1}"#)

        func closes(after bytes: [UInt8]) throws -> WebSocketFrameReader.Message? {
            let other = try WebSocketTestClient(port: server.port, path: "/ws/echo-push")
            other.sendRaw(Data(bytes))
            return try other.receive()?.message
        }
        #expect(try closes(after: [0x81, 0x01, 0x41]) == .close(code: 1002, reason: "a client frame that is not masked"))
        #expect(try closes(after: [0x81, 0x82, 0, 0, 0, 0, 0xC3, 0x28]) == .close(code: 1007, reason: "a text message that is not UTF-8"))
        #expect(
            try closes(after: [0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0])
                == .close(code: 1009, reason: "a frame of 65537 bytes, over 65536"))
        // The server goes on serving.
        let after = try WebSocketTestClient(port: server.port, path: "/ws/echo-push")
        after.send(text: "still here")
        #expect(Self.text(try after.receive()) == #"{"echo":"still here","n":1}"#)
    }

    #if os(Linux) || os(macOS)  // starts a process
    static let python = PythonWebSocketClient.python

    @Test func pythonsWebsocketsIsAvailableOnCI() {
        guard ProcessInfo.processInfo.environment["CI"] != nil else { return }
        #expect(Self.python != nil, "CI runs the WebSocket tests with Python's websockets: set CASSETTE_PYTHON to a Python that has it")
    }

    @Test(.enabled(if: python != nil, "needs a Python with websockets (CASSETTE_PYTHON)"))
    func theConversationWithPythonsWebsockets() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let seen = try PythonWebSocketClient.converse("ws://127.0.0.1:\(server.port)/ws/echo-push")
        #expect(seen.subprotocol == "chat.v1")
        #expect(seen.pong)
        #expect(seen.messages == (1...3).map { #"{"echo":{"say":"hello \#($0)"},"n":\#($0)}"# } + (1...5).map { #"{"update":\#($0)}"# })
        #expect(seen.close == [.code(1000), .reason("done")])
    }
    #endif
}
