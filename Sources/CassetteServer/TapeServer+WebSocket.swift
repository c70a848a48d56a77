import Cassette
import Foundation

/// The server's WebSocket side: an upgrade request is decided by the tape's router like any
/// request; a recorded conversation is replayed on the connection (``ConversationPlayer``), and
/// in a mode that records, the server relays the conversation to the upstream server and records
/// it (``WebSocketRelay``).
extension TapeServer {
    /// The upgrade `wire` asks for: nil when it asks for none; a refusal when its handshake is
    /// malformed (the status and why, as RFC 6455 says: `426` with the version spoken).
    func webSocketUpgrade(of wire: WireRequest) -> Result<WebSocketHandshake.Upgrade?, WebSocketHandshake.Refusal> {
        guard WebSocketUpgrade.isAsked({ wire.header($0) }) else { return .success(nil) }
        return WebSocketHandshake.upgrade(method: wire.method) { wire.header($0) }.map { $0 }
    }

    /// Writes a refused handshake; the connection closes.
    func writeRefusal(_ refusal: WebSocketHandshake.Refusal, to connection: ServerConnection) {
        writeClosing(
            status: refusal.status, fields: refusal.headers,
            text: "\(refusal.status) \(ReasonPhrase.of(refusal.status)): \(refusal.reason)",
            to: connection)
    }

    /// Replays `replay` to the client: the recorded `101` (with the accept key for this client's
    /// key), then the conversation. The connection closes after it.
    func converse(
        _ replay: ConversationReplay, upgrade: WebSocketHandshake.Upgrade, on connection: ServerConnection, router: Router
    )
        -> Bool
    {
        let head = Self.switchingHead(recorded: replay.response.headers, upgrade: upgrade)
        guard connection.write(Array(head.utf8)) else { return false }
        let channel = WebSocketChannel(connection, role: .server, maximumMessageSize: options.limits.bodyBytes)
        let player = ConversationPlayer(replay: replay, channel: channel, waitLimit: options.limits.idleTimeout) { miss in
            router.access.noteConversationMiss(miss)
            self.options.onUnmatched?(miss)
        }
        player.run()
        return false
    }

    /// The `101` head for `upgrade`: the handshake's own fields (the accept key computed for this
    /// client's key, the recorded subprotocol), then the other recorded fields. No extension is
    /// ever agreed.
    static func switchingHead(recorded: Interaction.Headers, upgrade: WebSocketHandshake.Upgrade) -> String {
        var head = "HTTP/1.1 101 Switching Protocols\r\n"
        for (name, value) in WebSocketHandshake.responseHeaders(for: upgrade, chosenProtocol: recorded["Sec-WebSocket-Protocol"]) {
            head += "\(name): \(value)\r\n"
        }
        for (name, value) in recorded where !handshakeFields.contains(name.lowercased()) {
            head += "\(name): \(value)\r\n"
        }
        return head + "\r\n"
    }

    /// Fields of a `101` that belong to one handshake, made anew for each.
    private static let handshakeFields: Set<String> = [
        "upgrade", "connection", "sec-websocket-accept", "sec-websocket-protocol", "sec-websocket-extensions", "content-length",
        "transfer-encoding",
    ]

    /// Fields of the upgrade request that belong to one connection: not sent on as they came
    /// (the key is, the extensions are not offered), and not recorded.
    private static let perConnectionRequestFields: Set<String> = ["sec-websocket-key", "sec-websocket-extensions"]

    // MARK: Recording

    /// Relays the upgrade `wire` to the upstream server at `url` and records the conversation
    /// (`request`: the upgrade as captured) into `router`'s recorder, unless not `keeping` (a
    /// pass-through). The connection closes after it.
    func relayWebSocket(
        _ wire: WireRequest, request: Interaction.Request, url: URL, upgrade: WebSocketHandshake.Upgrade,
        on connection: ServerConnection, router: Router, keeping: Bool = true
    ) -> Bool {
        let recording = LiveRecording(request, access: router.access, keeping: keeping)
        let started = Date()
        let clock = DispatchTime.now()
        func seconds() -> TimeInterval { Double(DispatchTime.now().uptimeNanoseconds - clock.uptimeNanoseconds) / 1e9 }
        let opened: WebSocketUpstream.Opened
        do {
            opened = try WebSocketUpstream.open(wire, url: url, limits: options.limits)
        } catch {
            recording.abandon()
            refuseWebSocket(error, to: connection)
            return false
        }
        let firstByte = seconds()
        var kept = request
        for name in Self.perConnectionRequestFields { kept.headers.remove(name) }
        switch opened {
        case .answered(let answer, let body):
            // Not a WebSocket after all: the answer goes to the client, and is recorded, as it is.
            connection.write(answer.headBytes + Array(body))
            let response = Interaction.Response(
                status: answer.status, url: url.absoluteString, headers: answer.headers,
                body: Interaction.Body(body, contentType: answer.headers["Content-Type"]))
            recording.keep(
                Interaction(
                    recordedAt: started, request: kept, response: response,
                    timing: RecordingPolicy.timing(firstByte: firstByte, duration: seconds())))
        case .webSocket(let upstream, var headers):
            defer { upstream.shutDown() }
            let opened = DispatchTime.now()
            guard connection.write(Array(Self.switchingHead(recorded: headers, upgrade: upgrade).utf8)) else {
                recording.abandon()
                return false
            }
            let client = WebSocketChannel(connection, role: .server, maximumMessageSize: options.limits.bodyBytes)
            let conversation = WebSocketRelay(client: client, upstream: upstream, opened: opened).run()
            headers.remove("Sec-WebSocket-Accept")
            recording.keep(
                Interaction(
                    recordedAt: started, request: kept,
                    response: Interaction.Response(status: 101, url: url.absoluteString, headers: headers),
                    timing: RecordingPolicy.timing(firstByte: firstByte, duration: firstByte), webSocket: conversation))
        }
        return false
    }

    /// A WebSocket the server cannot record: `502 Bad Gateway` with why.
    private func refuseWebSocket(_ failure: RequestFailure, to connection: ServerConnection) {
        writeClosing(status: 502, text: failure.message, to: connection)
    }
}
