import Cassette
import Foundation

/// How the recording server opens the upstream end of a WebSocket: `ws://` (and `http://`)
/// through its own client on every platform — the same framing code as the replay; `wss://` (and
/// `https://`) through `URLSessionWebSocketTask` on Apple platforms, and refused on Linux, where
/// FoundationNetworking's answers "WebSockets not supported by libcurl" and the server has no TLS
/// client of its own.
enum WebSocketUpstream {
    /// What the upstream answered to the upgrade.
    enum Opened {
        /// It agreed: the end to relay to, and the `101`'s fields.
        case webSocket(any WebSocketEnd, headers: Interaction.Headers)
        /// It answered something else (`401`, `404`, …): passed on to the client and recorded as it is.
        case answered(UpstreamHead, body: Data)
    }

    /// Opens the WebSocket at `url` (the upstream's origin + the request's target) for the
    /// upgrade `wire`: its fields go on (the key too; no extension is offered), with the upstream's `Host`.
    ///
    /// - Throws: `RequestFailure` (`RequestFailure.Reason.webSocketOverTLS` on Linux,
    ///   `RequestFailure.Reason.webSocketUpstreamUnreachable(why:)`), naming the `ws://` URL.
    static func open(_ wire: WireRequest, url: URL, limits: TapeServer.Limits) throws(RequestFailure) -> Opened {
        let scheme = url.scheme?.lowercased() ?? ""
        // Errors name the WebSocket's own URL: ws:// for http://, wss:// for https://.
        let shown = ["http": "ws", "https": "wss"][scheme].map { $0 + url.absoluteString.dropFirst(scheme.count) } ?? url.absoluteString
        func failure(_ reason: RequestFailure.Reason) -> RequestFailure { RequestFailure(reason, method: "GET", url: shown) }
        switch scheme {
        case "ws", "http":
            return try openOwn(wire, url: url, limits: limits, failure: failure)
        case "wss", "https":
            #if canImport(Darwin)
            return try URLSessionWebSocketEnd.open(
                wire, url: url, timeout: limits.headerTimeout, maximumMessageSize: limits.bodyBytes, failure: failure)
            #else
            throw failure(.webSocketOverTLS)
            #endif
        default:
            throw failure(.webSocketUpstreamUnreachable(why: "it is not a ws:// or wss:// URL"))
        }
    }

    /// Fields of the upgrade that are not sent on as they came.
    static let notSentOn: Set<String> = ["host", "sec-websocket-extensions", "content-length"]

    /// Through the server's own client: a TCP connection, the upgrade written, the answer's head read.
    private static func openOwn(
        _ wire: WireRequest, url: URL, limits: TapeServer.Limits, failure: (RequestFailure.Reason) -> RequestFailure
    ) throws(RequestFailure) -> Opened {
        guard let host = url.host else { throw failure(.webSocketUpstreamUnreachable(why: "it names no host")) }
        let upstream: ServerConnection
        do {
            upstream = try ServerConnection.connect(host: host, port: url.port ?? 80)
        } catch {
            guard case .serverFailed(let why) = error else { throw failure(.webSocketUpstreamUnreachable(why: "\(error)")) }
            throw failure(.webSocketUpstreamUnreachable(why: why))
        }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var head = "GET \(target) HTTP/1.1\r\nHost: \(host)\(url.port.map { ":\($0)" } ?? "")\r\n"
        for (name, value) in wire.headers where !notSentOn.contains(name.lowercased()) { head += "\(name): \(value)\r\n" }
        guard upstream.write(Array((head + "\r\n").utf8)) else {
            upstream.close()
            throw failure(.webSocketUpstreamUnreachable(why: "it closed the connection"))
        }
        guard let answer = UpstreamHead.read(from: upstream, timeout: limits.headerTimeout) else {
            upstream.close()
            throw failure(.webSocketUpstreamUnreachable(why: "it sent no HTTP response to the upgrade"))
        }
        guard answer.status == 101 else {
            defer { upstream.close() }
            return .answered(answer, body: answer.body(from: upstream, timeout: limits.idleTimeout))
        }
        guard !answer.headers.contains("Sec-WebSocket-Extensions") else {
            upstream.close()
            throw failure(.webSocketUpstreamUnreachable(why: "it agreed to an extension it was not offered (Sec-WebSocket-Extensions)"))
        }
        return .webSocket(WebSocketChannel(upstream, role: .client, maximumMessageSize: limits.bodyBytes), headers: answer.headers)
    }
}
