import Cassette
import Foundation

/// An HTTP/1.1 request as ``TapeServer`` read it off a connection (RFC 9112): request line,
/// header fields, and the body by `Content-Length` or chunked, within ``Limits``.
struct WireRequest {
    var method: String
    /// The request target as sent: `/path?query`, an absolute URL (a proxy request), or `host:port`
    /// (a `CONNECT`, which opens a tunnel).
    var target: String
    /// `HTTP/1.0` or `HTTP/1.1`.
    var version: String
    var headers: [(name: String, value: String)]
    var body: Data

    /// The value of a field (any case), repeated values joined with `, `.
    func header(_ name: String) -> String? {
        var found: String?
        // By ASCII bytes, as `Interaction.Headers` compares names: Foundation's case-insensitive
        // comparison costs more than the rest of reading a request.
        for field in headers where asciiCaseInsensitiveEquals(field.name, name) {
            found = found.map { $0 + ", " + field.value } ?? field.value
        }
        return found
    }

    /// Whether the connection stays open after the response: HTTP/1.1 unless `Connection: close`,
    /// HTTP/1.0 only with `Connection: keep-alive`.
    var keepsAlive: Bool {
        guard let connection = header("Connection")?.lowercased() else { return version != "HTTP/1.0" }
        if version == "HTTP/1.0" { return connection.utf8Contains("keep-alive") }
        return !connection.utf8Contains("close")
    }

    /// What a server accepts from a client, and how long it waits.
    struct Limits: Sendable {
        /// The longest request line (method, target, version): longer is `414 URI Too Long`.
        var requestLine = 8_192
        /// The most bytes of header fields: more is `431 Request Header Fields Too Large`.
        var headerBytes = 65_536
        /// The largest body: larger is `413 Content Too Large`.
        var body = 64 * 1024 * 1024
        /// How long a client may take to send a request's head once it started (slowloris).
        var headerTimeout: TimeInterval = 10
        /// How long a kept-alive connection may wait for its next request.
        var idleTimeout: TimeInterval = 60
        /// How long a body may take to arrive, from the end of the head.
        var bodyTimeout: TimeInterval = 60
    }

    /// Why a request could not be read: answered with `status` and the connection closed.
    struct Refusal: Error {
        var status: Int
        var reason: String
    }

    /// What reading found.
    enum ReadOutcome {
        case request(WireRequest)
        /// The client closed the connection, or sent nothing in time: close quietly.
        case gone
        case refused(Refusal)
    }

    /// Reads the next request from `connection`. `sendContinue` is called once the head is read
    /// and the client waits for `100 Continue` before sending its body.
    static func read(from connection: ServerConnection, limits: Limits, sendContinue: () -> Void) -> ReadOutcome {
        // The head: up to the empty line.
        var deadline = Date(timeIntervalSinceNow: limits.idleTimeout)
        var started = false
        var headEnd: (end: Int, next: Int)?
        while headEnd == nil {
            let pending = connection.pending
            // Empty lines before a request line are allowed (RFC 9112 §2.2).
            var skipped = 0
            for byte in pending { if byte == 0x0D || byte == 0x0A { skipped += 1 } else { break } }
            if skipped > 0 { connection.consume(skipped) }
            headEnd = endOfHead(in: connection.pending)
            if headEnd != nil { break }
            let held = connection.pending
            if !held.isEmpty, !started {
                started = true
                deadline = Date(timeIntervalSinceNow: limits.headerTimeout)
            }
            if held.firstIndex(of: 0x0A) == nil, held.count > limits.requestLine {
                return .refused(Refusal(status: 414, reason: "the request line is longer than \(limits.requestLine) bytes"))
            }
            if held.count > limits.requestLine + limits.headerBytes {
                return .refused(Refusal(status: 431, reason: "the header fields are longer than \(limits.headerBytes) bytes"))
            }
            switch connection.readMore(until: deadline) {
            case .data: continue
            case .closed:
                return started ? .refused(Refusal(status: 400, reason: "the connection closed in the middle of a request head")) : .gone
            case .timedOut:
                return started
                    ? .refused(Refusal(status: 408, reason: "the request head did not arrive within \(Int(limits.headerTimeout)) s"))
                    : .gone
            }
        }
        guard let headEnd else { return .gone }
        let head = Array(connection.pending.prefix(headEnd.end))
        connection.consume(headEnd.next)
        var request: WireRequest
        do {
            request = try parseHead(head, limits: limits)
        } catch {
            return .refused(error)
        }

        // The body.
        let chunked = request.header("Transfer-Encoding")
        let length = request.header("Content-Length")
        if chunked != nil, length != nil {
            return .refused(Refusal(status: 400, reason: "a request cannot have both Transfer-Encoding and Content-Length"))
        }
        var declared = 0
        if let length {
            let values = Set(length.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            guard values.count == 1, let text = values.first, !text.isEmpty, text.utf8.count <= 18,
                text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text)
            else {
                return .refused(Refusal(status: 400, reason: "Content-Length \"\(length)\" is not one whole number"))
            }
            guard value <= limits.body else {
                return .refused(Refusal(status: 413, reason: "the body (\(value) bytes) is larger than \(limits.body) bytes"))
            }
            declared = value
        }
        if let chunked, chunked.lowercased().trimmingCharacters(in: .whitespaces) != "chunked" {
            return .refused(
                Refusal(status: 501, reason: "Transfer-Encoding \"\(chunked)\" is not supported; send chunked or a Content-Length"))
        }
        if chunked != nil || declared > 0, request.header("Expect")?.lowercased() == "100-continue" {
            sendContinue()
        }
        let bodyDeadline = Date(timeIntervalSinceNow: limits.bodyTimeout)
        if chunked != nil {
            switch readChunked(from: connection, limits: limits, deadline: bodyDeadline) {
            case .success(let body): request.body = body
            case .failure(let refusal): return .refused(refusal)
            }
        } else if declared > 0 {
            while connection.pending.count < declared {
                switch connection.readMore(until: bodyDeadline) {
                case .data: continue
                case .closed:
                    return .refused(
                        Refusal(status: 400, reason: "the connection closed after \(connection.pending.count) of \(declared) body bytes"))
                case .timedOut: return .refused(Refusal(status: 408, reason: "the body did not arrive within \(Int(limits.bodyTimeout)) s"))
                }
            }
            request.body = Data(connection.pending.prefix(declared))
            connection.consume(declared)
        }
        return .request(request)
    }

    /// Where the head ends (before its empty line) and where the next bytes start.
    static func endOfHead(in bytes: ArraySlice<UInt8>) -> (end: Int, next: Int)? {
        var index = bytes.startIndex
        while let newline = bytes[index...].firstIndex(of: 0x0A) {
            let after = newline + 1
            if after < bytes.endIndex, bytes[after] == 0x0A { return (newline - bytes.startIndex, after + 1 - bytes.startIndex) }
            if after + 1 < bytes.endIndex, bytes[after] == 0x0D, bytes[after + 1] == 0x0A {
                return (newline - bytes.startIndex, after + 2 - bytes.startIndex)
            }
            index = after
        }
        return nil
    }

    private static func parseHead(_ head: [UInt8], limits: Limits) throws(Refusal) -> WireRequest {
        var lines = head.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> ArraySlice<UInt8> in
            line.last == 0x0D ? line.dropLast() : line
        }
        guard !lines.isEmpty else { throw Refusal(status: 400, reason: "no request line") }
        let requestLine = lines.removeFirst()
        guard requestLine.count <= limits.requestLine else {
            throw Refusal(status: 414, reason: "the request line is longer than \(limits.requestLine) bytes")
        }
        guard lines.reduce(0, { $0 + $1.count + 2 }) <= limits.headerBytes else {
            throw Refusal(status: 431, reason: "the header fields are longer than \(limits.headerBytes) bytes")
        }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, let method = text(parts[0]), let target = text(parts[1]), let version = text(parts[2]) else {
            throw Refusal(status: 400, reason: "the request line is not \"METHOD TARGET HTTP/1.1\"")
        }
        guard CassetteRules.methodProblem(method) == nil else { throw Refusal(status: 400, reason: "\"\(method)\" is not a method") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw Refusal(
                status: version.hasPrefix("HTTP/") ? 505 : 400, reason: "HTTP version \"\(version)\" is not supported; send HTTP/1.1")
        }
        if method == "CONNECT" {
            // The authority form, and only it (RFC 9112 §3.2.3): `host:port`.
            guard TunnelTarget(authority: target) != nil else { throw TunnelTarget.refusal(of: target) }
        } else {
            guard
                target.hasPrefix("/") || target.hasPrefix("http://") || target.hasPrefix("https://")
                    || (target == "*" && method == "OPTIONS"),
                !target.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
            else {
                throw Refusal(status: 400, reason: "the request target \"\(target.prefix(60))\" is neither a path nor an absolute URL")
            }
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let first = line.first else { continue }
            if first == 0x20 || first == 0x09 {
                throw Refusal(status: 400, reason: "a header field is folded over two lines (obsolete, refused)")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), let name = text(line[..<colon]),
                CassetteRules.headerNameProblem(name) == nil, let value = text(line[(colon + 1)...])
            else {
                throw Refusal(
                    status: 400, reason: "\"\(String(decoding: line.prefix(60), as: UTF8.self))\" is not a header field \"Name: value\"")
            }
            if value.unicodeScalars.contains(where: { $0.value == 0 }) { throw Refusal(status: 400, reason: "a header value holds NUL") }
            headers.append((name, value.trimmingWhitespace()))
        }
        return WireRequest(method: method, target: target, version: version, headers: headers, body: Data())
    }

    /// `bytes` as text; nil when they are not UTF-8 (`String(validating:as:)` needs macOS 15).
    private static func text(_ bytes: ArraySlice<UInt8>) -> String? {
        UTF8Validation.isValid(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
    }

    /// A chunked body: hexadecimal sizes (extensions ignored), the chunks, a zero chunk and trailers.
    private static func readChunked(from connection: ServerConnection, limits: Limits, deadline: Date) -> Result<Data, Refusal> {
        var body = Data()
        func line() -> Result<[UInt8], Refusal> {
            while true {
                if let newline = connection.pending.firstIndex(of: 0x0A) {
                    var line = Array(connection.pending[connection.pending.startIndex..<newline])
                    if line.last == 0x0D { line.removeLast() }
                    connection.consume(newline + 1 - connection.pending.startIndex)
                    return .success(line)
                }
                if connection.pending.count > 4_096 {
                    return .failure(Refusal(status: 400, reason: "a chunk size line is longer than 4096 bytes"))
                }
                switch connection.readMore(until: deadline) {
                case .data: continue
                case .closed: return .failure(Refusal(status: 400, reason: "the connection closed in the middle of a chunked body"))
                case .timedOut:
                    return .failure(Refusal(status: 408, reason: "the chunked body did not arrive within \(Int(limits.bodyTimeout)) s"))
                }
            }
        }
        while true {
            let sizeLine: [UInt8]
            switch line() {
            case .success(let read): sizeLine = read
            case .failure(let refusal): return .failure(refusal)
            }
            let hex = sizeLine.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != 0x20 && $0 != 0x09 }
            guard !hex.isEmpty, hex.count <= 15, hex.allSatisfy({ isHexDigit($0) }),
                let size = Int(String(decoding: hex, as: UTF8.self), radix: 16)
            else {
                return .failure(
                    Refusal(status: 400, reason: "\"\(String(decoding: sizeLine.prefix(40), as: UTF8.self))\" is not a chunk size"))
            }
            if size == 0 { break }
            guard body.count + size <= limits.body else {
                return .failure(Refusal(status: 413, reason: "the chunked body is larger than \(limits.body) bytes"))
            }
            while connection.pending.count < size + 2 {
                switch connection.readMore(until: deadline) {
                case .data: continue
                case .closed: return .failure(Refusal(status: 400, reason: "the connection closed in the middle of a chunk"))
                case .timedOut:
                    return .failure(Refusal(status: 408, reason: "the chunked body did not arrive within \(Int(limits.bodyTimeout)) s"))
                }
            }
            let chunk = connection.pending.prefix(size)
            let after = connection.pending.dropFirst(size)
            guard after.starts(with: [0x0D, 0x0A]) || after.first == 0x0A else {
                return .failure(Refusal(status: 400, reason: "a chunk is longer than its size says"))
            }
            body.append(contentsOf: chunk)
            connection.consume(size + (after.first == 0x0A ? 1 : 2))
        }
        // Trailer fields, up to an empty line; not kept.
        while true {
            switch line() {
            case .success(let trailer): if trailer.isEmpty { return .success(body) }
            case .failure(let refusal): return .failure(refusal)
            }
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
