import Foundation
import Testing

@testable import Cassette

/// How a recorded WebSocket conversation replays, as a value: the order of sends and waits, each
/// send's delay after what it answered, and how a live client message is compared.
@Suite struct WebSocketScriptTests {
    /// The echo + push conversation as the loopback server holds it.
    static let conversation = Interaction.WebSocketConversation(messages: [
        .text(#"{"say":"hello 1"}"#, from: .client, at: 0.010),
        .text(#"{"echo":{"say":"hello 1"},"n":1}"#, from: .server, at: 0.012),
        .init(from: .client, at: 0.050, kind: .ping, data: Data("p".utf8)),
        .init(from: .server, at: 0.051, kind: .pong, data: Data("p".utf8)),
        .text(#"{"say":"hello 2"}"#, from: .client, at: 0.200),
        .text(#"{"echo":{"say":"hello 2"},"n":2}"#, from: .server, at: 0.203),
        .text(#"{"update":1}"#, from: .server, at: 0.303),
        .text(#"{"update":2}"#, from: .server, at: 0.403),
        .close(code: 1000, reason: "done", from: .server, at: 0.404),
        .close(code: 1000, from: .client, at: 0.406),
    ])

    @Test func sendsCountFromWhatTheyAnsweredAndPingsAreLeftToTheLiveConnection() {
        let script = WebSocketScript(Self.conversation, latency: .recorded)
        let rounded = script.steps.map { step -> WebSocketScript.Step in
            if case .send(let index, let delay) = step { return .send(index: index, delay: (delay * 1000).rounded() / 1000) }
            return step
        }
        #expect(
            rounded == [
                .expect(index: 0), .send(index: 1, delay: 0.002), .expect(index: 4), .send(index: 5, delay: 0.003),
                .send(index: 6, delay: 0.103), .send(index: 7, delay: 0.203), .send(index: 8, delay: 0.204), .expect(index: 9),
            ])
        #expect(script.serverCloses)
    }

    @Test func theLatencyAppliesToEachGap() {
        func delays(_ latency: Latency) -> [TimeInterval] {
            WebSocketScript(Self.conversation, latency: latency).steps.compactMap { step in
                if case .send(_, let delay) = step { return (delay * 1000).rounded() / 1000 } else { return nil }
            }
        }
        #expect(delays(.instant) == [0, 0, 0, 0, 0])
        #expect(delays(.scaled(2)) == [0.004, 0.006, 0.206, 0.406, 0.408])
        #expect(delays(.fixed(firstByte: 0.05, duration: 0.05)) == [0.05, 0.05, 0.05, 0.05, 0.05])
    }

    /// Without a server close at the end, the replay drops the connection.
    @Test func aConversationCutWithoutACloseDrops() {
        var cut = Self.conversation
        cut.messages = Array(cut.messages.prefix(7))
        #expect(!WebSocketScript(cut, latency: .instant).serverCloses)
    }

    /// Members compared by name (listed in name order), numbers by value, ignored paths left out.
    @Test func aClientMessageMatchesByMeaningAndADifferenceSaysWhere() {
        let recorded = Interaction.WebSocketMessage.text(#"{"say":"hello","id":7,"at":"2026-11-26T05:00:00Z"}"#, from: .client, at: 0)
        #expect(WebSocketScript.difference(.text(#"{"say":"hello","id":7,"at":"2026-11-26T05:00:00Z"}"#), from: recorded) == nil)
        #expect(WebSocketScript.difference(.text(#"{ "id": 7.0, "say": "hello", "at": "2026-11-26T05:00:00Z" }"#), from: recorded) == nil)
        #expect(
            WebSocketScript.difference(.text(#"{"say":"bye","id":7,"at":"2026-11-26T06:00:00Z"}"#), from: recorded)
                == #"$.at: "2026-11-26T05:00:00Z" → "2026-11-26T06:00:00Z"; $.say: "hello" → "bye""#)
        #expect(
            WebSocketScript.difference(
                .text(#"{"say":"bye","id":7,"at":"2026-11-26T06:00:00Z"}"#), from: recorded, ignoringJSONPaths: ["at"])
                == #"$.say: "hello" → "bye""#)
        #expect(
            WebSocketScript.difference(.text("plain"), from: .text("Plain", from: .client, at: 0))
                == #"text: recorded "Plain", received "plain""#)
        #expect(
            WebSocketScript.difference(.binary(Data([1, 2, 4])), from: .init(from: .client, at: 0, kind: .binary, data: Data([1, 2, 3])))
                == "binary: recorded 3 bytes, received 3, first different at byte 2")
        #expect(
            WebSocketScript.difference(.binary(Data([1])), from: recorded) == "recorded a text message, received a binary message (1 bytes)"
        )
        #expect(WebSocketScript.difference(.close(code: 1000, reason: "x"), from: .close(code: 1000, from: .client, at: 0)) == nil)
        #expect(
            WebSocketScript.difference(.close(code: 1001, reason: ""), from: .close(code: 1000, from: .client, at: 0))
                == "close: recorded code 1000, received 1001")
    }
}
