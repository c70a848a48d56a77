import Cassette
import Foundation

/// One end of a WebSocket conversation the recording relay (``WebSocketRelay``) talks to: the
/// client's connection, or the upstream server — through the server's own client
/// (``WebSocketChannel``), or on Apple platforms for `wss://` through `URLSessionWebSocketTask`
/// (`URLSessionWebSocketEnd`). The seam between the platforms is here and nowhere else.
protocol WebSocketEnd: AnyObject, Sendable {
    /// The next message from this end, waiting until `deadline`.
    func next(until deadline: DispatchTime) -> WebSocketChannel.Event
    /// Sends `message` to this end; false when it is gone.
    @discardableResult
    func send(_ message: Interaction.WebSocketMessage) -> Bool
    /// After this end's close: waits (at most until `deadline`) for its connection to end.
    func awaitEnd(until deadline: Date)
    /// Ends the connection from another thread: a `next` waiting returns.
    func shutDown()
}

extension WebSocketChannel: WebSocketEnd {
    func awaitEnd(until deadline: Date) {
        connection.hold(until: deadline)
    }

    func shutDown() {
        connection.shutDown()
    }
}
