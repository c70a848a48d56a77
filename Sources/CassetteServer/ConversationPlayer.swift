import Cassette
import Foundation

/// Runs a recorded WebSocket conversation (`ConversationReplay`) on a client's connection once
/// the `101` is written: the wire executor of `Decision.converse(_:)`.
///
/// It follows the script (`WebSocketScript`) step by step: a server message is sent when its
/// delay after the step's anchor has passed; a client message is waited for and compared with the
/// recording. Meanwhile every ping is answered with its pong, and client messages that arrive
/// early wait their turn, with the moment they arrived (which anchors what answers them). A
/// message that differs, or one that never comes, is a miss: the router logs the report, and the
/// client gets a close 1008 that says which message. After the server's close, the player waits
/// briefly for the client's; a script without one ends by dropping the connection.
struct ConversationPlayer {
    let replay: ConversationReplay
    let channel: WebSocketChannel
    /// How long a recorded client message is waited for.
    let waitLimit: TimeInterval
    /// Hears of each miss.
    let onMiss: (UnmatchedRequest) -> Void

    /// How long, after the server's close, the client's close is waited for.
    static let closingWait: TimeInterval = 2

    private enum Pumped { case going, closed, broken }

    /// Plays the conversation to its end; the caller then closes the connection.
    func run() {
        var anchor = DispatchTime.now()
        var waiting: [(message: WebSocketFrameReader.Message, arrived: DispatchTime)] = []
        var clientClose: UInt16??
        for step in replay.script.steps {
            switch step {
            case .send(let index, let delay):
                let due = anchor + delay
                while DispatchTime.now() < due {
                    guard pump(until: due, into: &waiting) == .going else { return }
                }
                let message = replay.outgoing(index)
                // After the client's close only the answering close may follow.
                if clientClose != nil, message.kind != .close { continue }
                guard channel.send(message) else { return }
                if message.kind == .close {
                    if clientClose == nil { awaitClientClose(after: waiting) }
                    return
                }
            case .expect(let index):
                let deadline = DispatchTime.now() + waitLimit
                while waiting.isEmpty {
                    let outcome = DispatchTime.now() < deadline ? pump(until: deadline, into: &waiting) : .going
                    guard waiting.isEmpty else { break }
                    switch outcome {
                    case .broken:
                        return
                    case .closed:
                        return onMiss(replay.miss(at: index, "the client closed the connection before sending it"))
                    case .going where DispatchTime.now() >= deadline:
                        onMiss(replay.miss(at: index, "it never came (waited \(JSONCassetteCodec.formatSeconds(waitLimit)) s)"))
                        channel.send(.close, WebSocketFrame.closePayload(code: WebSocketCloseCode.policyViolation, reason: reason(index)))
                        return
                    case .going:
                        continue
                    }
                }
                let (message, arrived) = waiting.removeFirst()
                if let difference = replay.difference(message, at: index) {
                    onMiss(replay.miss(at: index, difference))
                    if case .close(let code, _) = message {
                        channel.send(.close, WebSocketFrame.closePayload(code: code, reason: ""))
                    } else {
                        channel.send(.close, WebSocketFrame.closePayload(code: WebSocketCloseCode.policyViolation, reason: reason(index)))
                    }
                    return
                }
                replay.learn(from: message, recordedAt: index)
                anchor = arrived
                if case .close(let code, _) = message { clientClose = .some(code) }
            }
        }
        // The client closed, and the recording has no answer to it: the close is answered all the same.
        if let clientClose, !replay.script.serverCloses {
            channel.send(.close, WebSocketFrame.closePayload(code: clientClose, reason: ""))
        }
    }

    /// The close reason a miss sends: short, as a close frame's reason must be (123 bytes).
    private func reason(_ index: Int) -> String {
        "Cassette: message \(index) does not match the recording"
    }

    /// Reads until `deadline`: pings are answered, data messages and closes queued.
    private func pump(
        until deadline: DispatchTime, into waiting: inout [(message: WebSocketFrameReader.Message, arrived: DispatchTime)]
    )
        -> Pumped
    {
        switch channel.next(until: deadline) {
        case .message(.ping(let data), _):
            return channel.send(.pong, data) ? .going : .closed
        case .message(.pong, _):
            return .going
        case .message(let message, let arrived):
            waiting.append((message, arrived))
            return .going
        case .timedOut:
            return .going
        case .closed:
            return .closed
        case .broken:
            return .broken
        }
    }

    /// After the server's close: waits (briefly) for the client's, unless it came already.
    private func awaitClientClose(after waiting: [(message: WebSocketFrameReader.Message, arrived: DispatchTime)]) {
        if waiting.contains(where: { if case .close = $0.message { true } else { false } }) { return }
        let deadline = DispatchTime.now() + Self.closingWait
        while DispatchTime.now() < deadline {
            switch channel.next(until: deadline) {
            case .message(.close, _), .closed, .broken, .timedOut: return
            case .message: continue
            }
        }
    }
}
