import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decides, for each request of a tape's or stub session's sessions, who answers: a stub, the
/// cassette's recording, the live network (recording what comes back), or nobody (a clear
/// error). docs/Architecture.md, "The flow".
final class Router: Sendable {
    /// How the router was set up by its ``Tape`` or ``StubSession``.
    struct Setup: Sendable {
        /// The cassette, or nil for a session that only stubs.
        var file: URL?
        var mode: RecordMode
        /// Whether requests without a recorded match may go to the network.
        var recordsNewRequests: Bool
        /// Whether recorded interactions answer requests (`false` in mode `all`).
        var replays: Bool
        /// How replays are timed when an interaction does not say.
        var latency: Latency
        /// Whether requests that could not connect while recording are saved.
        var savesConnectionFailures = false
    }

    /// What happened to the requests so far.
    struct Log: Sendable {
        var replayed = 0
        var unmatched: [UnmatchedRequest] = []
        /// Requests that could not connect while recording and were not saved.
        var connectionFailures = 0
        var warnings: [String] = []
        /// Replays whose match relied on redacted values.
        var redactedMatches: [Tape.Report.RedactedMatch] = []
    }

    /// Errors that mean the request never reached a server: while recording they say more about
    /// the machine than about the API (see ``Tape/Options/savesConnectionFailures``).
    static let connectionFailureCodes: Set<URLError.Code> = [.cannotConnectToHost, .cannotFindHost, .notConnectedToInternet, .dnsLookupFailed]

    let setup: Setup
    let redactor: Redactor
    let playback: PlaybackQueue
    /// Asked first, before `Stubs.global` and the cassette.
    let stubs: Stubs
    let recorder = Recorder()
    private let forwarder = Locked<LiveForwarder?>(nil)
    let log = Locked(Log())

    init(setup: Setup, redactor: Redactor, playback: PlaybackQueue, stubs: Stubs) {
        self.setup = setup
        self.redactor = redactor
        self.playback = playback
        self.stubs = stubs
    }

    /// One request of an exchange: the caller's, or the next hop of a redirect.
    struct Hop: @unchecked Sendable {
        /// As it goes out: the session's additional header fields added, the body in `httpBody`.
        var request: URLRequest
        var body: RequestBody
        /// 0 for the caller's request, n for the request after the n-th redirect.
        var number = 0
    }

    /// Answers `exchange`. Runs inside `startLoading`: never blocks.
    func start(_ exchange: Exchange) {
        let channel = exchange.channel
        let task = channel.task
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            channel.finish(error: Self.downloadRefusal(redactor.forMatching(Interaction.Request.capturing(exchange.request.value).request)))
            return
        }
        #endif
        // The request as the session sends it costs a cookie-storage lookup; an instant replay by
        // method, URL and body needs none of it, and the replay benchmark would pay for it.
        let readsConfiguration = readsConfigurationFirst
        let urlRequest = readsConfiguration ? Self.asSent(exchange.request.value, by: exchange.configuration) : exchange.request.value
        if readsConfiguration { armResourceDeadline(of: exchange) }
        // Most requests carry their body (or none) in the request: routed at once, with no
        // closure to allocate for a body read elsewhere.
        if let body = RequestBody.atHand(in: urlRequest, task: task) {
            return begin(.success(body), request: urlRequest, of: exchange)
        }
        let sendable = UncheckedSendable(urlRequest)
        if let found = RequestBody.obtain(for: urlRequest, task: task, later: { [self] found in
            channel.later { if !exchange.isStopped { self.begin(found, request: sendable.value, of: exchange) } }
        }) {
            begin(found, request: urlRequest, of: exchange)
        }
    }

    /// Routes `request` with the body `found` for it, or fails the exchange when none could be read.
    private func begin(_ found: Result<RequestBody, URLError>, request urlRequest: URLRequest, of exchange: Exchange) {
        switch found {
        case .failure(let error):
            exchange.channel.finish(error: error)
        case .success(let body):
            var request = urlRequest
            // A body of form .request is the request's own httpBody already: a copy of the request saved.
            if let data = body.data, body.form != .request || request.httpBodyStream != nil {
                request.httpBodyStream = nil
                request.httpBody = data
            }
            route(Hop(request: request, body: body), of: exchange)
        }
    }

    /// Whether the session's configuration may decide who answers, so it is read before routing:
    /// its `httpAdditionalHeaders` reach stubs, header matching and recordings. Otherwise it is
    /// read only when a replay waits (timeouts) or fails (the report shows every field).
    private var readsConfigurationFirst: Bool {
        setup.recordsNewRequests || !playback.rules.headers.isEmpty || playback.rules.predicate != nil || !stubs.isEmpty || !Stubs.global.isEmpty
    }

    /// Fails the exchange with `timedOut` when it outlasts the session's
    /// `timeoutIntervalForResource` (counted from `startLoading`), once per exchange.
    private func armResourceDeadline(of exchange: Exchange) {
        guard let seconds = exchange.configuration?.timeoutIntervalForResource, seconds > 0, seconds < CassetteRules.longestSeconds,
              exchange.armsDeadline()
        else { return }
        let redactor = self.redactor
        exchange.channel.expire(after: seconds - exchange.channel.age, with: {
            let url = redactor.forMatching(Interaction.Request.capturing(exchange.request.value).request).url
            return Self.urlError(.timedOut, url: url, "Cassette: the request took longer than the session's timeoutIntervalForResource "
                + "of \(JSONCassetteCodec.formatSeconds(seconds)) s")
        }, then: { exchange.expire() })
    }

    /// Decides who answers `hop`: a stub, the recording, the network, or nobody. Runs inside
    /// `startLoading` or on the channel's work queue, where client calls are safe.
    private func route(_ hop: Hop, of exchange: Exchange) {
        let urlRequest = hop.request
        let (request, _) = Interaction.Request.capturing(urlRequest)
        // Stubs first: a stubbed request is neither replayed nor recorded.
        if let (_, response) = stubs.answer(urlRequest, captured: request) ?? Stubs.global.answer(urlRequest, captured: request) {
            let redactor = self.redactor
            reportSent(hop, of: exchange)
            answer(with: response, hop: hop, of: exchange, shownAs: { redactor.forMatching(request) })
            return
        }
        // Compared, and shown in errors, as it would be stored: never with its secrets.
        let redacted = redactor.forMatching(request)
        var usedUp = 0
        if setup.replays {
            switch playback.take(redacted, live: request) {
            case .found(let index, let interaction, let redactedValues):
                noteReplay(of: index, redactedValues: redactedValues)
                reportSent(hop, of: exchange)
                let bound = playback.hasPlaceholders && !redactor.bindings.isEmpty
                if redactor.changesPlayback || playback.rules.origin != .exact || bound {
                    let answer = OriginMove.replayed(redactor.forPlayback(interaction, bound: bound), for: request.url, rule: playback.rules.origin)
                    replay(answer, hop: hop, of: exchange, shownAs: { redacted })
                } else {
                    replay(interaction, hop: hop, of: exchange, shownAs: { redacted })
                }
                return
            case .usedUp(let count):
                usedUp = count
            case .noMatch:
                break
            }
        }
        if setup.recordsNewRequests {
            record(request.withReadableBody(), hop: hop, exchange: exchange)
            return
        }
        // Shown with every field the session sends, the configuration's included, and without
        // a value that stands where a recording holds a placeholder (a secret the tape does not know).
        var shown = readsConfigurationFirst
            ? redacted
            : redactor.forMatching(Interaction.Request.capturing(Self.asSent(urlRequest, by: exchange.configuration)).request)
        let hidden = playback.placeholderValues(in: request)
        if !hidden.isEmpty { shown = SecretScrubber(secrets: hidden, with: Redaction.replacement).applied(to: shown) }
        refuse(shown, usedUp: usedUp, channel: exchange.channel)
    }

    /// Counts a replay of the interaction at `index`, and notes a match that relied on redacted values.
    func noteReplay(of index: Int, redactedValues: Int) {
        guard redactedValues > 0 else { return log.withLock { $0.replayed += 1 } }
        let recorded = playback.requests[index]
        let match = Tape.Report.RedactedMatch(interaction: index + 1, request: "\(recorded.method) \(recorded.url)", redactedValues: redactedValues)
        log.withLock {
            $0.replayed += 1
            $0.redactedMatches.append(match)
        }
    }

    /// Tells a progress delegate the body was sent, as a live upload would before its response.
    private func reportSent(_ hop: Hop, of exchange: Exchange) {
        guard hop.number == 0, let count = hop.body.data?.count, count > 0 else { return }
        TaskDelegateCalls.sentBody(of: exchange.channel.task, count: count, expected: hop.body.expectedLength)
    }

    /// `request` as a live session of `configuration` sends it: the configuration's
    /// `httpAdditionalHeaders` under the request's own fields, and, when the request has no
    /// `Cookie` field, the cookies its storage holds for the URL. The platform adds both only
    /// inside its own HTTP protocol: FoundationNetworking shows a protocol the stored cookies but
    /// not the additional fields (docs/Architecture.md, "Linux facts"), Apple's loading system shows neither. Fields the
    /// request already has are kept, so this runs the same on every platform.
    static func asSent(_ request: URLRequest, by configuration: URLSessionConfiguration?) -> URLRequest {
        guard let configuration else { return request }
        var request = request
        if request.value(forHTTPHeaderField: "Cookie") == nil {
            request = CookieSync.addingCookies(to: request, configuration: configuration)
        }
        guard let additional = configuration.httpAdditionalHeaders, !additional.isEmpty else { return request }
        for (key, value) in additional {
            guard let name = key as? String, request.value(forHTTPHeaderField: name) == nil else { continue }
            request.setValue("\(value)", forHTTPHeaderField: name)
        }
        return request
    }

    /// The error a download task gets on Linux (see the README's table of URLSession APIs).
    static func downloadRefusal(_ request: Interaction.Request) -> URLError {
        urlError(.cannotCreateFile, url: request.url, "Cassette cannot complete the download task for \(request.method) \(request.url) on "
            + "Linux: FoundationNetworking gives a download answered by a URLProtocol no file (it reads a property only its own "
            + "HTTP protocol can set), so the task would end without a file or crash the process. Nothing was sent or recorded. "
            + "Use data(for:) or a data task and write the body to a file yourself, or point the download task at tape.serve() (a real "
            + "HTTP server answering from the cassette); on Apple platforms download tasks record and replay.")
    }

    /// Follows the redirect `head` (with `body`) answering `hop`, once `delay` has passed: stores
    /// its cookies, asks the caller's delegate, then routes the next hop — or delivers the
    /// redirect itself when the delegate says nil. The same on every platform (see ``Redirect``).
    private func follow(_ head: HTTPURLResponse, body: Data, to next: URLRequest, after delay: TimeInterval,
                        hop: Hop, of exchange: Exchange, shownAs shown: @escaping Shown) {
        let channel = exchange.channel
        if delay > 0 { armResourceDeadline(of: exchange) }
        let shownNext = UncheckedSendable(next)
        let sendable = UncheckedSendable((head, hop))
        channel.after(delay) {
            let (head, hop) = sendable.value
            guard !exchange.isStopped else { return }
            guard hop.number < Redirect.mostHops else { return channel.finish(error: Redirect.tooMany(url: shown().url)) }
            let task = channel.task
            CookieSync.store(cookiesOf: head, for: hop.request, configuration: exchange.configuration)
            let proposed = CookieSync.addingCookies(to: shownNext.value, configuration: exchange.configuration)
            TaskDelegateCalls.redirect(task, response: head, proposing: proposed) { chosen in
                let chosen = UncheckedSendable(chosen.value)
                channel.later { [self] in
                    guard !exchange.isStopped else { return }
                    channel.restartClock()
                    guard let request = chosen.value else {
                        // Refused: the redirect is the response, with its body, as live.
                        return channel.deliver(head, body: body, error: nil)
                    }
                    let body = RequestBody(data: request.httpBody, form: .request)
                    route(Hop(request: request, body: body, number: hop.number + 1), of: exchange)
                }
            }
        }
    }

    /// Stops recording: cancels live requests still running.
    func shutDown() {
        forwarder.withLock { forwarder in
            forwarder?.invalidate()
            forwarder = nil
        }
    }

    // MARK: Playback

    /// The request as errors show it: redacted (computed only when an error needs it).
    typealias Shown = @Sendable () -> Interaction.Request

    private func answer(with stub: StubResponse, hop: Hop, of exchange: Exchange, shownAs shown: @escaping Shown) {
        let channel = exchange.channel
        let urlRequest = hop.request
        let url = urlRequest.url ?? URL(fileURLWithPath: "/")
        var head: HTTPURLResponse?
        var endCode = stub.error
        var description = stub.failureDescription
        if stub.error == nil {
            head = Interaction.Response(status: stub.status, headers: stub.headers).urlResponse(for: url)
            if head == nil {
                endCode = .badServerResponse
                description = "Cassette stub: cannot build a response with status \(stub.status)"
            }
        }
        let body = head == nil ? Data() : stub.body
        if let head, endCode == nil, let next = Redirect.nextRequest(after: head, to: urlRequest, body: hop.body.data) {
            return follow(head, body: body, to: next, after: stub.requestTime + stub.bodySeconds, hop: hop, of: exchange, shownAs: shown)
        }
        let delayed = stub.requestTime > 0 || stub.bodySeconds > 0
        if delayed { armResourceDeadline(of: exchange) }
        let timeout = delayed ? Self.timeout(of: urlRequest, configuration: exchange.configuration) : nil
        let inPieces = head != nil && stub.bodySeconds > 0 && TaskInternals.deliversEveryChunk(channel.task)
        let plan: DeliveryPlan
        if let sizes = stub.chunkSizes, head != nil {
            plan = DeliveryPlan(chunkSizes: sizes, firstByte: stub.requestTime, delay: stub.chunkDelay, inPieces: inPieces, timeout: timeout)
        } else {
            let end = stub.requestTime + (head == nil ? 0 : stub.bodySeconds)
            plan = DeliveryPlan(hasHead: head != nil, bodySize: body.count, error: endCode,
                                timing: Interaction.Timing(firstByte: stub.requestTime, duration: end), inPieces: inPieces, timeout: timeout)
        }
        play(plan, head: head, setsCookies: stub.headers.contains("Set-Cookie"), body: body, endCode: endCode, description: description,
             timeout: timeout, waiting: .stub, on: channel, shownAs: shown)
    }

    /// A recorded interaction as it replays to `urlRequest`: the head, the body the caller gets
    /// (cut by `afterBytes` or by a `Content-Length` it does not keep), how it ends, and when.
    struct PreparedReplay {
        /// The recorded response, nil for an error alone.
        var response: Interaction.Response?
        var body = Data()
        var endCode: URLError.Code?
        var description: String?
        var timing: Interaction.Timing
        var latency: Latency
        /// A streamed body's pieces, in replay time and cut to `body`; nil for a body in one piece.
        var pieces: [(at: TimeInterval, size: Int)]?

        /// How the replay reaches the caller. `inPieces`: whether every piece of the body reaches
        /// it (a delegate, or a client on the wire); otherwise the body arrives in one piece.
        func plan(inPieces: Bool, timeout: TimeInterval?) -> DeliveryPlan {
            if let pieces, response != nil {
                return DeliveryPlan(firstByte: timing.firstByte, pieces: pieces, end: timing.duration, error: endCode,
                                    inPieces: inPieces, timeout: timeout)
            }
            return DeliveryPlan(hasHead: response != nil, bodySize: body.count, error: endCode, timing: timing,
                                inPieces: inPieces && timing.duration > timing.firstByte, timeout: timeout)
        }

        /// Whether anything waits: the plan runs on a timer.
        var isDelayed: Bool { timing.duration > 0 || (pieces?.last.map { $0.at > 0 } ?? false) }
    }

    /// `interaction` as it replays to a request with `method`: the body the caller gets (cut by
    /// `afterBytes`, or by a `Content-Length` it does not keep), how it ends, and when.
    func prepare(_ interaction: Interaction, method: String, shownAs shown: Shown) -> PreparedReplay {
        let latency = interaction.latency ?? setup.latency
        var body = Data()
        var endCode = interaction.error?.urlError.code
        var description: String?
        if let response = interaction.response {
            body = response.body.data
            if let afterBytes = interaction.error?.afterBytes {
                body = body.prefix(max(0, afterBytes))
            } else if interaction.error == nil, method != "HEAD", let declared = response.declaredBodyLength {
                // Kept as the wire would keep it (see Interaction.Response.declaredBodyLength).
                if declared < body.count {
                    body = body.prefix(declared)
                } else if declared > body.count {
                    let request = shown()
                    endCode = .networkConnectionLost
                    description = "Cassette: the recorded response to \(request.method) \(request.url) declares "
                        + "Content-Length \(declared) but its body holds \(body.count) bytes, so the connection is lost after them, as it "
                        + "would be live. If the body was edited, correct or remove its Content-Length in \(setup.file?.path ?? "the cassette")."
                }
            }
        } else if endCode == nil {
            endCode = .badServerResponse
        }
        guard let stream = interaction.response?.stream, method != "HEAD" else {
            let timing = latency.timing(recorded: interaction.timing, bodySize: body.count)
            return PreparedReplay(response: interaction.response, body: body, endCode: endCode, description: description, timing: timing, latency: latency)
        }
        // A stream written by hand may have no timing: its chunks say when the body arrived.
        let recorded = interaction.timing ?? Interaction.Timing(firstByte: 0, duration: stream.chunks.last?.at ?? 0)
        let timing = latency.timing(recorded: recorded, bodySize: body.count)
        var pieces: [(at: TimeInterval, size: Int)] = []
        var left = body.count
        for chunk in stream.chunks where left > 0 {
            pieces.append((latency.arrival(of: chunk.at, recorded: recorded, replayed: timing), min(chunk.data.count, left)))
            left -= chunk.data.count
        }
        return PreparedReplay(response: interaction.response, body: body, endCode: endCode, description: description, timing: timing,
                              latency: latency, pieces: pieces)
    }

    private func replay(_ interaction: Interaction, hop: Hop, of exchange: Exchange, shownAs shown: @escaping Shown) {
        let channel = exchange.channel
        let urlRequest = hop.request
        var prepared = prepare(interaction, method: urlRequest.httpMethod ?? "GET", shownAs: shown)
        let head = prepared.response?.urlResponse(for: urlRequest.url ?? URL(fileURLWithPath: "/"))
        if let response = prepared.response, head == nil {
            prepared.response = nil
            prepared.body = Data()
            prepared.endCode = .badServerResponse
            prepared.description = "Cassette could not build a response for status \(response.status)"
        }
        if let head, prepared.endCode == nil, let next = Redirect.nextRequest(after: head, to: urlRequest, body: hop.body.data) {
            return follow(head, body: prepared.body, to: next, after: prepared.timing.duration, hop: hop, of: exchange, shownAs: shown)
        }
        let delayed = prepared.isDelayed
        if delayed { armResourceDeadline(of: exchange) }
        let timeout = delayed ? Self.timeout(of: urlRequest, configuration: exchange.configuration) : nil
        let plan = prepared.plan(inPieces: delayed && TaskInternals.deliversEveryChunk(channel.task), timeout: timeout)
        play(plan, head: head, setsCookies: prepared.response?.headers.contains("Set-Cookie") ?? false, body: prepared.body,
             endCode: prepared.endCode, description: prepared.description, timeout: timeout,
             waiting: .replay(prepared.latency), on: channel, shownAs: shown)
    }

    /// What a plan waits for, as its timeout's message names it.
    private enum Awaited {
        case stub
        case replay(Latency)

        var description: String {
            switch self {
            case .stub: return "the stub's response"
            case .replay(let latency): return "its replay (latency \(latency))"
            }
        }
    }

    /// Runs `plan` on `channel`. A timeout the plan cut in (not a recorded or stubbed one) gets a
    /// description saying what waited too long. Errors name the request as `shown`: redacted.
    private func play(_ plan: DeliveryPlan, head: HTTPURLResponse?, setsCookies: Bool, body: Data, endCode: URLError.Code?,
                      description: String?, timeout: TimeInterval?, waiting awaited: Awaited, on channel: ClientChannel,
                      shownAs shown: @escaping Shown) {
        @Sendable func error(_ code: URLError.Code) -> URLError {
            let request = shown()
            if code == .timedOut, code != endCode, let timeout {
                return Self.urlError(.timedOut, url: request.url, "Cassette: \(request.method) \(request.url) timed out: \(awaited.description) "
                    + "waits longer than the request's timeout of \(JSONCassetteCodec.formatSeconds(timeout)) s")
            }
            return Self.urlError(code, url: request.url, description)
        }
        // Every instant replay: played inside startLoading, with no closure kept for later.
        if plan.isImmediate {
            channel.playNow(plan, head: head, setsCookies: setsCookies, body: body, error: error)
        } else {
            channel.play(plan, head: head, setsCookies: setsCookies, body: body, error: error)
        }
    }

    /// The timeout a live request would have: the request's own `timeoutInterval` when it was
    /// changed from the default of 60 s, else the session configuration's
    /// `timeoutIntervalForRequest` (which FoundationNetworking does not copy into the request a
    /// protocol sees). Nil for none.
    private static func timeout(of request: URLRequest, configuration: URLSessionConfiguration?) -> TimeInterval? {
        var timeout = request.timeoutInterval
        if timeout == 60, let configured = configuration?.timeoutIntervalForRequest {
            timeout = configured
        }
        return timeout > 0 && timeout.isFinite ? timeout : nil
    }

    private func refuse(_ request: Interaction.Request, usedUp: Int, channel: ClientChannel) {
        guard let file = setup.file else {
            // A stub session's verify() lists it; a tape's unmatched report already says it once.
            stubs.noteUnanswered(request)
            let installed = stubs.all.count
            let message = "Cassette: no stub matches \(request.method) \(request.url) (\(installed) stub\(installed == 1 ? "" : "s") "
                + "installed). Add a stub whose condition this request meets, or create the StubSession with unmatched: .passThrough "
                + "to let such requests reach the network."
            let miss = UnmatchedRequest(request: request, cassette: nil, mode: nil, candidates: [], usedUp: 0, description: message)
            log.withLock { $0.unmatched.append(miss) }
            channel.finish(error: Self.urlError(Tape.unmatchedRequestErrorCode, url: request.url, message))
            return
        }
        let miss = UnmatchedRequestReport(
            request: request, file: file, mode: setup.mode, rules: playback.rules,
            recorded: playback.recordings, usedUp: usedUp
        ).value
        log.withLock { $0.unmatched.append(miss) }
        channel.finish(error: Self.urlError(Tape.unmatchedRequestErrorCode, url: request.url, miss.description, unmatched: true))
    }

    /// The `userInfo` key that marks an error as Cassette's refusal of an unmatched request (a
    /// recorded `resourceUnavailable` is not one): ``TapeServer`` answers it with the report.
    static let unmatchedKey = "CassetteUnmatchedRequest"

    /// An error for the caller. `url` is the request's URL as the cassette would hold it
    /// (redacted): printing the error must not show a secret.
    static func urlError(_ code: URLError.Code, url: String, _ description: String? = nil, unmatched: Bool = false) -> URLError {
        var info: [String: Any] = [:]
        if unmatched { info[unmatchedKey] = true }
        if let url = URL(string: url) {
            info[NSURLErrorFailingURLErrorKey] = url
        }
        if let description { info[NSLocalizedDescriptionKey] = description }
        return URLError(code, userInfo: info)
    }

    // MARK: Recording

    private func liveForwarder(for task: URLSessionTask?) -> LiveForwarder {
        forwarder.withLock { forwarder in
            if let forwarder { return forwarder }
            let made = LiveForwarder(delegateTarget: TaskInternals.workQueue(of: task))
            forwarder = made
            return made
        }
    }

    /// Measured timing, to the millisecond: finer digits are noise, and they would make every
    /// re-recording a diff.
    private static func timing(firstByte: TimeInterval?, duration: TimeInterval) -> Interaction.Timing {
        func milliseconds(_ seconds: TimeInterval) -> TimeInterval { (seconds * 1000).rounded() / 1000 }
        let end = milliseconds(duration)
        return Interaction.Timing(firstByte: min(milliseconds(firstByte ?? duration), end), duration: end)
    }

    /// The warning for a request that could not connect while recording and was not saved.
    private static func unsavedConnectionFailure(_ request: Interaction.Request, code: URLError.Code, file: URL?) -> String {
        "\(request.method) \(request.url) could not connect (\(Interaction.TransportError.Code(rawValue: code.rawValue))) "
            + "while recording \(file?.path ?? "the cassette"); the caller got the error, but it was not saved, so that "
            + "a recording made offline does not replay the outage. Record again when the server can be reached, or set "
            + "Tape.Options(savesConnectionFailures: true) to keep such errors."
    }

    private func record(_ request: Interaction.Request, hop: Hop, exchange: Exchange) {
        let task = exchange.channel.task
        let ticket = recorder.begin(session: TaskInternals.session(of: task).map(ObjectIdentifier.init), taskIdentifier: task?.taskIdentifier)
        let recordedAt = Date()
        var outgoing = hop.request
        // The session's timeout, which FoundationNetworking does not copy into the request.
        if let timeout = Self.timeout(of: hop.request, configuration: exchange.configuration) { outgoing.timeoutInterval = timeout }
        let sendable = UncheckedSendable(outgoing)
        let forwarder = liveForwarder(for: task)
        let recorder = self.recorder
        let redactor = self.redactor
        let channel = exchange.channel
        let log = self.log
        let file = setup.file
        let savesConnectionFailures = setup.savesConnectionFailures
        // Whether the body goes to the caller piece by piece, as it arrives: decided with the head.
        // (Asked here, in startLoading or on the task's work queue, where the answer can be read.)
        let everyChunk = TaskInternals.deliversEveryChunk(task)
        let streaming = Locked(false)
        let sent = SentBody(hop: hop, task: task)
        let progress = LiveForwarder.Progress(head: { head in
            // Only a caller that hears every piece can tell when the head came: the others get it
            // with the body at the end, one hop instead of two.
            guard everyChunk, Redirect.nextRequest(after: head, to: sendable.value, body: nil) == nil else { return }
            streaming.withLock { $0 = true }
            sent.reportTheRest()
            channel.later { channel.deliverHead(head) }
        }, data: { data in
            if streaming.withLock({ $0 }) { channel.later { channel.deliverData(data) } }
        }, sent: { piece, total, expected in
            sent.report(piece: piece, total: total, expected: expected)
        })
        // Off URLSession's shared queue: creating another session's task from it crashes.
        DispatchQueue.global().async { [self] in
            if exchange.isStopped {
                recorder.abandon(ticket)
                return
            }
            let live = forwarder.forward(sendable.value, body: hop.body, progress: progress, onEnd: { received in
                var outcome = received
                if exchange.isExpired {
                    // Saved as the caller saw it: the resource timeout cut the exchange.
                    outcome.response = nil
                    outcome.error = URLError(.timedOut)
                }
                let ended = outcome
                let timing = Self.timing(firstByte: outcome.firstByte, duration: outcome.duration)
                var response = outcome.response.map { Interaction.Response($0, body: outcome.body, requestURL: request.url) }
                if let headers = response?.headers,
                   let stream = StreamCapture.stream(of: outcome.body, arrivals: outcome.arrivals, headers: headers, timing: timing) {
                    response?.stream = stream
                }
                let interaction = Interaction(
                    recordedAt: recordedAt, request: request, response: response,
                    error: outcome.error.map(Interaction.TransportError.init), timing: timing)
                if file == nil {
                    // A stub session's pass-through: nothing is ever saved, so nothing is kept.
                    recorder.abandon(ticket)
                } else if exchange.isStopped, !exchange.isExpired, outcome.error?.code == .cancelled {
                    recorder.abandon(ticket)
                } else if !savesConnectionFailures, outcome.response == nil, let code = outcome.error?.code,
                          Self.connectionFailureCodes.contains(code) {
                    recorder.abandon(ticket)
                    let warning = Self.unsavedConnectionFailure(redactor.forMatching(request), code: code, file: file)
                    log.withLock {
                        $0.connectionFailures += 1
                        $0.warnings.append(warning)
                    }
                    FileHandle.standardError.write(Data("Cassette warning: \(warning)\n".utf8))
                } else if let stored = redactor.forRecording(interaction) {
                    recorder.finish(ticket, with: stored)
                } else {
                    recorder.abandon(ticket)
                }
                if outcome.response != nil { sent.reportTheRest() }
                if outcome.error == nil, let head = outcome.response,
                   let next = Redirect.nextRequest(after: head, to: sendable.value, body: hop.body.data) {
                    let redirect = UncheckedSendable((head, next))
                    channel.later { [self] in
                        follow(redirect.value.0, body: ended.body, to: redirect.value.1, after: 0, hop: hop, of: exchange,
                               shownAs: { redactor.forMatching(request) })
                    }
                    return
                }
                if streaming.withLock({ $0 }) {
                    channel.soon(onClientQueue: ended.isOnClientQueue) { channel.deliverRest(body: Data(), error: ended.error) }
                } else {
                    let head = UncheckedSendable(ended.response)
                    channel.soon(onClientQueue: ended.isOnClientQueue) { channel.deliver(head.value, body: ended.body, error: ended.error) }
                }
            })
            exchange.attach(live)
        }
    }
}
