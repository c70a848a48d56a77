import Cassette
import Foundation

/// Carries a WebSocket conversation between a client and the upstream server while it is
/// recorded: every message (and control frame) is relayed as it arrives, in each direction on its
/// own thread, and kept with the moment it passed, counted from the `101`. It ends when both
/// sides have closed, or either connection ends; the other is then shut down.
///
/// Messages are relayed whole: a fragmented message leaves as one frame (its content unchanged),
/// and frames are masked anew toward the server. A frame that breaks RFC 6455 closes its side
/// with the code the rule names, and the relay ends.
struct WebSocketRelay {
    let client: any WebSocketEnd
    let upstream: any WebSocketEnd
    /// When the `101` was sent on to the client.
    let opened: DispatchTime

    /// Relays until the conversation ends; returns it, in the order the relay saw the messages.
    func run() -> Interaction.WebSocketConversation {
        let kept = Locked<[Interaction.WebSocketMessage]>([])
        let serverSide = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            relay(from: upstream, to: client, sender: .server, into: kept)
            serverSide.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        relay(from: client, to: upstream, sender: .client, into: kept)
        serverSide.wait()
        return Interaction.WebSocketConversation(messages: kept.withLock { $0 })
    }

    /// One direction: reads from `source`, writes to `destination`, keeps each message; when
    /// `source` is done (after its close, or when its connection ends), `destination`'s reading
    /// side is woken so the other direction ends too once it has nothing more.
    private func relay(
        from source: any WebSocketEnd, to destination: any WebSocketEnd, sender: Interaction.WebSocketMessage.Sender,
        into kept: Locked<[Interaction.WebSocketMessage]>
    ) {
        defer { destination.shutDown() }
        let forever = DispatchTime.distantFuture
        while true {
            switch source.next(until: forever) {
            case .message(let message, let arrived):
                let at = Double(arrived.uptimeNanoseconds - opened.uptimeNanoseconds) / 1e9
                let recorded = Interaction.WebSocketMessage(message, from: sender, at: at)
                kept.withLock { $0.append(recorded) }
                guard destination.send(recorded) else { return }
                if case .close = message {
                    // Its peer's close, and then the end of the connection, come the other way.
                    source.awaitEnd(until: Date(timeIntervalSinceNow: ConversationPlayer.closingWait))
                    return
                }
            case .timedOut:
                continue
            case .closed, .broken:
                return
            }
        }
    }
}
