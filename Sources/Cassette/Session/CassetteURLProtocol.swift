import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` through which a session's requests reach their cassette.
///
/// Each session gets its own subclass (``SlotProtocol``), and the class names the ``Router``
/// that answers: on Linux a request carries nothing else a protocol could tell sessions apart by
/// (docs/Architecture.md, "Routing"). `startLoading` and `stopLoading` run on one serial queue shared by every session,
/// so neither blocks.
class CassetteURLProtocol: URLProtocol {
    /// The route for requests of this class's sessions; `nil` when none is attached.
    class var route: SlotBinding? { nil }

    /// Whether to answer requests when no router is attached. Per-session classes do, with an
    /// error (a request of an ejected cassette must not silently reach the network); the class
    /// registered for `URLSession.shared` does not, so that `.shared` works normally between tests.
    class var answersWithoutRouter: Bool { true }

    /// Why a request found no router, for the error it fails with; `request` is shown without its
    /// query and user info.
    class func noRouterExplanation(_ request: String) -> String {
        "Cassette: \(request) was made through the session of a cassette that was already ejected; use a session of a cassette in use"
    }

    private var exchange: Exchange?

    #if canImport(FoundationNetworking)
    /// Counted by the ``DecisionQueue`` as a request waiting for the shared queue, until
    /// `startLoading` runs or the protocol goes away without it (a task cancelled before it ran).
    private var waitsToStart = true

    /// Made inside the task's `resume()` (or `cancel()`), before its `startLoading` is queued.
    required init(request: URLRequest, cachedResponse: CachedURLResponse?, client: URLProtocolClient?) {
        super.init(request: request, cachedResponse: cachedResponse, client: client)
        DecisionQueue.shared.protocolMade()
    }

    deinit {
        if waitsToStart { DecisionQueue.shared.protocolStarted() }
    }
    #endif

    /// Routes the sessions made from `configuration` through this class: first in its
    /// `protocolClasses` (instead of another tape's or stub session's), and with `cache` (the
    /// tape's, ``ExecutorAccess/cache``) in place of its `urlCache` when it has one — without any
    /// when `cache` is nil. Every request is Cassette's to answer, and the loading system never
    /// stores its answers (`.notAllowed`), so looking one up would only cost time: about 30 µs a
    /// request in FoundationNetworking, a third of a replay (CassetteBench).
    static func route(_ configuration: URLSessionConfiguration, cache: URLCache? = nil) {
        configuration.urlCache = configuration.urlCache == nil ? nil : cache
        let others = (configuration.protocolClasses ?? []).filter { !($0 is CassetteURLProtocol.Type) }
        configuration.protocolClasses = [self] + others
    }

    /// Whether Cassette answers `request`: an `http`/`https` request, unless it is a WebSocket
    /// handshake (`Upgrade: websocket`, or a `Sec-WebSocket-Key`). Recent Apple systems send the
    /// handshake of a `URLSessionWebSocketTask` as an HTTP request with those fields, through
    /// the session's protocol classes; a conversation cannot be held through a `URLProtocol`, so
    /// the handshake is left to the loading system (record and replay WebSockets through
    /// `tape.serve()`).
    ///
    /// A handshake left to the loading system goes to the network in every mode, CI included: the
    /// tape's report says so (``ExecutorAccess/noteWebSocketLeft(_:)``), once per URL.
    override class func canInit(with request: URLRequest) -> Bool {
        let scheme = request.url?.scheme?.lowercased()
        guard scheme == "http" || scheme == "https" else {
            // FoundationNetworking asks with the task's own `ws:`/`wss:` request.
            if scheme == "ws" || scheme == "wss" { route?.router.access.noteWebSocketLeft(request) }
            return false
        }
        guard !Self.isWebSocketHandshake(request) else {
            route?.router.access.noteWebSocketLeft(request)
            return false
        }
        return answersWithoutRouter || route != nil
    }

    /// As ``canInit(with:)-(URLRequest)`` for the task's request; never a `URLSessionWebSocketTask`
    /// (noted in the tape's report, as a handshake is).
    override class func canInit(with task: URLSessionTask) -> Bool {
        if task is URLSessionWebSocketTask {
            if let request = task.currentRequest ?? task.originalRequest { route?.router.access.noteWebSocketLeft(request) }
            return false
        }
        guard let request = task.currentRequest ?? task.originalRequest else { return false }
        return canInit(with: request)
    }

    /// Whether `request` opens a WebSocket: it asks to upgrade to one, or carries a handshake key.
    static func isWebSocketHandshake(_ request: URLRequest) -> Bool {
        request.value(forHTTPHeaderField: "Sec-WebSocket-Key") != nil
            || WebSocketUpgrade.isAsked { request.value(forHTTPHeaderField: $0) }
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    /// The configuration of the session this request came from, as its route knows it.
    var sessionConfiguration: URLSessionConfiguration? { exchange?.configuration }

    override func startLoading() {
        #if canImport(FoundationNetworking)
        if waitsToStart {
            waitsToStart = false
            DecisionQueue.shared.protocolStarted()
        }
        #endif
        let channel = ClientChannel(self)
        let route = Self.route
        let exchange = Exchange(request: request, channel: channel, route: route)
        self.exchange = exchange
        guard let router = route?.router else {
            // No cassette, so no redaction rules: the URL is shown without its query and user info.
            var shown = request.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }
            shown?.query = nil
            shown?.user = nil
            shown?.password = nil
            let explanation = Self.noRouterExplanation("\(request.httpMethod ?? "GET") \(shown?.string ?? "")")
            channel.finish(error: RequestFailure(.noRoute(explanation: explanation)).urlError)
            return
        }
        if let refusal = route?.refusal {
            channel.finish(error: RequestFailure(.notRoutable(explanation: refusal)).urlError)
            return
        }
        SessionExecutor(router: router).start(exchange)
        // Still answering (a latency, a recording, a decision aside): kept, so that ending the
        // session cancels it — only for a session Cassette made, the only kind it ends.
        if let pending = route?.pending, channel.isAnswering { pending.add(channel) }
    }

    override func stopLoading() {
        exchange?.stop()
    }
}

/// One request on its way through Cassette: what was asked, and the channel back to the caller.
final class Exchange: Sendable {
    let request: UncheckedSendable<URLRequest>
    let channel: ClientChannel

    /// Everything that changes, under one lock: an exchange is made for every request.
    private struct State {
        var stopped = false
        var expired = false
        var live: LiveForwarder.Forwarding?
        var deadlineArmed = false
    }

    private let state = Locked(State())
    /// The route of the protocol class that took the request: the session's configuration, and
    /// the session itself when Cassette made it.
    private let route: SlotBinding?
    private let sessionConfiguration: UncheckedSendable<URLSessionConfiguration?>

    /// Made in `startLoading`, where the task's session may be looked up.
    init(request: URLRequest, channel: ClientChannel, route: SlotBinding?) {
        self.request = UncheckedSendable(request)
        self.channel = channel
        self.route = route
        sessionConfiguration = UncheckedSendable(route?.configuration(for: channel.task))
    }

    /// The session that runs the request when Cassette made it (a tape's own session, one from
    /// ``Tape/makeSession(configuration:delegate:delegateQueue:)``), found without asking the task;
    /// nil for a session the caller made. Read only where the session is needed (a redirect,
    /// upload progress, a delayed body), so an instant replay never pays for it.
    var knownSession: URLSession? { route?.session }

    /// The caller cancelled, or the session stopped the task: nothing more reaches the caller
    /// and a live request in flight is cancelled.
    func stop() {
        channel.close()
        let live = state.withLock { state -> LiveForwarder.Forwarding? in
            state.stopped = true
            return state.live
        }
        live?.cancel()
    }

    /// The session's `timeoutIntervalForResource` passed: like ``stop()``, and a recording in
    /// flight is saved as timed out, as the caller saw it.
    func expire() {
        state.withLock { $0.expired = true }
        stop()
    }

    /// Whether ``stop()`` was called.
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Whether ``expire()`` was called.
    var isExpired: Bool { state.withLock { $0.expired } }

    /// The configuration of the task's session, as the protocol class's ``SlotBinding`` knows it: the
    /// same on every platform, without asking the session (which a protocol on Apple platforms
    /// cannot reach through public API) — except for the class every intercepted configuration
    /// shares, which asks it once, here. Nil for a request with no route.
    var configuration: URLSessionConfiguration? { sessionConfiguration.value }

    /// True the first time only: the resource deadline is armed once per exchange.
    func armsDeadline() -> Bool {
        state.withLock { state in
            defer { state.deadlineArmed = true }
            return !state.deadlineArmed
        }
    }

    /// Remembers the live request so that ``stop()`` can cancel it; cancels it at once when the
    /// exchange already stopped.
    func attach(_ live: LiveForwarder.Forwarding) {
        let stoppedAlready = state.withLock { state -> Bool in
            state.live = live
            return state.stopped
        }
        if stoppedAlready { live.cancel() }
    }
}
