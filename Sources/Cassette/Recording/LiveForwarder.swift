import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a challenge is answered: `URLSession`'s completion handler for it.
package typealias ChallengeReply = @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void

/// Sends requests to the real network through an inner `URLSession` that does not contain
/// Cassette's protocol, reporting the response head as soon as it arrives and the rest at the end.
///
/// The inner session does not follow redirects (the ``Router`` plays each hop, so that the
/// caller's redirect policy decides and every hop is recorded), decodes `gzip`/`deflate` like the
/// caller's session would, and neither stores cookies nor caches: the caller's session already
/// put its cookies into the request, and recording must see every response.
package final class LiveForwarder: Sendable {
    /// What came back for one request.
    package struct Outcome: Sendable {
        var response: HTTPURLResponse?
        var body: Data
        /// When each piece of the body arrived: the body's length after it, and seconds from the start.
        var arrivals: [StreamCapture.Arrival] = []
        package var error: URLError?
        /// Seconds from the start of the request to the response head, and to the end.
        var firstByte: TimeInterval?
        var duration: TimeInterval
        /// The HTTP authentication challenges the server made before the answer, and how each
        /// was answered (``Interaction/challenges``).
        var challenges: [Interaction.Challenge] = []
        /// Whether the outcome is reported on FoundationNetworking's work queue, and so is
        /// serialised with every client call of FoundationNetworking (see ``ClientChannel/soon(onClientQueue:_:)``).
        var isOnClientQueue = false
    }

    /// A request on its way; cancel it when the caller cancels.
    package final class Forwarding: Sendable {
        private let task: UncheckedSendable<URLSessionDataTask>
        init(_ task: URLSessionDataTask) { self.task = UncheckedSendable(task) }

        /// Cancels the live request. Hops off the calling queue: cancelling a task of another
        /// session from `stopLoading` deadlocks FoundationNetworking.
        package func cancel() {
            let task = self.task
            DispatchQueue.global().async { task.value.cancel() }
        }
    }

    /// The session the live requests go through, with Cassette's protocol left out.
    private let session: URLSession
    private let delegate: ForwardingDelegate

    /// `reportsOnClientQueue`: whether what the live request reports may be passed on to the
    /// caller's `URLProtocolClient` where it is reported (see ``Outcome/isOnClientQueue``): true
    /// for a caller that is a task of FoundationNetworking, whose sessions all work on one queue.
    ///
    /// The delegate runs where the platform calls it: on Linux at once, on FoundationNetworking's
    /// work queue (``InlineOperationQueue``), which saves each callback a hop between threads (a
    /// hop took a fifth of the time of a recorded loopback request) and keeps a large body from
    /// piling up before it is collected; elsewhere on a serial queue of its own.
    init(reportsOnClientQueue: Bool = false) {
        let configuration = ConfigurationHooks.ownConfiguration()
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        #if canImport(FoundationNetworking)
        let queue: OperationQueue = InlineOperationQueue()
        delegate = ForwardingDelegate(reportsOnClientQueue: reportsOnClientQueue)
        #else
        let queue = OperationQueue()
        delegate = ForwardingDelegate(reportsOnClientQueue: false)
        #endif
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
    }

    /// Whether the delegate runs where FoundationNetworking reports (tests ask).
    var delegateRunsInline: Bool {
        #if canImport(FoundationNetworking)
        return session.delegateQueue is InlineOperationQueue
        #else
        return false
        #endif
    }

    /// What the live request reports as it goes, besides its end.
    package struct Progress: Sendable {
        /// The response head, when it arrives.
        var head: @Sendable (HTTPURLResponse) -> Void = { _ in }
        /// Each piece of the body, as it arrives.
        var data: @Sendable (Data) -> Void = { _ in }
        /// Body bytes sent: this piece, the total so far, the total expected (0 when unknown).
        var sent: @Sendable (Int64, Int64, Int64) -> Void = { _, _, _ in }
        /// An authentication challenge the server made (HTTP authentication, server trust), to be
        /// answered as the caller's delegate answers it; without one, the platform's default.
        var challenge: (@Sendable (URLAuthenticationChallenge, @escaping ChallengeReply) -> Void)?
        /// The credential the caller's default handling would use for a challenge (its
        /// configuration's credential storage, where the platform's default handling reads it);
        /// nil: the default handling of the session that sends the request.
        var defaultCredential: (@Sendable (URLAuthenticationChallenge) -> URLCredential?)?

        package init(
            head: @escaping @Sendable (HTTPURLResponse) -> Void = { _ in }, data: @escaping @Sendable (Data) -> Void = { _ in },
            sent: @escaping @Sendable (Int64, Int64, Int64) -> Void = { _, _, _ in },
            challenge: (@Sendable (URLAuthenticationChallenge, @escaping ChallengeReply) -> Void)? = nil,
            defaultCredential: (@Sendable (URLAuthenticationChallenge) -> URLCredential?)? = nil
        ) {
            self.head = head
            self.data = data
            self.sent = sent
            self.challenge = challenge
            self.defaultCredential = defaultCredential
        }
    }

    /// Starts `request` with `body`, through the same kind of task the caller used, so that it
    /// goes on the wire as it would live (see ``RequestBody/Form``). Must not be called on
    /// URLSession's shared queue (from `startLoading`): creating a task of another session there
    /// crashes FoundationNetworking.
    func forward(_ request: URLRequest, body: RequestBody, progress: Progress, onEnd: @escaping @Sendable (Outcome) -> Void) -> Forwarding {
        var bare = request
        bare.httpBody = nil
        bare.httpBodyStream = nil
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
        var exchange = ForwardingDelegate.Transfer(start: Date(), progress: progress, onEnd: onEnd)
        exchange.bodyStream = body.form == .uploadStream ? body.data : nil
        delegate.register(task.taskIdentifier, exchange)
        task.resume()
        return Forwarding(task)
    }

    /// Cancels what is still running and releases the session.
    func invalidate() {
        session.cancelListedTasksAndInvalidate()
    }
}

/// The inner session's delegate: buffers each task's body and reports to its ``Transfer``.
private final class ForwardingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Transfer {
        var start: Date
        var progress: LiveForwarder.Progress
        var onEnd: @Sendable (LiveForwarder.Outcome) -> Void
        var response: HTTPURLResponse?
        var firstByte: TimeInterval?
        var body = Data()
        var arrivals: [StreamCapture.Arrival] = []
        var challenges: [Interaction.Challenge] = []
        /// The body a streamed upload's `needNewBodyStream` gives.
        var bodyStream: Data?

        init(start: Date, progress: LiveForwarder.Progress, onEnd: @escaping @Sendable (LiveForwarder.Outcome) -> Void) {
            self.start = start
            self.progress = progress
            self.onEnd = onEnd
        }
    }

    private let exchanges = Locked<[Int: Transfer]>([:])
    /// Whether outcomes reported where the delegate runs are on the client's queue (``LiveForwarder/init(reportsOnClientQueue:)``).
    private let reportsOnClientQueue: Bool

    init(reportsOnClientQueue: Bool) {
        self.reportsOnClientQueue = reportsOnClientQueue
    }

    /// The largest body collected in a buffer reserved from its `Content-Length` (1 GiB): a
    /// header is not trusted with more.
    static let largestReservation: Int64 = 1 << 30

    func register(_ taskIdentifier: Int, _ exchange: Transfer) {
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
        // A large body: from now on glibc maps such blocks, so that freeing them returns their pages.
        if collected.lowerBound < HeapTrim.everyBytes, collected.upperBound >= HeapTrim.everyBytes {
            HeapTrim.mapLargeBlocks()
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

    /// A challenge goes to whoever answers for the caller (``Progress/challenge``): the caller's
    /// delegate, whose answer — a credential, the default handling, a cancel — is this task's,
    /// and is what the cassette keeps. The default handling answers with the caller's stored
    /// credential where the platform's does (``Progress/defaultCredential``), not this session's.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping ChallengeReply
    ) {
        guard let progress = exchanges.withLock({ $0[task.taskIdentifier]?.progress }), let forward = progress.challenge else {
            return completionHandler(.performDefaultHandling, nil)
        }
        let id = task.taskIdentifier
        forward(challenge) { [exchanges] given, givenCredential in
            let answer = KeptChallenge.answer(given, credential: givenCredential)
            var (disposition, credential) = (given, givenCredential)
            if answer == .performDefaultHandling, let stored = progress.defaultCredential?(challenge) {
                (disposition, credential) = (.useCredential, stored)
            }
            // What arrived so far belonged to the challenged response (FoundationNetworking hands a
            // 401's head and body over before asking; Apple's loading system neither). Nothing more
            // arrives until the answer goes back, so it is kept outside the lock every task shares.
            let body = exchanges.withLock { $0[id]?.body } ?? Data()
            let recorded = KeptChallenge.recorded(challenge, answer: answer, body: body)
            exchanges.withLock { exchanges in
                guard exchanges[id] != nil else { return }
                if let recorded { exchanges[id]?.challenges.append(recorded) }
                // Answered with a credential, the request is sent again: the challenged body is not
                // the answer's, and a live caller of Apple's loading system never sees it. Otherwise
                // the challenged response is the answer, and its body stays.
                if disposition == .useCredential, credential != nil {
                    exchanges[id]?.body = Data()
                    exchanges[id]?.arrivals = []
                }
            }
            completionHandler(disposition, credential)
        }
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
            duration: Date().timeIntervalSince(exchange.start), challenges: exchange.challenges
        )
        // On Linux this runs on FoundationNetworking's work queue (see LiveForwarder.init):
        // building and redacting a large body's interaction there would hold up every session in
        // the process, and so would giving back the pages of its freed pieces.
        if outcome.body.count >= Self.handedOffBody {
            let onEnd = exchange.onEnd
            let handedOff = outcome
            DispatchQueue.global().async {
                if handedOff.body.count >= HeapTrim.everyBytes { HeapTrim.releaseFreedPages() }
                onEnd(handedOff)
            }
        } else {
            outcome.isOnClientQueue = reportsOnClientQueue
            exchange.onEnd(outcome)
        }
    }

    /// The body size from which the end of an exchange is reported on a global queue rather than
    /// on the delegate queue (1 MiB).
    static let handedOffBody = 1 << 20
}
