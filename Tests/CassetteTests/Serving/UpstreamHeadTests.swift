import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// The head the relay passes on when an upstream refuses a WebSocket upgrade. The `ws://` path
/// has the upstream's own bytes; the `wss://` path (`URLSessionWebSocketTask`, Apple platforms)
/// has only the status and fields the task reports, and writes them as a head of their own.
@Suite struct UpstreamHeadTests {
    static let upgrade = WireRequest(
        method: "GET", target: "/chat", version: "HTTP/1.1",
        headers: [("Host", "chat.example"), ("Upgrade", "websocket"), ("Connection", "Upgrade")], body: Data())

    @Test func aRefusalKnownByItsStatusAndFieldsIsWrittenAsAnEmptyAnswer() {
        let head = UpstreamHead(
            status: 401,
            headers: ["WWW-Authenticate": "Bearer realm=\"chat\"", "Content-Length": "42", "Transfer-Encoding": "chunked"],
            for: Self.upgrade)
        #expect(head.status == 401)
        #expect(
            String(decoding: head.headBytes, as: UTF8.self)
                == "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"chat\"\r\nContent-Length: 0\r\n\r\n")
        #expect(head.headers["Content-Length"] == "0")
        #expect(head.headers["Transfer-Encoding"] == nil)
    }

    @Test func aStatusWithoutAReasonPhraseKeepsItsNumber() {
        #expect(
            String(decoding: UpstreamHead(status: 599, headers: [:], for: Self.upgrade).headBytes, as: UTF8.self)
                == "HTTP/1.1 599 \r\nContent-Length: 0\r\n\r\n")
    }
}
