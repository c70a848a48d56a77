import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests to the real network through an inner `URLSession` that does not contain
/// Cassette's protocol, reporting the response head as soon as it arrives and the rest at the end.
///
/// The inner session does not follow redirects (the ``Router`` plays each hop, so that the
/// caller's redirect policy decides and every hop is recorded), decodes `gzip`/`deflate` like the
/// caller's session would, and neither stores cookies nor caches: the caller's session already
/// put its cookies into the request, and recording must see every response.
final class LiveForwarder: Sendable {
    /// What came back for one request.
    struct Outcome: Sendable {
        var response: HTTPURLResponse?
        var body: Data
        /// When each piece of the body arrived: the body's length after it, and seconds from the start.
        var arrivals: [StreamCapture.Arrival] = []
        var error: URLError?
        /// Seconds from the start of the request to the response head, and to the end.
        var firstByte: TimeInterval?
        var duration: TimeInterval
        /// Whether the outcome is reported on a queue that targets a task's work queue, and so is
        /// serialised with every client call of FoundationNetworking (see ``ClientChannel/soon(onClientQueue:_:)``).
        var isOnClientQueue = false
    }

    /// A request on its way; cancel it when the caller cancels.
    final class Forwarding: Sendable {
        private let task: UncheckedSendable<URLSessionDataTask>
        init(_ task: URLSessionDataTask) { self.task = UncheckedSendable(task) }

        /// Cancels the live request. Hops off the calling queue: cancelling a task of another
        /// session from `stopLoading` deadlocks FoundationNetworking.
        func cancel() {
            let task = self.task
            DispatchQueue.global().async { task.value.cancel() }
        }
    }

    /// One inner session, its delegate and the queue the delegate runs on.
    private struct Inner: Sendable {
        let session: URLSession
        let delegate: ForwardingDelegate
        /// Kept: OperationQueue does not keep its underlying queue (unowned).
        let dispatchQueue: DispatchQueue?

        /// A session with Cassette's protocol left out, whose delegate runs on a serial queue
        /// targeting `target` (when given) or on a queue of its own.
        init(delegateTarget target: DispatchQueue?) {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = (configuration.protocolClasses ?? []).filter { !($0 is CassetteURLProtocol.Type) }
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.httpCookieAcceptPolicy = .never
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            delegate = ForwardingDelegate(reportsOnClientQueue: target != nil)
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            dispatchQueue = target.map { DispatchQueue(label: "Cassette.LiveForwarder", target: $0) }
            queue.underlyingQueue = dispatchQueue
            session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
        }
    }

    /// The delegate runs on a serial queue that targets the caller's task's work queue, when there
    /// is one (URLSession's shared queue in FoundationNetworking): what the live request reports is
    /// then passed on to the caller without a hop between threads, which took a fifth of the time
    /// of a recorded loopback request (record_vs_direct 1.49 → 1.32). Without a work queue, the
    /// same as ``bulk``.
    private let fast: Inner
    /// For origins that send large bodies (``LargeBodyOrigins``): the delegate runs on a queue of
    /// its own, beside FoundationNetworking's, and collects the pieces as they come. Made on first use.
    private let bulk = Locked<Inner?>(nil)

    init(delegateTarget: DispatchQueue? = nil) {
        fast = Inner(delegateTarget: delegateTarget)
    }

    /// Whether `request` goes through the bulk session: its origin has sent a large body.
    func usesBulkSession(for request: URLRequest) -> Bool {
        LargeBodyOrigins.contains(request.url)
    }

    /// The session for `request`: ``bulk`` for an origin known to send large bodies.
    private func inner(for request: URLRequest) -> Inner {
        guard usesBulkSession(for: request) else { return fast }
        return bulk.withLock { bulk in
            if let bulk { return bulk }
            let made = Inner(delegateTarget: nil)
            bulk = made
            return made
        }
    }

    /// What the live request reports as it goes, besides its end.
    struct Progress: Sendable {
        /// The response head, when it arrives.
        var head: @Sendable (HTTPURLResponse) -> Void = { _ in }
        /// Each piece of the body, as it arrives.
        var data: @Sendable (Data) -> Void = { _ in }
        /// Body bytes sent: this piece, the total so far, the total expected (0 when unknown).
        var sent: @Sendable (Int64, Int64, Int64) -> Void = { _, _, _ in }
    }

    /// Starts `request` with `body`, through the same kind of task the caller used, so that it
    /// goes on the wire as it would live (see ``RequestBody/Form``). Must not be called on
    /// URLSession's shared queue (from `startLoading`): creating a task of another session there
    /// crashes FoundationNetworking.
    func forward(_ request: URLRequest, body: RequestBody, progress: Progress, onEnd: @escaping @Sendable (Outcome) -> Void) -> Forwarding {
        var bare = request
        bare.httpBody = nil
        bare.httpBodyStream = nil
        let inner = inner(for: request)
        let session = inner.session
        let task: URLSessionDataTask
        switch (body.form, body.data) {
        case (.request, _), (_, nil):
            task = session.dataTask(with: request)
        case (.requestStream, let data?):
            bare.httpBodyStream = InputStream(data: data)
            task = session.dataTask(with: bare)
        case (.upload, let data?):
            task = session.uploadTask(with: bare, from: data)
        case (.uploadStream, _):
            task = session.uploadTask(withStreamedRequest: bare)
        }
        var exchange = ForwardingDelegate.Exchange(start: Date(), progress: progress, onEnd: onEnd)
        exchange.bodyStream = body.form == .uploadStream ? body.data : nil
        inner.delegate.register(task.taskIdentifier, exchange)
        task.resume()
        return Forwarding(task)
    }

    /// Cancels what is still running and releases the session.
    func invalidate() {
        fast.session.invalidateAndCancel()
        bulk.withLock { $0 }?.session.invalidateAndCancel()
    }
}

/// The inner session's delegate: buffers each task's body and reports to its ``LiveForwarder/Exchange``.
private final class ForwardingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Exchange {
        var start: Date
        var progress: LiveForwarder.Progress
        var onEnd: @Sendable (LiveForwarder.Outcome) -> Void
        var response: HTTPURLResponse?
        var firstByte: TimeInterval?
        var body = Data()
        var arrivals: [StreamCapture.Arrival] = []
        /// The body a streamed upload's `needNewBodyStream` gives.
        var bodyStream: Data?

        init(start: Date, progress: LiveForwarder.Progress, onEnd: @escaping @Sendable (LiveForwarder.Outcome) -> Void) {
            self.start = start
            self.progress = progress
            self.onEnd = onEnd
        }
    }

    private let exchanges = Locked<[Int: Exchange]>([:])
    /// Whether the session's delegate queue targets a task's work queue (``LiveForwarder/init(delegateTarget:)``).
    private let reportsOnClientQueue: Bool

    init(reportsOnClientQueue: Bool) {
        self.reportsOnClientQueue = reportsOnClientQueue
    }

    /// The largest body collected in a buffer reserved from its `Content-Length` (1 GiB): a
    /// header is not trusted with more.
    static let largestReservation: Int64 = 1 << 30

    func register(_ taskIdentifier: Int, _ exchange: Exchange) {
        exchanges.withLock { $0[taskIdentifier] = exchange }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let onHead = exchanges.withLock { exchanges -> (@Sendable (HTTPURLResponse) -> Void)? in
            guard var exchange = exchanges[dataTask.taskIdentifier], let http = response as? HTTPURLResponse else { return nil }
            exchange.response = http
            exchange.firstByte = Date().timeIntervalSince(exchange.start)
            // A body of known length is collected in one buffer of its size, not grown by copying.
            if http.expectedContentLength >= Int64(LargeBodyOrigins.threshold) {
                LargeBodyOrigins.note(http.url ?? dataTask.originalRequest?.url)
            }
            if http.expectedContentLength > 0, http.expectedContentLength <= Self.largestReservation,
                !(http.value(forHTTPHeaderField: "Content-Encoding").map { !$0.isEmpty } ?? false)
            {
                exchange.body.reserveCapacity(Int(http.expectedContentLength))
            }
            exchanges[dataTask.taskIdentifier] = exchange
            return exchange.progress.head
        }
        if let onHead, let http = response as? HTTPURLResponse { onHead(http) }
        completionHandler(onHead == nil ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let now = Date()
        let (onData, collected) = exchanges.withLock { exchanges -> ((@Sendable (Data) -> Void)?, ClosedRange<Int>) in
            guard var exchange = exchanges.removeValue(forKey: dataTask.taskIdentifier) else { return (nil, 0...0) }
            let before = exchange.body.count
            exchange.body.append(data)
            exchange.arrivals.append(.init(end: exchange.body.count, at: now.timeIntervalSince(exchange.start)))
            exchanges[dataTask.taskIdentifier] = exchange
            return (exchange.progress.data, before...exchange.body.count)
        }
        // The pieces queued behind this one are freed as they are collected: see HeapTrim.
        if collected.lowerBound / HeapTrim.everyBytes != collected.upperBound / HeapTrim.everyBytes {
            HeapTrim.mapLargeBlocks()
            HeapTrim.releaseFreedPages()
        }
        onData?(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        exchanges.withLock { $0[task.taskIdentifier]?.progress.sent }?(bytesSent, totalBytesSent, totalBytesExpectedToSend)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        completionHandler(exchanges.withLock { $0[task.taskIdentifier]?.bodyStream }.map { InputStream(data: $0) })
    }

    /// Never followed here: the redirect response comes back with its body, for the Router to play.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        var urlError = error.map(URLError.init(converting:))
        // A 3xx without a Location never reaches didReceive(response:) in FoundationNetworking;
        // the task still holds it.
        let response = exchange.response ?? (error == nil ? task.response as? HTTPURLResponse : nil)
        if response == nil, urlError == nil {
            urlError = URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "the response was not an HTTP response"])
        }
        var outcome = LiveForwarder.Outcome(
            response: response, body: exchange.body, arrivals: exchange.arrivals, error: urlError,
            firstByte: exchange.firstByte ?? (response == nil ? nil : Date().timeIntervalSince(exchange.start)),
            duration: Date().timeIntervalSince(exchange.start)
        )
        // On Linux this runs on URLSession's shared queue (see LiveForwarder.init): building and
        // redacting a large body's interaction there would hold up every session in the process.
        // The pieces queued since the last trim were freed as they were collected.
        if outcome.body.count >= HeapTrim.everyBytes { HeapTrim.releaseFreedPages() }
        if outcome.body.count >= LargeBodyOrigins.threshold { LargeBodyOrigins.note(task.originalRequest?.url) }
        if outcome.body.count >= Self.handedOffBody {
            let onEnd = exchange.onEnd
            let handedOff = outcome
            DispatchQueue.global().async { onEnd(handedOff) }
        } else {
            outcome.isOnClientQueue = reportsOnClientQueue
            exchange.onEnd(outcome)
        }
    }

    /// The body size from which the end of an exchange is reported on a global queue rather than
    /// on the delegate queue (1 MiB).
    static let handedOffBody = 1 << 20
}
