import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// The head `TapeServer` writes for a recorded response: which connection it keeps, which
/// recorded fields go on the wire, and how the body is framed.
@Suite struct WireResponseTests {
    static func request(version: String, connection: String?) -> WireRequest {
        WireRequest(
            method: "GET", target: "/items", version: version,
            headers: [("Host", "api.example")] + (connection.map { [("Connection", $0)] } ?? []), body: Data())
    }

    /// HTTP/1.1 keeps the connection unless the client says `close`; HTTP/1.0 closes it unless
    /// the client says `keep-alive` (either in any case, among other tokens).
    @Test(
        arguments: [
            ("HTTP/1.1", nil, true), ("HTTP/1.1", "Close", false), ("HTTP/1.1", "keep-alive", true),
            ("HTTP/1.1", "TE, close", false), ("HTTP/1.0", nil, false), ("HTTP/1.0", "Keep-Alive", true),
            ("HTTP/1.0", "close", false),
        ] as [(String, String?, Bool)])
    func theClientSaysWhetherTheConnectionStays(version: String, connection: String?, keeps: Bool) {
        let wire = Self.request(version: version, connection: connection)
        #expect(wire.keepsAlive == keeps)
        let response = WireResponse(status: 200, headers: ["Content-Length": "2"], for: wire)
        #expect(response.keepsConnection == keeps)
        #expect(
            String(decoding: response.headBytes, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" + (keeps ? "" : "Connection: close\r\n") + "\r\n")
    }

    /// The recorded connection fields and encoding stay off the wire (in any case), a joined
    /// `Set-Cookie` goes out one field per cookie, and the recorded length frames the body.
    @Test func recordedConnectionFieldsAreLeftOutAndCookiesSplit() {
        let headers = Interaction.Headers([
            ("content-type", "text/plain"), ("KEEP-ALIVE", "timeout=5"), ("Connection", "keep-alive"),
            ("Transfer-Encoding", "chunked"), ("set-cookie", "a=1; Path=/, b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT"),
            ("Content-Length", "10"), ("X-Trace", "7"),
        ])
        let response = WireResponse(status: 201, headers: headers, for: Self.request(version: "HTTP/1.1", connection: nil))
        #expect(response.framing == .length)
        #expect(
            String(decoding: response.headBytes, as: UTF8.self)
                == "HTTP/1.1 201 Created\r\ncontent-type: text/plain\r\nset-cookie: a=1; Path=/\r\n"
                + "set-cookie: b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT\r\nX-Trace: 7\r\nContent-Length: 10\r\n\r\n")
    }

    /// A recorded `Content-Encoding` (in any case) described the encoded body: the decoded body
    /// goes out chunked, without the encoding or its length.
    @Test func anEncodedRecordingIsChunked() {
        let headers = Interaction.Headers([("CONTENT-ENCODING", "gzip"), ("Content-Length", "31")])
        let response = WireResponse(status: 200, headers: headers, for: Self.request(version: "HTTP/1.1", connection: nil))
        #expect(response.framing == .chunked)
        #expect(String(decoding: response.headBytes, as: UTF8.self) == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(response.bodyBytes(Data("hello".utf8)) == Array("5\r\nhello\r\n".utf8))
        #expect(response.endBytes == Array("0\r\n\r\n".utf8))
    }
}
