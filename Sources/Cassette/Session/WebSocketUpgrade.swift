import Foundation

/// Whether a request asks to open a WebSocket (`Upgrade: websocket`, RFC 6455 section 4.1): the
/// question the session's protocol asks before answering (it leaves a handshake to the loading
/// system) and the server asks before any other.
package enum WebSocketUpgrade {
    /// Whether the header fields (looked up by name, ignoring case) ask for a WebSocket.
    package static func isAsked(_ value: (String) -> String?) -> Bool {
        tokens(value("Upgrade")).contains("websocket")
    }

    /// The comma-separated tokens of a header field's value, trimmed and lowercased.
    package static func tokens(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}
