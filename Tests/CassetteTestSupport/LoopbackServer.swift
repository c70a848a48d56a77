import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on 127.0.0.1 for tests: recording needs a live server, and tests run
/// without network. Keep-alive, `TCP_NODELAY` (without it every request waits ~40 ms for the
/// peer's delayed ACK), chunked request bodies, and these routes:
///
/// | route              | answer                                                                 |
/// |--------------------|------------------------------------------------------------------------|
/// | `/status/N`        | status N, text body `status N`                                         |
/// | `/echo`            | 200, JSON: method, path, query, headers (lower-cased names), body text |
/// | `/delay/MS`        | 200 after MS milliseconds, `delayed MS ms`                             |
/// | `/chunked/N`       | 200, `Transfer-Encoding: chunked`, N chunks `chunk i\n`               |
/// | `/slow-chunks/N/MS`| as `/chunked/N`, MS milliseconds between chunks                          |
/// | `/sse/N/MS`        | 200, `text/event-stream`, chunked, N events (``LoopbackRoutes/sseEvent(_:)``) MS ms apart |
/// | `/grpc-web/N/MS`   | 200, `application/grpc-web+proto`, chunked, N messages (``LoopbackRoutes/grpcWebMessage(_:)``) MS ms apart, then the trailers |
/// | `/gzip`, `/deflate`| 200, a JSON body compressed ahead of time, with `Content-Encoding`     |
/// | `/redirect/N`      | 302 to `/redirect/N-1`; `/redirect/0` answers 200 `arrived`            |
/// | `/redirect-to?status_code=S&url=U[&cookie=C]` | S to U, `Set-Cookie: C` (or the `/session` secret for `session`) |
/// | `/bytes/N`         | 200, N bytes `i % 251`, `application/octet-stream`                     |
/// | `/headers`         | 200, repeated `Set-Cookie` and `X-Multi` fields, an `ETag`             |
/// | `/volatile/NAME`   | 200, `NAME, edition E` (``setEdition(_:of:)``) with a new `Date`, `Age` and `X-Request-Id` each time |
/// | `/volatile/NAME/N` | 200, N bytes `i % 251` but the last, which is E; `application/octet-stream`, a new `Date` each time |
/// | `/cache/max-age/N` | 200, `Cache-Control: max-age=N`, `response #K` (K: the server's Kth request) |
/// | `/cache/etag/TAG`  | 200 `response #K` with `ETag: "TAG"`, `Cache-Control: no-cache`; 304 to `If-None-Match: "TAG"` |
/// | `/drop`            | closes the connection without answering                                |
/// | `/drop-mid-body`   | promises 1000 bytes, sends 10, closes                                  |
/// | anything else      | 404                                                                    |
///
/// A `HEAD` gets the head a `GET` would, `Content-Length` included, and no body. Every request it
/// receives is kept in ``received``, so a test can assert what reached it.
public final class LoopbackServer: @unchecked Sendable {
    /// A request as the server read it.
    public struct Received: Sendable, Equatable {
        public var method: String
        /// Path and query, as on the request line.
        public var target: String
        /// Header fields with lower-cased names.
        public var headers: [String: String]
        public var body: Data
    }

    /// The port it listens on.
    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private let listener: Int32
    private let state = NSLock()
    private var requests: [Received] = []
    private var connections: Set<Int32> = []
    private var stopped = false
    private var threadsServing = 0
    private var editions: [String: Int] = [:]

    /// Changes what `/volatile/NAME` answers (`NAME, edition E`; 1 until set), as a server whose
    /// data changed between two recordings.
    public func setEdition(_ edition: Int, of name: String) {
        state.lock()
        editions[name] = edition
        state.unlock()
    }

    /// Starts listening on a free port.
    public init() throws {
        let (listener, port) = try LoopbackSocket.bound(reusingAddress: true)
        self.listener = listener
        guard listen(listener, 128) == 0 else {
            close(listener)
            throw ServerError("listen on 127.0.0.1 failed: \(errno)")
        }
        self.port = port
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackServer.accept"
        thread.start()
    }

    deinit { stop() }

    /// How many connection threads are still running (each ends when its client hangs up, or
    /// soon after ``stop()``, even in the middle of a delayed reply).
    public var connectionThreads: Int {
        state.lock()
        defer { state.unlock() }
        return threadsServing
    }

    /// Every request received so far, in arrival order.
    public var received: [Received] {
        state.lock()
        defer { state.unlock() }
        return requests
    }

    /// Stops listening and closes every connection: later requests fail to connect.
    public func stop() {
        state.lock()
        let wasStopped = stopped
        stopped = true
        let open = connections
        connections = []
        state.unlock()
        if wasStopped { return }
        // Only shut the sockets down; the threads that use them close them. Closing here would
        // free the descriptor number while the accept thread may still call accept() with it,
        // and a new server's socket reusing that number would have its connections stolen.
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in open {
            shutdown(connection, Int32(SHUT_RDWR))
        }
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR { continue }
                return
            }
            var yes: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            state.lock()
            if stopped {
                state.unlock()
                close(connection)
                return
            }
            connections.insert(connection)
            threadsServing += 1
            state.unlock()
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        var reader = SocketReader(socket: connection)
        defer {
            state.lock()
            connections.remove(connection)
            threadsServing -= 1
            state.unlock()
            close(connection)
        }
        while let request = reader.readRequest() {
            state.lock()
            requests.append(request)
            let editions = self.editions
            let number = requests.count
            state.unlock()
            if LoopbackWebSocket.isUpgrade(request) {
                LoopbackWebSocket.converse(on: connection, request: request, leftover: reader.takeBuffered())
                return
            }
            guard let reply = LoopbackRoutes.reply(to: request, number: number, editions: editions) else { return }
            if !reply.send(on: connection, headOnly: request.method == "HEAD") { return }
            if request.headers["connection"]?.lowercased() == "close" { return }
        }
    }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Reads HTTP/1.1 requests from a socket, one after another.
struct SocketReader {
    let socket: Int32
    private var buffer: [UInt8] = []

    init(socket: Int32) { self.socket = socket }

    mutating func readRequest() -> LoopbackServer.Received? {
        guard let headEnd = readUntil([13, 10, 13, 10]) else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        var body = Data()
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            while true {
                guard let lineEnd = readUntil([13, 10]) else { return nil }
                let sizeText = String(decoding: buffer[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                buffer.removeFirst(lineEnd + 2)
                guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
                guard fill(size + 2) else { return nil }
                body.append(contentsOf: buffer[..<size])
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else if let length = headers["content-length"].flatMap({ Int($0) }), length > 0 {
            guard fill(length) else { return nil }
            body.append(contentsOf: buffer[..<length])
            buffer.removeFirst(length)
        }
        return .init(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
    }

    /// The bytes read past the last request, handed to whoever reads the connection next.
    mutating func takeBuffered() -> Data {
        defer { buffer = [] }
        return Data(buffer)
    }

    /// Reads until `marker` is in the buffer; returns its index.
    private mutating func readUntil(_ marker: [UInt8]) -> Int? {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                var i = searchFrom
                while i <= buffer.count - marker.count {
                    if buffer[i] == marker[0], Array(buffer[i..<(i + marker.count)]) == marker { return i }
                    i += 1
                }
                searchFrom = max(0, buffer.count - marker.count + 1)
            }
            if !readMore() { return nil }
        }
    }

    private mutating func fill(_ count: Int) -> Bool {
        while buffer.count < count {
            if !readMore() { return false }
        }
        return true
    }

    private mutating func readMore() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = recv(socket, &chunk, chunk.count, 0)
        if count <= 0 { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }
}
