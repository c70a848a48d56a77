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
/// request with an absolute target (a client using the server as its HTTP proxy) keeps its URL.
/// Recording (a mode that records) forwards what the cassette cannot answer to that URL — the
/// server is then a recording reverse proxy.
///
/// **On the wire.** Status and header fields as recorded (repeated fields joined with `, `, and
/// `Set-Cookie` split again into one field per cookie); the body as the caller of `URLSession`
/// receives it — decoded, so a recorded `Content-Encoding` is left out and the body is framed by
/// its own length or chunked. `HEAD`, keep-alive, `Expect: 100-continue`, request bodies by
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

    private let listener: Listener
    /// Signalled when the accept loop has ended and the listening socket is closed.
    private let acceptEnded = DispatchSemaphore(value: 0)
    /// The tape answering now, with its origin and recordings in flight; nil while a folder server has none.
    let stage: Locked<ServerStage?>
    /// The folder a server loads cassettes from by name, and how it opens them; nil for a server
    /// started with one tape.
    let shelf: Shelf?
    /// `http://HOST:PORT`, as written: a request that would go here would loop.
    let ownOrigin: String
    /// Where the server listens, to know a URL that leads back to it by any name (``OwnAddress``).
    let own: OwnAddress
    private let state = Locked(State())
    private let finished = NSCondition()

    private struct State {
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

    private func acceptLoop() {
        defer {
            listener.close()
            acceptEnded.signal()
        }
        while true {
            let descriptor: Int32
            switch listener.next() {
            case .connection(let accepted):
                descriptor = accepted
            case .again:
                continue
            case .exhausted:
                // Out of descriptors: wait for some connections to end rather than spin.
                usleep(10_000)
                if state.withLock({ $0.stopped }) { return }
                continue
            case .stopped:
                return
            }
            let connection = ServerConnection(socket: descriptor)
            let admitted = state.withLock { state -> Bool? in
                if state.stopped { return nil }
                guard state.connections.count < options.maxConnections else { return false }
                state.connections[ObjectIdentifier(connection)] = connection
                return true
            }
            switch admitted {
            case nil:
                connection.close()
                return
            case false?:
                writeRefusal(
                    WireRequest.Refusal(status: 503, reason: "the server already serves \(options.maxConnections) connections"),
                    to: connection)
                connection.close()
            case true?:
                let thread = Thread { [weak self] in
                    guard let self else { return connection.close() }
                    serve(connection)
                    connection.close()
                    state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(connection)) }
                    finished.lock()
                    finished.broadcast()
                    finished.unlock()
                }
                thread.stackSize = 512 * 1024
                thread.start()
            }
        }
    }

    // MARK: Serving

    /// Requests on one connection, one after another, until it closes.
    private func serve(_ connection: ServerConnection) {
        while !state.withLock({ $0.stopped }) {
            let outcome = WireRequest.read(from: connection, limits: options.limits.wire) {
                connection.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            }
            switch outcome {
            case .gone:
                return
            case .refused(let refusal):
                writeRefusal(refusal, to: connection)
                return
            case .request(let request):
                guard answer(request, on: connection), request.keepsAlive else { return }
            }
        }
    }

    /// Answers one request; false when the connection must close. The tape's router decides;
    /// a stub's or a recording's answer goes straight to the wire on its plan, a refusal is
    /// answered here, and a request to record is sent and kept through `LiveRecording` (decided once,
    /// by this router) and goes to the wire as it arrives.
    private func answer(_ wire: WireRequest, on connection: ServerConnection) -> Bool {
        if let admin = options.admin, wire.target.hasPrefix(admin.prefix) {
            return answerAdmin(wire, command: String(wire.target.dropFirst(admin.prefix.count)), on: connection)
        }
        guard let stage = stage.withLock({ $0 }) else {
            let how = options.admin.map { "POST \($0.prefix)load {\"cassette\": \"NAME\"}" } ?? "TapeServer.load(_:)"
            writeRefusal(WireRequest.Refusal(status: 503, reason: "no cassette is loaded: \(how) first"), to: connection)
            return false
        }
        guard let url = url(for: wire, origin: stage.origin) else {
            writeRefusal(WireRequest.Refusal(status: 400, reason: "\(wire.target) does not make a URL"), to: connection)
            return false
        }
        if OriginMove.origin(of: url.absoluteString) == ownOrigin || (!wire.target.hasPrefix("/") && own.isReached(by: url)) {
            writeRefusal(
                WireRequest.Refusal(status: 502, reason: "this request would go to this server itself: start it with an upstream"),
                to: connection)
            return false
        }
        let upgrade: WebSocketHandshake.Upgrade?
        switch webSocketUpgrade(of: wire) {
        case .success(let asked):
            upgrade = asked
        case .failure(let refusal):
            writeRefusal(refusal, to: connection)
            return false
        }
        let router = stage.tape.router
        let request = Self.captured(wire, url: url)
        let decision: Decision
        if let upgrade {
            switch router.decideUpgrade(request, sent: { Self.urlRequest(for: wire, url: url) }) {
            case .converse(let conversation): return converse(conversation, upgrade: upgrade, on: connection, router: router)
            case .decided(let decided): decision = decided
            }
        } else {
            decision = router.decide(request, sent: { Self.urlRequest(for: wire, url: url) })
        }
        switch decision {
        case .stub(let answer), .replay(let answer):
            return play(answer, of: wire, on: connection)
        case .refuse(let failure):
            return refuse(failure, of: wire, on: connection)
        case .record(let readable):
            if let upgrade { return relayWebSocket(wire, request: readable, url: url, upgrade: upgrade, on: connection, router: router) }
            return record(readable, wire: wire, url: url, on: connection, stage: stage)
        case .passThrough(let readable):
            if let upgrade {
                return relayWebSocket(wire, request: readable, url: url, upgrade: upgrade, on: connection, router: router, keeping: false)
            }
            return record(readable, wire: wire, url: url, on: connection, stage: stage, keeping: false)
        }
    }

    /// Records `request` (as captured from `wire`) the one way both executors record
    /// (`LiveRecording`), and writes what comes back to the wire as it arrives. A redirect is
    /// not followed: the client on the wire follows it if it wants to.
    private func record(
        _ request: Interaction.Request, wire: WireRequest, url: URL, on connection: ServerConnection, stage: ServerStage,
        keeping: Bool = true
    ) -> Bool {
        let stream = ResponseStream()
        var outgoing = Self.urlRequest(for: wire, url: url)
        outgoing.timeoutInterval = Self.upstreamTimeout
        let cancelled = Locked(false)
        let live = LiveRecording(request, access: stage.tape.router.access, keeping: keeping).send(
            outgoing, body: RequestBody(data: outgoing.httpBody, form: .request),
            progress: LiveForwarder.Progress(head: { stream.push(.head($0)) }, data: { stream.push(.data($0)) }),
            judge: { ($0, cancelled.withLock { $0 }) },
            onEnd: { stream.push(.end($0.error)) })
        let cancel: @Sendable () -> Void = {
            cancelled.withLock { $0 = true }
            live.cancel()
        }
        let number = stage.started(cancel: cancel)
        defer { stage.finished(number) }
        var response: WireResponse?
        while true {
            switch stream.next() {
            case .head(let head):
                guard response == nil else { continue }
                let started = WireResponse(head, for: wire)
                response = started
                guard connection.write(started.headBytes) else {
                    cancel()
                    return false
                }
            case .data(let data):
                guard let response else { return false }
                guard connection.write(response.bodyBytes(data)) else {
                    cancel()
                    return false
                }
            case .end(nil):
                guard let response else { return false }
                return connection.write(response.endBytes) && response.keepsConnection
            case .end(let error?):
                return fail(before: response == nil, error, on: connection)
            }
        }
    }

    /// How long a request to the upstream may wait for its answer: longer than a session's
    /// default, for an upstream that is slow on purpose.
    static let upstreamTimeout: TimeInterval = 300

    /// Writes an answer the router decided, on its plan's schedule: what is due at once goes out
    /// in one write, and the connection's thread waits between steps, as a server taking that long
    /// would. A redirect is not followed: the client on the wire follows it if it wants to.
    private func play(_ answer: Answer, of wire: WireRequest, on connection: ServerConnection) -> Bool {
        let start = DispatchTime.now()
        let body = answer.body
        var response: WireResponse?
        var pending: [UInt8] = []
        for event in answer.plan(inPieces: true, timeout: nil).events {
            let wait = event.at - Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            if wait > 0 {
                guard pending.isEmpty || connection.write(pending) else { return false }
                pending.removeAll(keepingCapacity: true)
                Thread.sleep(forTimeInterval: wait)
            }
            switch event.step {
            case .head:
                guard let recorded = answer.response else { continue }
                let started = WireResponse(status: recorded.status, headers: recorded.headers, for: wire)
                response = started
                pending += started.headBytes
            case .body(let range):
                guard let response else { continue }
                pending += response.bodyBytes(
                    range == 0..<body.count
                        ? body : body.subdata(in: (body.startIndex + range.lowerBound)..<(body.startIndex + range.upperBound)))
            case .finish:
                guard let response else { return false }
                pending += response.endBytes
                return connection.write(pending) && response.keepsConnection
            case .fail(let code):
                guard pending.isEmpty || connection.write(pending) else { return false }
                return fail(before: response == nil, answer.error(code, timeout: nil), on: connection)
            }
        }
        return false
    }
}
