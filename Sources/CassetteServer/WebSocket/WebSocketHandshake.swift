import Foundation

// The fuzz targets compile this file with the runtime's files in one module (Fuzz/run).
#if canImport(Cassette)
import Cassette
#endif

/// The opening handshake of RFC 6455 (section 4), server side: whether a request asks for a
/// WebSocket, and the `101 Switching Protocols` that accepts it.
///
/// Extensions are never accepted: a client offering `permessage-deflate` gets a response
/// without `Sec-WebSocket-Extensions`, so the conversation is sent, and recorded, uncompressed.
package enum WebSocketHandshake {
    /// The GUID RFC 6455 appends to the client's key.
    package static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// `Sec-WebSocket-Accept` for `key`: base64 of SHA-1 of the key and the GUID.
    package static func accept(forKey key: String) -> String {
        let digest = SHA1.digest(Array((key + guid).utf8))
        var out: [UInt8] = []
        digest.withUnsafeBytes { Base64.encode($0, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// A request that asks for a WebSocket, as the server reads it.
    package struct Upgrade: Sendable, Equatable {
        /// `Sec-WebSocket-Key`.
        package var key: String
        /// The subprotocols offered (`Sec-WebSocket-Protocol`), in order.
        package var protocols: [String]
    }

    /// Why a request that asks for a WebSocket cannot have one: the status and what to say.
    package struct Refusal: Error, Sendable, Equatable {
        package var status: Int
        package var reason: String
        /// Extra header fields of the refusal (`Sec-WebSocket-Version: 13` with 426).
        package var headers: [(String, String)] = []

        package static func == (a: Refusal, b: Refusal) -> Bool {
            a.status == b.status && a.reason == b.reason && a.headers.map { "\($0.0): \($0.1)" } == b.headers.map { "\($0.0): \($0.1)" }
        }
    }

    /// The upgrade `method` and the header fields (looked up by name, ignoring case) ask for, or
    /// why it is refused.
    package static func upgrade(method: String, _ value: (String) -> String?) -> Result<Upgrade, Refusal> {
        guard method == "GET" else { return .failure(Refusal(status: 400, reason: "a WebSocket handshake is a GET, not \(method)")) }
        guard WebSocketUpgrade.tokens(value("Connection")).contains("upgrade") else {
            return .failure(Refusal(status: 400, reason: "a WebSocket handshake needs \"Connection: Upgrade\""))
        }
        guard value("Sec-WebSocket-Version")?.trimmingCharacters(in: .whitespaces) == "13" else {
            return .failure(
                Refusal(status: 426, reason: "only WebSocket version 13 is spoken here", headers: [("Sec-WebSocket-Version", "13")]))
        }
        guard let key = value("Sec-WebSocket-Key")?.trimmingCharacters(in: .whitespaces),
            Base64.decode(Array(key.utf8), allowingWhitespace: false)?.count == 16
        else {
            return .failure(Refusal(status: 400, reason: "Sec-WebSocket-Key must be 16 bytes in base64"))
        }
        let protocols = (value("Sec-WebSocket-Protocol") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return .success(Upgrade(key: key, protocols: protocols))
    }

    /// The `101` response's header fields for `upgrade`, choosing `chosenProtocol` (one of those
    /// offered) when there is one.
    package static func responseHeaders(for upgrade: Upgrade, chosenProtocol: String? = nil) -> [(String, String)] {
        var headers = [("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Accept", accept(forKey: upgrade.key))]
        if let chosenProtocol, upgrade.protocols.contains(chosenProtocol) { headers.append(("Sec-WebSocket-Protocol", chosenProtocol)) }
        return headers
    }
}
