import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Carries out the router's decisions for a request of a `URLSession`: reads the body, asks the
/// ``Router``, then plays the answer through the exchange's ``ClientChannel``, follows a redirect
/// hop by hop (asking the router again for each hop), or sends the request live and records it.
/// What a session adds to a request — its configured header fields and cookies, its timeouts,
/// its delegate — is this executor's business, never the decision's.
struct SessionExecutor {
    let router: Router

    /// Answers `exchange`. Runs inside `startLoading`: never blocks.
    ///
    /// Every request is counted (``ExecutorAccess/noteRequest()``): by the router when it decides, here
    /// when it ends before that (a download on Linux, an answer from the URL cache, a body that
    /// cannot be read, a cancel while the body was read).
    func start(_ exchange: Exchange) {
        let channel = exchange.channel
        let task = channel.task
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            router.access.noteRequest()
            let shown = router.access.shown(Interaction.Request.capturing(exchange.request.value).request)
            channel.finish(error: RequestFailure(.downloadOnLinux, request: shown).urlError)
            return
        }
        #endif
        // The request as the session sends it costs a cookie-storage lookup; an instant replay by
        // method, URL and body needs none of it, and the replay benchmark would pay for it.
        let readsConfiguration = router.access.readsConfigurationFirst
        var urlRequest = readsConfiguration ? Self.asSent(exchange.request.value, by: exchange.configuration) : exchange.request.value
        if readsConfiguration { armResourceDeadline(of: exchange) }
        // The tape's cache, for a session that has one (a routed configuration's is the tape's;
        // `URLSession.shared`'s own disk cache is never read or written).
        if router.access.urlCache.caches, exchange.configuration?.urlCache != nil, let cache = router.access.cache.value,
            task is URLSessionDataTask, !(task is URLSessionUploadTask)
        {
            guard let sent = consult(cache, for: urlRequest, of: exchange) else { return router.access.noteRequest() }
            urlRequest = sent
        }
        // Most requests carry their body (or none) in the request: routed at once, with no
        // closure to allocate for a body read elsewhere.
        if let body = RequestBody.atHand(in: urlRequest, task: task) {
            return begin(.success(body), request: urlRequest, of: exchange)
        }
        let sendable = UncheckedSendable(urlRequest)
        if let found = RequestBody.obtain(
            for: urlRequest, task: task,
            later: { [self] found in
                channel.later {
                    guard !exchange.isStopped else { return router.access.noteRequest() }
                    self.begin(found, request: sendable.value, of: exchange)
                }
            })
        {
            begin(found, request: urlRequest, of: exchange)
        }
    }

    /// Does what a live session's URL cache does before `request` goes out: answers it from the
    /// stored response the session found (nil: answered, nothing more to do), or returns the
    /// request to send (with validators when it revalidates), the channel set to store the answer.
    private func consult(_ cache: URLCache, for request: URLRequest, of exchange: Exchange) -> URLRequest? {
        let configured = exchange.configuration?.requestCachePolicy ?? .useProtocolCachePolicy
        let policy = request.cachePolicy == .useProtocolCachePolicy ? configured : request.cachePolicy
        let stored = cache.cachedResponse(for: request)
        switch HTTPCache.lookup(request, stored: stored, policy: policy, now: Date()) {
        case .fresh(let stored):
            if let head = stored.response as? HTTPURLResponse {
                exchange.channel.deliverCached(head, body: stored.data)
                return nil
            }
            exchange.channel.cache(with: CacheWriter(cache: cache, request: request, revalidating: nil), known: exchange.knownSession)
            return request
        case .unavailable:
            let shown = router.access.shown(Interaction.Request.capturing(request).request)
            exchange.channel.finish(error: RequestFailure(.notInCache, request: shown).urlError)
            return nil
        case .revalidate(let stored, let conditional):
            exchange.channel.cache(with: CacheWriter(cache: cache, request: request, revalidating: stored), known: exchange.knownSession)
            return conditional
        case .miss:
            exchange.channel.cache(with: CacheWriter(cache: cache, request: request, revalidating: nil), known: exchange.knownSession)
            return request
        }
    }

    /// Runs the first hop with the body `found` for it, or fails the exchange when none could be read.
    private func begin(_ found: Result<RequestBody, URLError>, request urlRequest: URLRequest, of exchange: Exchange) {
        switch found {
        case .failure(let error):
            router.access.noteRequest()
            exchange.channel.finish(error: error)
        case .success(let body):
            var request = urlRequest
            // A body of form .request is the request's own httpBody already: a copy of the request saved.
            if let data = body.data, body.form != .request || request.httpBodyStream != nil {
                request.httpBodyStream = nil
                request.httpBody = data
            }
            run(Hop(request: request, body: body), of: exchange)
        }
    }

    /// Asks the router who answers `hop`, and carries it out. Runs inside `startLoading` or on the
    /// channel's work queue, where client calls are safe; a caller's request is decided off that
    /// queue when others wait for it (``DecisionQueue``).
    private func run(_ hop: Hop, of exchange: Exchange) {
        if hop.number == 0,
            DecisionQueue.shared.takesNext(unlessCheap: { hop.request.url.map(router.access.heads.answered) ?? true })
        {
            return runAside(hop, of: exchange)
        }
        act(on: decide(hop, of: exchange), hop: hop, of: exchange)
    }

    /// Decides `hop` on the ``DecisionQueue``, with the head of a replayed or stubbed answer built
    /// there too, then acts on it on the channel's work queue, after anything handed there before.
    private func runAside(_ hop: Hop, of exchange: Exchange) {
        let decisions = DecisionQueue.shared
        decisions.decide { [self] in
            guard !exchange.isStopped else {
                router.access.noteRequest()
                return decisions.actedOn()
            }
            let decision = decide(hop, of: exchange)
            let head = decision.answer.flatMap { answer in
                answer.challenges.isEmpty ? answer.response.flatMap { responseHead(for: $0, answering: hop) } : nil
            }
            let built = UncheckedSendable(head)
            exchange.channel.later { [self] in
                act(on: decision, head: built.value, hop: hop, of: exchange)
                decisions.actedOn()
            }
        }
    }

    /// Who answers `hop`: the router's decision for the request as captured.
    private func decide(_ hop: Hop, of exchange: Exchange) -> Decision {
        let urlRequest = hop.request
        let request = Interaction.Request.capturing(urlRequest).request
        // A miss shows every field the session sends; the request was read without them when the
        // configuration could not change the decision.
        return router.decide(
            request, sent: { urlRequest },
            shownOnMiss: {
                router.access.readsConfigurationFirst
                    ? nil : Interaction.Request.capturing(Self.asSent(urlRequest, by: exchange.configuration)).request
            }, newRequest: hop.number == 0)
    }

    /// Carries out `decision` for `hop`; `head` is the answer's response head when it was built
    /// already. Runs where client calls are safe.
    private func act(on decision: consuming Decision, head: HTTPURLResponse? = nil, hop: Hop, of exchange: Exchange) {
        switch consume decision {
        case .stub(let answer), .replay(let answer):
            reportSent(hop, of: exchange)
            play(answer, hop: hop, of: exchange, head: head)
        case .record(let readable):
            record(readable, hop: hop, of: exchange)
        case .passThrough(let readable):
            record(readable, hop: hop, of: exchange, keeping: false)
        case .refuse(let failure):
            exchange.channel.finish(error: failure.urlError)
        }
    }

    /// The response head `response` gives the request of `hop`, built once per tape for the same
    /// head (``ResponseHeads``); nil when its status cannot be a response's.
    private func responseHead(for response: Interaction.Response, answering hop: Hop) -> HTTPURLResponse? {
        router.access.heads.head(for: response, requestURL: hop.request.url ?? URL(fileURLWithPath: "/"))
    }

    /// Tells a progress delegate the body was sent, as a live upload would before its response.
    private func reportSent(_ hop: Hop, of exchange: Exchange) {
        guard hop.number == 0, let count = hop.body.data?.count, count > 0 else { return }
        TaskDelegateCalls.sentBody(
            of: exchange.channel.task, known: exchange.knownSession, count: count, expected: hop.body.expectedLength)
    }

    /// Plays `answer` to `hop`: asks its challenges first (``askChallenges(of:from:hop:of:)``),
    /// follows it when it is a redirect, otherwise runs its plan — inline when nothing waits, on a
    /// timer (with the request's timeout) when something does. `built` is the answer's head when
    /// it was built already (``runAside(_:of:)``).
    func play(_ decided: Answer, hop: Hop, of exchange: Exchange, head built: HTTPURLResponse? = nil) {
        if !decided.challenges.isEmpty { return askChallenges(of: decided, from: 0, hop: hop, of: exchange) }
        let channel = exchange.channel
        let urlRequest = hop.request
        let head = built ?? decided.response.flatMap { responseHead(for: $0, answering: hop) }
        let prepared =
            decided.response.map { response in
                head != nil
                    ? decided
                    : decided.failing(
                        with: RequestFailure(
                            .unbuildableStatus(response.status, stub: decided.source == .stub),
                            request: decided.request))
            } ?? decided
        if let head, prepared.endCode == nil, let next = Redirect.nextRequest(after: head, to: urlRequest, body: hop.body.data) {
            return follow(
                head, body: prepared.body, to: next, after: prepared.timing.duration, hop: hop, of: exchange, shownAs: prepared.request)
        }
        let answer = endedAsThePlatformEnds(prepared, url: urlRequest.url)
        let delayed = answer.isDelayed
        if delayed { armResourceDeadline(of: exchange) }
        let timeout = delayed ? Self.timeout(of: urlRequest, configuration: exchange.configuration) : nil
        let plan = answer.plan(
            inPieces: delayed && TaskInternals.deliversEveryChunk(channel.task, known: exchange.knownSession), timeout: timeout)
        // Every instant replay: played inside startLoading, with no closure kept for later.
        if plan.isImmediate {
            channel.playNow(plan, head: head, setsCookies: answer.setsCookies, body: answer.body) { answer.error($0, timeout: timeout) }
        } else {
            channel.play(plan, head: head, setsCookies: answer.setsCookies, body: answer.body) { answer.error($0, timeout: timeout) }
        }
    }

    /// `answer` to a request for `url` as this platform ends it: a `401` that FoundationNetworking
    /// would take for a challenge of its own (``KeptChallenge/takenForAChallengeOnThisPlatform(_:url:)``)
    /// ends with ``RequestFailure/Reason/challengeNotEndable`` after its head and body.
    func endedAsThePlatformEnds(_ answer: Answer, url: URL?) -> Answer {
        guard answer.endCode == nil, KeptChallenge.takenForAChallengeOnThisPlatform(answer.response, url: url) else { return answer }
        var ended = answer
        ended.failure = RequestFailure(.challengeNotEndable, request: answer.request)
        ended.endCode = ended.failure?.code
        return ended
    }

    /// Follows the redirect `head` (with `body`) answering `hop`, once `delay` has passed: stores
    /// its cookies, asks the caller's delegate, then runs the next hop — or delivers the redirect
    /// itself when the delegate says nil. The same on every platform (see ``Redirect``).
    private func follow(
        _ head: HTTPURLResponse, body: Data, to next: URLRequest, after delay: TimeInterval,
        hop: Hop, of exchange: Exchange, shownAs shown: Interaction.Request
    ) {
        let channel = exchange.channel
        if delay > 0 { armResourceDeadline(of: exchange) }
        let shownNext = UncheckedSendable(next)
        let sendable = UncheckedSendable((head, hop))
        channel.after(delay) { [self] in
            let (head, hop) = sendable.value
            guard !exchange.isStopped else { return }
            guard hop.number < Redirect.mostHops else {
                return channel.finish(error: RequestFailure(.tooManyRedirects, request: shown).urlError)
            }
            let task = channel.task
            let known = exchange.knownSession
            if let warning = Redirect.unaskedDelegateWarning(
                for: shown, taskHasDelegate: task?.delegate != nil, sessionFound: TaskInternals.session(of: task, known: known) != nil)
            {
                router.access.warnOnce(warning)
            }
            CookieSync.store(cookiesOf: head, for: hop.request, configuration: exchange.configuration)
            let proposed = CookieSync.addingCookies(to: shownNext.value, configuration: exchange.configuration)
            TaskDelegateCalls.redirect(task, known: known, response: head, proposing: proposed) { chosen in
                let chosen = UncheckedSendable(chosen.value)
                channel.later { [self] in
                    guard !exchange.isStopped else { return }
                    channel.restartClock()
                    guard let request = chosen.value else {
                        // Refused: the redirect is the response, with its body, as live.
                        return channel.deliver(head, body: body, error: nil)
                    }
                    let body = RequestBody(data: request.httpBody, form: .request)
                    run(Hop(request: request, body: body, number: hop.number + 1), of: exchange)
                }
            }
        }
    }

    /// Fails the exchange with `timedOut` when it outlasts the session's
    /// `timeoutIntervalForResource` (counted from `startLoading`), once per exchange.
    private func armResourceDeadline(of exchange: Exchange) {
        guard let seconds = exchange.configuration?.timeoutIntervalForResource, seconds > 0, seconds < CassetteRules.longestSeconds,
            exchange.armsDeadline()
        else { return }
        let access = router.access
        exchange.channel.expire(
            after: seconds - exchange.channel.age,
            with: {
                let shown = access.shown(Interaction.Request.capturing(exchange.request.value).request)
                return RequestFailure(.resourceTimeout(seconds: seconds), request: shown).urlError
            }, then: { exchange.expire() })
    }

    /// `request` as a live session of `configuration` sends it: the configuration's
    /// `httpAdditionalHeaders` under the request's own fields, and, when the request has no
    /// `Cookie` field, the cookies its storage holds for the URL. The platform adds both only
    /// inside its own HTTP protocol: FoundationNetworking shows a protocol the stored cookies but
    /// not the additional fields (docs/Architecture.md, "Linux facts"), Apple's loading system
    /// shows neither. Fields the request already has are kept, so this runs the same on every platform.
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

    // MARK: Recording

    /// Sends `hop` live and hands what comes back to the caller as it arrives and to the
    /// ``Recorder``, which keeps it by its policy (nothing, unless `keeping`); a redirect is followed as a replayed one is.
    private func record(_ request: Interaction.Request, hop: Hop, of exchange: Exchange, keeping: Bool = true) {
        let task = exchange.channel.task
        let access = router.access
        let known = exchange.knownSession
        let recording = LiveRecording(request, access: access, task: task, known: known, keeping: keeping)
        var outgoing = hop.request
        // The session's timeout, which FoundationNetworking does not copy into the request.
        if let timeout = Self.timeout(of: hop.request, configuration: exchange.configuration) { outgoing.timeoutInterval = timeout }
        let sendable = UncheckedSendable(outgoing)
        let channel = exchange.channel
        // Whether the body goes to the caller piece by piece, as it arrives: decided with the head.
        // (Asked here, in startLoading or on the task's work queue, where the answer can be read.)
        let everyChunk = TaskInternals.deliversEveryChunk(task, known: known)
        let streaming = Locked(false)
        let sent = SentBody(hop.body, firstHop: hop.number == 0, task: task, known: known)
        let progress = LiveForwarder.Progress(
            head: { head in
                // Only a caller that hears every piece can tell when the head came: the others get it
                // with the body at the end, one hop instead of two.
                guard everyChunk, Redirect.nextRequest(after: head, to: sendable.value, body: nil) == nil else { return }
                streaming.withLock { $0 = true }
                sent.reportTheRest()
                channel.later { channel.deliverHead(head) }
            },
            data: { data in
                if streaming.withLock({ $0 }) { channel.later { channel.deliverData(data) } }
            },
            sent: { piece, total, expected in
                sent.report(piece: piece, total: total, expected: expected)
            },
            challenge: { challenge, reply in
                // After the head and pieces handed over before it, as the caller would hear them live.
                let asked = UncheckedSendable(challenge)
                channel.later { TaskDelegateCalls.challenge(asked.value, of: task, known: known, reply) }
            },
            defaultCredential: {
                [rules = access.challengeRules, storage = UncheckedSendable(exchange.configuration?.urlCredentialStorage)] in
                rules.storedCredential(for: $0, in: storage.value)
            })
        // Off URLSession's shared queue: creating another session's task from it crashes.
        DispatchQueue.global().async { [self] in
            if exchange.isStopped {
                recording.abandon()
                return
            }
            let live = recording.send(
                sendable.value, body: hop.body, progress: progress,
                judge: { received in
                    var outcome = received
                    if exchange.isExpired {
                        // Saved as the caller saw it: the resource timeout cut the exchange.
                        outcome.response = nil
                        outcome.error = URLError(.timedOut)
                    }
                    return (outcome, exchange.isStopped && !exchange.isExpired)
                },
                onEnd: { ended in
                    if ended.response != nil { sent.reportTheRest() }
                    if ended.error == nil, let head = ended.response,
                        let next = Redirect.nextRequest(after: head, to: sendable.value, body: hop.body.data)
                    {
                        let redirect = UncheckedSendable((head, next))
                        channel.later { [self] in
                            follow(
                                redirect.value.0, body: ended.body, to: redirect.value.1, after: 0, hop: hop, of: exchange,
                                shownAs: access.shown(request))
                        }
                        return
                    }
                    if streaming.withLock({ $0 }) {
                        channel.soon(onClientQueue: ended.isOnClientQueue) { channel.deliverRest(body: Data(), error: ended.error) }
                    } else {
                        let head = UncheckedSendable(ended.response)
                        channel.soon(onClientQueue: ended.isOnClientQueue) {
                            channel.deliver(head.value, body: ended.body, error: ended.error)
                        }
                    }
                })
            exchange.attach(live)
        }
    }
}
