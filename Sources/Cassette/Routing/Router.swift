import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decides, for each request of a tape's or stub session's sessions and of its replay server,
/// who answers: a stub, the cassette's recording, the live network (recording what comes back),
/// or nobody (a clear error). It decides and keeps count; it does not act: the session executor
/// (``SessionExecutor``) and the wire executor (``TapeServer``) carry out its ``Decision``.
/// docs/Architecture.md, "The flow".
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
        /// Who reads a miss report's advice.
        var adviceReader = AdviceReader.code
        /// Whether sessions keep their URL cache, and Cassette caches.
        var urlCache = URLCacheUse.removed
        /// Which day replayed responses speak of.
        var time = ReplayTime.recorded
        /// The real time.
        var clock: @Sendable () -> Date = { Date() }
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
        /// What ``ReplayTime/shifted`` moved.
        var movedTimes: [String] = []
        /// When the first replayed interaction was recorded, and when it was replayed: the
        /// recording's clock (``Tape/now``) runs from there.
        var clockAnchor: (recorded: Date, replayed: Date)?
    }

    let setup: Setup
    let redactor: Redactor
    let playback: PlaybackQueue
    /// Asked first, before `Stubs.global` and the cassette.
    let stubs: Stubs
    /// Keeps what the network answers, by the recording policy.
    let recorder: Recorder
    let log = Locked(Log())

    init(setup: Setup, redactor: Redactor, playback: PlaybackQueue, stubs: Stubs) {
        self.setup = setup
        self.redactor = redactor
        self.playback = playback
        self.stubs = stubs
        recorder = Recorder(
            policy: RecordingPolicy(file: setup.file, savesConnectionFailures: setup.savesConnectionFailures, redactor: redactor))
    }

    /// Decides who answers `request`: a stub, the recording, the network, or nobody. A replay
    /// takes its recording (it will not answer again unless repeats are allowed) and is counted;
    /// a refusal is logged. Everything else is left to the executor.
    ///
    /// - Parameters:
    ///   - request: the request as captured (``Interaction/Request/capturing(_:)``).
    ///   - sent: the request as it is sent, for the conditions of stubs; made only when stubs are installed.
    ///   - shownOnMiss: the request a refusal shows, when it should show more than `request` (the
    ///     session's configured fields); it is redacted here. Asked only on a refusal.
    ///   - conversing: whether the executor can hold a WebSocket conversation (the wire executor,
    ///     for a request that asks for an upgrade); otherwise a recorded conversation is refused.
    func decide(
        _ request: Interaction.Request, sent: () -> URLRequest, shownOnMiss: () -> Interaction.Request? = { nil },
        conversing: Bool = false
    ) -> Decision {
        // Stubs first: a stubbed request is neither replayed nor recorded.
        if !stubs.isEmpty || !Stubs.global.isEmpty {
            let urlRequest = sent()
            if let (_, response) = stubs.answer(urlRequest, captured: request) ?? Stubs.global.answer(urlRequest, captured: request) {
                return .stub(response.answer(to: redactor.forMatching(request)))
            }
        }
        // Compared, and shown in errors, as it would be stored: never with its secrets.
        let redacted = redactor.forMatching(request)
        var usedUp = 0
        if setup.replays {
            switch playback.take(redacted, live: request) {
            case .found(_, let interaction, _) where interaction.webSocket != nil && !conversing:
                return .refuse(RequestFailure(.webSocketConversation(cassette: setup.file), request: redacted))
            case .found(let index, let interaction, let redactedValues) where interaction.webSocket != nil:
                noteReplay(of: index, redactedValues: redactedValues, recordedAt: interaction.recordedAt)
                let recording = redactor.changesPlayback ? redactor.forPlayback(interaction) : interaction
                return .converse(
                    ConversationReplay(
                        response: recording.response ?? Interaction.Response(status: 101),
                        script: WebSocketScript(recording.webSocket ?? .init(), latency: recording.latency ?? setup.latency),
                        number: index + 1, request: redacted, cassette: setup.file, mode: setup.file == nil ? nil : setup.mode,
                        ignoredJSONPaths: playback.rules.ignoredJSONPaths))
            case .found(let index, let interaction, let redactedValues):
                noteReplay(of: index, redactedValues: redactedValues, recordedAt: interaction.recordedAt)
                let bound = playback.hasPlaceholders && !redactor.bindings.isEmpty
                var recording = interaction
                if redactor.changesPlayback || playback.rules.origin != .exact || bound {
                    recording = OriginMove.replayed(
                        redactor.forPlayback(interaction, bound: bound), for: request.url, rule: playback.rules.origin)
                }
                if setup.time.shifts { recording = shiftingTimes(of: recording, number: index + 1) }
                return .replay(recording.answer(to: redacted, latency: setup.latency, cassette: setup.file))
            case .usedUp(let count):
                usedUp = count
            case .noMatch:
                break
            }
        }
        if setup.recordsNewRequests { return .record(request.withReadableBody()) }
        // Without a value that stands where a recording holds a placeholder (a secret the tape does not know).
        var shown = shownOnMiss().map { redactor.forMatching($0) } ?? redacted
        let hidden = playback.placeholderValues(in: request)
        if !hidden.isEmpty { shown = SecretScrubber(secrets: hidden, with: Redaction.replacement).applied(to: shown) }
        return .refuse(refusal(of: shown, usedUp: usedUp))
    }

    /// Whether the session's configuration may decide who answers, so it is read before deciding:
    /// its `httpAdditionalHeaders` reach stubs, header matching and recordings. Otherwise it is
    /// read only when a replay waits (timeouts) or fails (the report shows every field).
    var readsConfigurationFirst: Bool {
        setup.recordsNewRequests || !playback.rules.headers.isEmpty || playback.rules.predicate != nil || !stubs.isEmpty
            || !Stubs.global.isEmpty
    }

    /// Counts a replay of the interaction at `index`, notes a match that relied on redacted values,
    /// and starts the recording's clock at the first replay.
    private func noteReplay(of index: Int, redactedValues: Int, recordedAt: Date?) {
        let requests = redactedValues > 0 ? playback.requests : []
        let match =
            requests.indices.contains(index)
            ? Tape.Report.RedactedMatch(
                interaction: index + 1, request: "\(requests[index].method) \(requests[index].url)",
                redactedValues: redactedValues) : nil
        log.withLock {
            $0.replayed += 1
            if let match { $0.redactedMatches.append(match) }
            // The clock is read at the first replay only.
            if $0.clockAnchor == nil, let recordedAt { $0.clockAnchor = (recordedAt, setup.clock()) }
        }
    }

    /// `recording` with its times moved to now (``ReplayTime/shifted``); what moved is logged.
    private func shiftingTimes(of recording: Interaction, number: Int) -> Interaction {
        guard let recordedAt = recording.recordedAt else {
            log.withLock { $0.warnings.append("#\(number): no recordedAt, so its times were replayed as recorded") }
            return recording
        }
        let shift = TimeShift(
            seconds: setup.clock().timeIntervalSince(recordedAt), jsonPaths: setup.time.jsonPaths.map(JSONPathPattern.init))
        let result = shift.apply(to: recording)
        if !result.moved.isEmpty || !result.unreadable.isEmpty {
            log.withLock {
                $0.movedTimes += result.moved.map { "#\(number) \($0)" }
                $0.warnings += result.unreadable.map { "#\(number): not a time it can move, replayed as recorded: \($0)" }
            }
        }
        return result.interaction
    }

    /// Logs a WebSocket client message that did not match its recording (``ConversationReplay/miss(at:_:)``):
    /// the tape's report lists it with the unmatched requests.
    func noteConversationMiss(_ miss: UnmatchedRequest) {
        log.withLock { $0.unmatched.append(miss) }
    }

    /// The recording's clock: when the first replayed interaction was recorded, plus the time
    /// since it was replayed; before the first replay, the cassette's first `recordedAt` plus the
    /// time since `opened`. Nil when nothing recorded says when (the real time applies).
    func recordingTime(opened: Date) -> Date? {
        let now = setup.clock()
        if let anchor = log.withLock({ $0.clockAnchor }) { return anchor.recorded + now.timeIntervalSince(anchor.replayed) }
        guard setup.replays, let first = playback.firstRecordedAt else { return nil }
        return first + now.timeIntervalSince(opened)
    }

    /// The refusal of `request` (redacted), logged: a stub session's `verify()` lists it, a tape's
    /// report shows it once.
    private func refusal(of request: Interaction.Request, usedUp: Int) -> RequestFailure {
        guard let file = setup.file else {
            stubs.noteUnanswered(request)
            let failure = RequestFailure(.noStub(installed: stubs.all.count), request: request)
            let miss = UnmatchedRequest(request: request, cassette: nil, mode: nil, candidates: [], usedUp: 0, description: failure.message)
            log.withLock { $0.unmatched.append(miss) }
            return failure
        }
        let miss = UnmatchedRequestReport(
            request: request, file: file, mode: setup.mode, rules: playback.rules,
            recorded: playback.recordings, usedUp: usedUp, reader: setup.adviceReader,
            notes: setup.time.shifts
                ? []
                : playback.expiredCookies(lackedBy: request, at: setup.clock()).map { cookie in
                    "the cookie \(cookie.name) set by interaction #\(cookie.interaction) expired on \(HTTPDate.format(cookie.expired)), "
                        + "so the session no longer sends it; replay with time shifted (Tape.Options(time: .shifted), --time shifted), "
                        + "or record the cassette again"
                }
        ).value
        log.withLock { $0.unmatched.append(miss) }
        return RequestFailure(.unmatched(miss), request: request)
    }

    /// What the requests came to, when the tape is ejected.
    struct Conclusion {
        /// The new recordings, in the order their requests started; a secret found in one is
        /// removed from all of them, also from those recorded before it was found.
        var recorded: [Interaction]
        var log: Log
        /// The cassette's interactions that answered nothing: `#3 GET https://…`.
        var unused: [String]
    }

    /// What the requests came to (``Tape/eject()`` asks once, after the sessions are detached):
    /// the recorder hands its recordings over and keeps none.
    func conclusion() -> Conclusion {
        Conclusion(recorded: redactor.removingKnownSecrets(from: recorder.takeInteractions()), log: log.current, unused: unused)
    }

    /// What the requests came to so far, while they go on: nothing is handed over.
    func progress() -> (recorded: Int, log: Log, unused: [String]) {
        (recorder.interactions.count, log.current, unused)
    }

    /// The cassette's interactions that answered nothing yet: `#3 GET https://…`.
    private var unused: [String] {
        playback.recordings.prefix(playback.ownCount).enumerated().filter { !$0.element.used }.map { index, recording in
            "#\(index + 1) \(recording.request.method) \(recording.request.url)"
        }
    }

    /// The origins (`scheme://host:port`) of the cassette's recordings.
    var recordedOrigins: Set<String> {
        Set(playback.recordings.compactMap { OriginMove.origin(of: $0.request.url) })
    }

    /// Stops recording: cancels live requests still running.
    func shutDown() {
        recorder.shutDown()
    }
}
