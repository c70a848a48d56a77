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

/// An HTTP/1.1 server that answers from a tape: for clients that are not `URLSession` in the
/// test's own process — an app launched by a UI test, AsyncHTTPClient or Vapor's client, curl, a
/// Python or TypeScript client, a download task on Linux.
///
/// ```swift
/// let tape = try Tape(named: "Feed", mode: .none)
/// let server = try tape.serve()                       // http://127.0.0.1:PORT, a free port
/// app.launchEnvironment["API_BASE_URL"] = server.baseURL.absoluteString
/// …
/// try tape.eject()                                    // stops the server, saves, reports
/// ```
///
/// Every request goes through the tape's own pipeline — stubs, matching, recorded order,
/// latency, faults, redaction, recording and saving are the library's, not a copy. The tape's
/// router decides each request as it decides a session's (the same `Decision`); the server
/// carries it out on the wire: a stub's or a recording's answer on its own schedule (the head at
/// the first byte, the body spread over the recorded time), a miss with its report, and a request
/// to record through the tape's one way of recording (`LiveRecording`, as a session's is), whose
/// answer goes to the wire as it arrives.
///
/// **Where requests go.** A request for `/path?query` is the request for `upstream` + that path.
/// Without an `upstream`, the cassette's own origin is used when all its interactions share one;
/// otherwise the server's own origin (open the tape with `RequestMatching.ignoringHost()`). A
/// request with an absolute target (a client using the server as its HTTP proxy) keeps its URL,
/// and so does a request inside a `CONNECT` tunnel (a client that always tunnels through its
/// proxy, as AsyncHTTPClient does): a path there is the tunnel's `http://host:port` + the path.
/// A tunnel that would carry TLS is refused, saying why: the server cannot read TLS.
/// Recording (a mode that records) forwards what the cassette cannot answer to that URL — the
/// server is then a recording reverse proxy.
///
/// **On the wire.** Status and header fields as recorded (repeated fields joined with `, `, and
/// `Set-Cookie` split again into one field per cookie); the body as the caller of `URLSession`
/// receives it — decoded, so a recorded `Content-Encoding` is left out and the body is framed by
/// its own length or chunked. `HEAD`, `CONNECT`, keep-alive, `Expect: 100-continue`, request bodies by
/// `Content-Length` or chunked. A recorded `timedOut` is no answer until the client gives up;
/// `networkConnectionLost` after N bytes closes the connection after them; `cannotConnectToHost`
/// and the other connection failures reset the connection. A request the cassette cannot answer
/// gets ``Options/unmatchedStatus`` (500) with the header `X-Cassette-Unmatched: true` and the
/// library's miss report as its body.
///
/// **WebSockets.** An upgrade request (`Upgrade: websocket`) is decided like any request. A
/// recorded conversation is replayed on the connection: the recorded `101` (with the accept key
/// for this client), then the server's messages on the recorded schedule under the tape's latency,
/// each timed from the client message it answered; client messages are compared with the
/// recording (text exactly, JSON by meaning, without the matching rules' `ignoringJSONPaths`), and
/// one that differs or never comes (``Limits/idleTimeout``) is a miss: reported like an unmatched
/// request, and the client gets a close 1008. Pings are answered. In a mode that records, the
/// server relays the conversation to the upstream (`ws://` for an `http://` upstream) through its
/// own client and records every message with its time; a `wss://` upstream is refused with `502`
/// and why (the server has no TLS client). Messages go through the tape's redaction like bodies.
/// The largest message is ``Limits/bodyBytes``; larger closes with 1009.
///
/// **Robust.** At most ``Options/maxConnections`` connections (more get `503` at once); a head
/// that takes longer than ``Limits/headerTimeout`` gets `408`; a request line, header section or
/// body over the limits gets `414`, `431` or `413`; a malformed request `400` — and the server
/// keeps serving the others. A client that disconnects mid-response costs nothing but its
/// connection.
public final class TapeServer: EndsWithTape, @unchecked Sendable {
    /// How a server listens and answers.
    public struct Options: Sendable {
        /// The address to listen on: IPv4 or IPv6 (`::1`), `0.0.0.0` or `::` for every interface,
        /// or a host name resolved once when the server starts (`localhost`). Default `127.0.0.1`.
        /// ``TapeServer/baseURL`` names the address bound, as numbers (the loopback address for
        /// every interface).
        public var host: String
        /// The port; 0 (the default) picks a free one.
        public var port: Int
        /// Where requests go (and are recorded from, in a recording mode), such as
        /// `https://api.example.com`; `ws://` and `wss://` name the same origins as `http://` and
        /// `https://`. See the type's notes.
        public var upstream: URL?
        /// The status of a request the cassette cannot answer. Default 500.
        public var unmatchedStatus: Int
        /// How many connections are served at once; more get `503 Service Unavailable`. Default 256.
        public var maxConnections: Int
        /// What a request may be, and how long it may take to arrive.
        public var limits: Limits
        /// Called with each request the cassette could not answer (from the connection's thread).
        public var onUnmatched: (@Sendable (UnmatchedRequest) -> Void)?
        /// The admin interface (see ``Admin``); nil turns it off. Default: under `/__cassette/`,
        /// for clients on this machine.
        public var admin: Admin?

        /// Options with their defaults.
        public init(
            host: String = "127.0.0.1", port: Int = 0, upstream: URL? = nil, unmatchedStatus: Int = 500,
            maxConnections: Int = 256, limits: Limits = Limits(), onUnmatched: (@Sendable (UnmatchedRequest) -> Void)? = nil,
            admin: Admin? = Admin()
        ) {
            self.admin = admin
            self.host = host
            self.port = port
            self.upstream = upstream
            self.unmatchedStatus = unmatchedStatus
            self.maxConnections = maxConnections
            self.limits = limits
            self.onUnmatched = onUnmatched
        }
    }

    /// What a request may be, and how long it may take.
    public struct Limits: Sendable {
        /// The longest request line; longer gets `414`. Default 8 KiB.
        public var requestLine: Int
        /// The most bytes of header fields; more gets `431`. Default 64 KiB.
        public var headerBytes: Int
        /// The largest request body; larger gets `413`. Default 64 MiB.
        public var bodyBytes: Int
        /// How long a client may take to send a request head once it began; longer gets `408`. Default 10 s.
        public var headerTimeout: TimeInterval
        /// How long an idle kept-alive connection stays open. Default 60 s.
        public var idleTimeout: TimeInterval

        /// Limits with their defaults.
        public init(
            requestLine: Int = 8_192, headerBytes: Int = 65_536, bodyBytes: Int = 64 * 1024 * 1024,
            headerTimeout: TimeInterval = 10, idleTimeout: TimeInterval = 60
        ) {
            self.requestLine = requestLine
            self.headerBytes = headerBytes
            self.bodyBytes = bodyBytes
            self.headerTimeout = headerTimeout
            self.idleTimeout = idleTimeout
        }

        var wire: WireRequest.Limits {
            WireRequest.Limits(
                requestLine: requestLine, headerBytes: headerBytes, body: bodyBytes,
                headerTimeout: headerTimeout, idleTimeout: idleTimeout, bodyTimeout: max(headerTimeout, 60))
        }
    }

    /// The header field that marks an answer the cassette did not have.
    public static let unmatchedHeader = "X-Cassette-Unmatched"

    /// The tape answering: the one the server was started with, or for a server on a folder of
    /// cassettes the one ``load(_:beneath:)`` loaded last (nil before the first and after ``eject()``).
    public var tape: Tape? { stage.withLock { $0?.tape } }
    /// The port listened on.
    public let port: Int
    /// `http://ADDRESS:PORT`: the address bound, as numbers (`127.0.0.1`, `[::1]`; the loopback
    /// address when listening on every interface), which a client on this machine can use.
    public let baseURL: URL
    /// The options it was started with.
    package let options: Options

    let listener: Listener
    /// Signalled when the accept loop has ended and the listening socket is closed.
    let acceptEnded = DispatchSemaphore(value: 0)
    /// The tape answering now, with its origin and recordings in flight; nil while a folder server has none.
    let stage: Locked<ServerStage?>
    /// The folder a server loads cassettes from by name, and how it opens them; nil for a server
    /// started with one tape.
    let shelf: Shelf?
    /// `http://HOST:PORT`, as written: a request that would go here would loop.
    let ownOrigin: String
    /// Where the server listens, to know a URL that leads back to it by any name (``OwnAddress``).
    let own: OwnAddress
    /// Whether the server stopped, and the connections it serves (the accept loop adds them).
    let state = Locked(State())
    /// Signalled as each connection ends, for ``stop()`` to wait for them.
    let finished = NSCondition()

    struct State {
        var stopped = false
        var connections: [ObjectIdentifier: ServerConnection] = [:]
    }

    /// Starts listening at once and serves until ``stop()`` (or the tape is ejected).
    ///
    /// - Throws: `CassetteError.serverFailed(_:)` when the address cannot be listened on, or
    ///   when the tape would record with nowhere to record from.
    public convenience init(tape: Tape, options: Options = Options()) throws {
        try self.init(first: tape, shelf: nil, options: options)
        do {
            try tape.adopt(self)
        } catch {
            stop()
            throw error
        }
    }

    init(first tape: Tape?, shelf: Shelf?, options: Options) throws {
        self.options = options
        self.shelf = shelf
        let (descriptor, port, address) = try Self.listen(host: options.host, port: options.port)
        let listener = try Listener(listening: descriptor)
        self.listener = listener
        self.port = port
        let base = "http://\(Self.reachable(address)):\(port)"
        guard let baseURL = URL(string: base) else {
            listener.close()
            throw CassetteError.serverFailed("\(base) is not a URL")
        }
        self.baseURL = baseURL
        ownOrigin = base
        let own = OwnAddress(listening: address, port: port)
        self.own = own
        do {
            stage = Locked(try tape.map { try ServerStage(tape: $0, upstream: options.upstream, ownOrigin: base, own: own) })
        } catch {
            listener.close()
            throw error
        }
        // Weakly: a thread that has ended its work but not yet been torn down keeps no server (and
        // no cassette) alive after the last reference to it is gone.
        let thread = Thread { [weak self] in self?.acceptLoop() }
        thread.name = "TapeServer.accept"
        thread.start()
    }

    /// Stops listening, closes every connection (requests in flight are cancelled, not saved) and
    /// waits for them to end. When it returns, the accepting thread is gone and the port is free
    /// to listen on again. Called by `tape.eject()`; calling it again does nothing. A server on
    /// a folder ejects the cassette it has loaded, saving what it recorded (call ``eject()``
    /// first to have its report, or its error: here a failed save is written to standard error).
    public func stop() {
        let open = state.withLock { state -> [ServerConnection]? in
            if state.stopped { return nil }
            state.stopped = true
            return Array(state.connections.values)
        }
        guard let open else { return }
        listener.wake()
        // The accept loop ends at once; the bound is only there so that stop() never hangs.
        _ = acceptEnded.wait(timeout: .now() + 5)
        for connection in open { connection.shutDown() }
        stage.withLock { $0 }?.cancelRecordings()
        finished.lock()
        let deadline = Date(timeIntervalSinceNow: 5)
        while !state.withLock({ $0.connections.isEmpty }), finished.wait(until: deadline) {}
        finished.unlock()
        if shelf != nil {
            do {
                try eject()
            } catch {
                StandardError.write("Cassette: the server's loaded cassette could not be saved as it stopped: \(error)")
            }
        }
    }
}
