import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a ``TapeServer`` says no on the wire: a miss with its report, a refusal in words, a failure
/// as its error would look to a client.
extension TapeServer {
    /// A request nobody may answer: an unmatched one gets ``Options/unmatchedStatus`` with the
    /// miss report (and ``Options/onUnmatched`` hears of it); any other refusal looks on the wire
    /// as its error would.
    func refuse(_ failure: RequestFailure, of wire: WireRequest, on connection: ServerConnection) -> Bool {
        switch failure.reason {
        case .webSocketConversation:
            // Said in words rather than a reset: a plain request for a recording only an upgrade can have.
            writeClosing(status: 501, text: failure.message, to: connection)
            return false
        case .redactionFailed:
            // The tape's own rule failed this request: said in words, the connection's thread free.
            writeClosing(status: 500, text: failure.message, to: connection)
            return false
        default:
            break
        }
        guard case .unmatched(let miss) = failure.reason else { return fail(before: true, failure.urlError, on: connection) }
        options.onUnmatched?(miss)
        let body = Data((miss.description + "\n").utf8)
        var head = "HTTP/1.1 \(options.unmatchedStatus) \(ReasonPhrase.of(options.unmatchedStatus))\r\n"
        head += "Content-Type: text/plain; charset=utf-8\r\n\(Self.unmatchedHeader): true\r\nContent-Length: \(body.count)\r\n"
        head += wire.keepsAlive ? "\r\n" : "Connection: close\r\n\r\n"
        return connection.write(Array(head.utf8) + Array(wire.method == "HEAD" ? Data() : body)) && wire.keepsAlive
    }

    /// After an answer failed: how the failure looks on the wire. Always closes the connection.
    func fail(before head: Bool, _ error: URLError?, on connection: ServerConnection) -> Bool {
        guard let error else { return false }
        switch error.code {
        case .timedOut:
            // A server that never answers: the client waits until it gives up.
            connection.hold(until: Date(timeIntervalSinceNow: CassetteRules.longestSeconds))
            return false
        case .cancelled:
            return false
        case .networkConnectionLost where !head:
            return false  // closed after the bytes that arrived
        default:
            connection.reset()
            return false
        }
    }

    func writeRefusal(_ refusal: WireRequest.Refusal, to connection: ServerConnection) {
        writeClosing(
            status: refusal.status, text: "\(refusal.status) \(ReasonPhrase.of(refusal.status)): \(refusal.reason)", to: connection)
    }

    /// Writes a plain-text answer (`text` and a line end) with `status` and `fields`, after which
    /// the connection closes: how the server says what it will not do.
    func writeClosing(status: Int, fields: [(String, String)] = [], text: String, to connection: ServerConnection) {
        let body = Data((text + "\n").utf8)
        let head =
            "HTTP/1.1 \(status) \(ReasonPhrase.of(status))\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + fields.map { "\($0.0): \($0.1)\r\n" }.joined() + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        connection.write(Array(head.utf8) + Array(body))
    }

    /// The one message for a URL that would lead back to this server, at start (the upstream, the
    /// cassette's origin) or for a request (proxy form, or a path with no upstream): where it
    /// leads, and what to do.
    static func selfReference(_ url: String, ownOrigin: String, what: String = "this request's URL") -> String {
        "\(what) \(url) leads back to this server itself, listening on \(ownOrigin): every request would go round to it "
            + "forever. Give the real service's address (cassette serve --upstream https://api.example.com), or serve on "
            + "another port; a server in record mode none forwards nothing"
    }
}
