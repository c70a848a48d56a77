import Cassette
import Foundation

/// The head of the upstream server's answer to a WebSocket upgrade, read by the server's own
/// client (``TapeServer`` recording a WebSocket): its status, its fields, and the bytes to pass on.
struct UpstreamHead {
    var status: Int
    var headers: Interaction.Headers
    /// The head as it came, to write on to the client when it is not a `101`.
    var headBytes: [UInt8]

    /// The largest head accepted.
    static let limit = 65_536

    /// Reads a response head from `connection` (bytes after it stay in its buffer); nil when none
    /// comes within `timeout`, the connection closes first, or it is not an HTTP/1.x response.
    static func read(from connection: ServerConnection, timeout: TimeInterval) -> UpstreamHead? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let pending = connection.pending
            if let end = WireRequest.endOfHead(in: pending) {
                let head = Array(pending.prefix(end.next))
                connection.consume(end.next)
                return parse(head)
            }
            guard pending.count < limit, connection.readMore(until: deadline) == .data else { return nil }
        }
    }

    private static func parse(_ head: [UInt8]) -> UpstreamHead? {
        // Split on bytes: in a Swift string, CR LF is one character.
        let lines = head.split(separator: 0x0A, omittingEmptySubsequences: false).map {
            String(decoding: $0.last == 0x0D ? $0.dropLast() : $0, as: UTF8.self)
        }
        let statusLine = lines[0].split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else { return nil }
        var headers = Interaction.Headers()
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingWhitespace())
        }
        return UpstreamHead(status: status, headers: headers, headBytes: head)
    }

    /// The body that follows a head that is not a `101`: by its `Content-Length`, else until the
    /// connection closes (or `timeout`).
    func body(from connection: ServerConnection, timeout: TimeInterval) -> Data {
        let deadline = Date(timeIntervalSinceNow: timeout)
        let length = headers["Content-Length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        while length.map({ connection.pending.count < $0 }) ?? true {
            guard connection.readMore(until: deadline) == .data else { break }
        }
        let body = Data(connection.pending.prefix(length ?? connection.pending.count))
        connection.consume(body.count)
        return body
    }
}

extension UpstreamHead {
    /// The head of an answer to `request` known only by its status and fields (a refused upgrade,
    /// as `URLSessionWebSocketTask` reports it, without its body): written as the server writes
    /// every head (``WireResponse``), framed as empty (`Content-Length: 0`, whatever framing it had).
    init(status: Int, headers fields: Interaction.Headers, for request: WireRequest) {
        var headers = Interaction.Headers()
        for field in fields where !["content-length", "transfer-encoding"].contains(field.name.lowercased()) {
            headers.add(field.name, field.value)
        }
        headers.add("Content-Length", "0")
        self.init(status: status, headers: headers, headBytes: WireResponse(status: status, headers: headers, for: request).headBytes)
    }
}
