import Cassette
import Foundation

/// One end of a WebSocket connection on a socket: reads whole messages (and control frames) as
/// they arrive, with deadlines, and writes frames — masked when this end is the client. The
/// replay (``ConversationPlayer``) talks to the client through one; the recording relay
/// (``WebSocketRelay``) through two, one to the client and one to the upstream server.
/// Used by one reading thread at a time; writes are serialised, so another thread may write.
final class WebSocketChannel: @unchecked Sendable {
    /// What waiting for the next message found.
    enum Event {
        /// A message, or a control frame, and when it arrived.
        case message(WebSocketFrameReader.Message, arrived: DispatchTime)
        /// Nothing before the deadline.
        case timedOut
        /// The peer closed the TCP connection (or it broke).
        case closed
        /// The peer broke RFC 6455: the close frame with this code was sent, and the connection is done.
        case broken(WebSocketFrameReader.Failure)
    }

    let connection: ServerConnection
    private var reader: WebSocketFrameReader
    private let writing = NSLock()
    private let masks: Bool

    /// A channel on `connection` for the end `role` names (a server reads masked frames and
    /// writes unmasked ones; a client the reverse). Bytes already read past the handshake are in
    /// the connection's buffer and are read first.
    init(_ connection: ServerConnection, role: WebSocketFrameReader.Role, maximumMessageSize: Int) {
        self.connection = connection
        reader = WebSocketFrameReader(role: role, maximumMessageSize: maximumMessageSize)
        masks = role == .client
    }

    /// The next message, waiting until `deadline`. A protocol error sends its close frame here.
    func next(until deadline: DispatchTime) -> Event {
        while true {
            do {
                if let message = try reader.next() { return .message(message, arrived: .now()) }
            } catch {
                send(.close, WebSocketFrame.closePayload(code: error.code, reason: error.reason))
                return .broken(error)
            }
            let pending = connection.pending
            if !pending.isEmpty {
                reader.append(Data(pending))
                connection.consume(pending.count)
                continue
            }
            let now = DispatchTime.now()
            guard now < deadline else { return .timedOut }
            let seconds = Double(deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1e9
            switch connection.readMore(until: Date(timeIntervalSinceNow: seconds)) {
            case .data: continue
            case .closed: return .closed
            case .timedOut: return .timedOut
            }
        }
    }

    /// Writes one frame; false when the peer is gone.
    @discardableResult
    func send(_ opcode: WebSocketFrame.Opcode, _ payload: Data) -> Bool {
        let frame = WebSocketFrame(opcode: opcode, payload: payload)
        let bytes = masks ? frame.encoded(mask: (0..<4).map { _ in UInt8.random(in: 0...255) }) : frame.encoded()
        writing.lock()
        defer { writing.unlock() }
        return connection.write(bytes)
    }

    /// Writes `message` as its frame.
    @discardableResult
    func send(_ message: Interaction.WebSocketMessage) -> Bool {
        switch message.kind {
        case .text: send(.text, message.data)
        case .binary: send(.binary, message.data)
        case .ping: send(.ping, message.data)
        case .pong: send(.pong, message.data)
        case .close:
            send(.close, WebSocketFrame.closePayload(code: message.code.map { UInt16(truncatingIfNeeded: $0) }, reason: message.text ?? ""))
        }
    }
}

extension Interaction.WebSocketMessage {
    /// A message read from the wire, as a cassette keeps it: sent by `sender`, `at` seconds after the `101`.
    init(_ message: WebSocketFrameReader.Message, from sender: Sender, at: TimeInterval) {
        let at = (at * 1000).rounded() / 1000
        switch message {
        case .text(let text): self.init(from: sender, at: at, kind: .text, data: Data(text.utf8))
        case .binary(let data): self.init(from: sender, at: at, kind: .binary, data: data)
        case .ping(let data): self.init(from: sender, at: at, kind: .ping, data: data)
        case .pong(let data): self.init(from: sender, at: at, kind: .pong, data: data)
        case .close(let code, let reason): self.init(from: sender, at: at, kind: .close, data: Data(reason.utf8), code: code.map(Int.init))
        }
    }
}
