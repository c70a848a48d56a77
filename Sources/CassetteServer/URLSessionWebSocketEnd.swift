#if canImport(Darwin)
import Cassette
import Foundation

/// The upstream end of a `wss://` WebSocket the server records, on Apple platforms:
/// `URLSessionWebSocketTask` speaks TLS and WebSocket, and this turns its callbacks into the
/// blocking ``WebSocketEnd`` the relay reads. (On Linux, FoundationNetworking's task answers
/// "WebSockets not supported by libcurl", so `wss://` is refused there; see ``WebSocketUpstream``.)
///
/// What the task hides is said here: it answers the server's pings itself (they are not
/// recorded), a client's ping is sent with `sendPing` and its pong comes back as a message, and
/// the server's close arrives as the task's close code and reason.
final class URLSessionWebSocketEnd: NSObject, WebSocketEnd, URLSessionWebSocketDelegate, @unchecked Sendable {
    private let events = NSCondition()
    private var queued: [WebSocketChannel.Event] = []
    private var ended = false
    private let openedSignal = DispatchSemaphore(value: 0)
    /// Whether the handshake completed, and what ended it otherwise; read after `openedSignal`.
    private let handshake = Locked<(opened: Bool, error: Error?)>((false, nil))
    private var session: URLSession?
    private var task: URLSessionWebSocketTask?

    /// Opens `url` (`https://` or `wss://`) for the upgrade `wire`; waits at most `timeout` for the
    /// handshake. An upstream that answers the upgrade with anything but `101` is passed on and
    /// recorded as that answer (without its body, which the task does not give), as the `ws://`
    /// path does; messages up to `maximumMessageSize` bytes are taken, as `ws://` takes them.
    static func open(
        _ wire: WireRequest, url: URL, timeout: TimeInterval, maximumMessageSize: Int,
        failure: (RequestFailure.Reason) -> RequestFailure
    ) throws(RequestFailure) -> WebSocketUpstream.Opened {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.scheme = "wss"
        guard let secure = components?.url else { throw failure(.webSocketUpstreamUnreachable(why: "it is not a URL")) }
        var request = URLRequest(url: secure, timeoutInterval: timeout)
        for (name, value) in wire.headers where !handshakeFields.contains(name.lowercased()) {
            request.addValue(value, forHTTPHeaderField: name)
        }
        let end = URLSessionWebSocketEnd()
        let session = URLSession(configuration: ConfigurationHooks.ownConfiguration(), delegate: end, delegateQueue: nil)
        // The session's one task: cancelled by name, then the session invalidated once it ended
        // (never by asking FoundationNetworking for its tasks: docs/Architecture.md, "Linux facts").
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = maximumMessageSize
        end.session = session
        end.task = task
        task.resume()
        let waited = end.openedSignal.wait(timeout: .now() + timeout)
        let handshake = end.handshake.withLock { $0 }
        if !handshake.opened, let refusal = task.response as? HTTPURLResponse, refusal.statusCode != 101 {
            task.cancel()
            session.finishTasksAndInvalidate()
            return .answered(UpstreamHead(status: refusal.statusCode, headers: fields(of: refusal), for: wire), body: Data())
        }
        guard waited == .success, handshake.opened, let response = task.response as? HTTPURLResponse else {
            let why = handshake.error.map { $0.localizedDescription } ?? "no handshake within \(Int(timeout)) s"
            task.cancel()
            session.finishTasksAndInvalidate()
            throw failure(.webSocketUpstreamUnreachable(why: why))
        }
        end.receiveNext()
        return .webSocket(end, headers: fields(of: response))
    }

    private static func fields(of response: HTTPURLResponse) -> Interaction.Headers {
        var headers = Interaction.Headers()
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers.add(name, value) }
        }
        return headers
    }

    /// Fields the task sets itself.
    private static let handshakeFields: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions", "content-length",
    ]

    private func push(_ event: WebSocketChannel.Event) {
        events.lock()
        queued.append(event)
        events.broadcast()
        events.unlock()
    }

    private func receiveNext() {
        task?.receive { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(.string(let text)):
                push(.message(.text(text), arrived: .now()))
                receiveNext()
            case .success(.data(let data)):
                push(.message(.binary(data), arrived: .now()))
                receiveNext()
            case .success:
                receiveNext()
            case .failure:
                finish()
            }
        }
    }

    /// The task ended: its close, when the server sent one, then the end of the connection.
    private func finish() {
        events.lock()
        defer { events.unlock() }
        guard !ended else { return }
        ended = true
        if let task, task.closeCode != .invalid {
            let reason = task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? ""
            queued.append(.message(.close(code: UInt16(clamping: task.closeCode.rawValue), reason: reason), arrived: .now()))
        }
        queued.append(.closed)
        events.broadcast()
    }

    func next(until deadline: DispatchTime) -> WebSocketChannel.Event {
        events.lock()
        defer { events.unlock() }
        while queued.isEmpty {
            let now = DispatchTime.now()
            guard now < deadline else { return .timedOut }
            let seconds = Double(deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1e9
            _ = events.wait(until: Date(timeIntervalSinceNow: min(seconds, 3_600)))
        }
        return queued.removeFirst()
    }

    @discardableResult
    func send(_ message: Interaction.WebSocketMessage) -> Bool {
        guard let task else { return false }
        switch message.kind {
        case .text, .binary:
            let sent = DispatchSemaphore(value: 0)
            let failed = Locked(false)
            let payload: URLSessionWebSocketTask.Message = message.kind == .text ? .string(message.text ?? "") : .data(message.data)
            task.send(payload) { error in
                failed.withLock { $0 = error != nil }
                sent.signal()
            }
            sent.wait()
            return !failed.withLock { $0 }
        case .ping:
            task.sendPing { [weak self] error in
                if error == nil { self?.push(.message(.pong(message.data), arrived: .now())) }
            }
            return true
        case .pong:
            return true  // the task answers pings itself
        case .close:
            let code = message.code.flatMap { URLSessionWebSocketTask.CloseCode(rawValue: $0) } ?? .normalClosure
            task.cancel(with: code, reason: message.data.isEmpty ? nil : message.data)
            return true
        }
    }

    func awaitEnd(until deadline: Date) {
        events.lock()
        defer { events.unlock() }
        while !ended, events.wait(until: deadline) {}
    }

    func shutDown() {
        task?.cancel()
        session?.finishTasksAndInvalidate()
        finish()
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        handshake.withLock { $0.opened = true }
        openedSignal.signal()
    }

    func urlSession(
        _ session: URLSession, webSocketTask: URLSessionWebSocketTask, didCloseWith closeCode: URLSessionWebSocketTask.CloseCode,
        reason: Data?
    ) {
        finish()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let unopened = handshake.withLock { state -> Bool in
            guard !state.opened else { return false }
            state.error = error ?? URLError(.badServerResponse)
            return true
        }
        if unopened { openedSignal.signal() }
        finish()
    }
}
#endif
