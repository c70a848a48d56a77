import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decides, for each request of a tape's or stub session's sessions and of its replay server,
/// who answers: a stub, the cassette's recording, the live network (recording what comes back),
/// or nobody (a clear error). It decides and keeps count; it does not act: the session executor
/// (``SessionExecutor``) and the wire executor (`TapeServer`) carry out its ``Decision``.
/// docs/Architecture.md, "The flow".
///
/// Its state is its own (`private`): an executor reaches the tape through what it decides and
/// through ``access`` (``ExecutorAccess``), the tape through the few questions below.
package final class Router: Sendable {
    private let setup: Setup
    private let redactor: Redactor
    private let playback: PlaybackQueue
    /// Asked first, before `Stubs.global` and the cassette.
    private let stubs: Stubs
    /// Keeps what the network answers, by the recording policy.
    private let recorder: Recorder
    private let log: Locked<Log>
    /// How a found recording is made ready to answer.
    private let preparation: ReplayPreparation
    /// What the executors may touch of the tape (``ExecutorAccess``).
    package let access: ExecutorAccess

    init(setup: Setup, redactor: Redactor, playback: PlaybackQueue, stubs: Stubs) {
        self.setup = setup
        self.redactor = redactor
        self.playback = playback
        self.stubs = stubs
        let recorder = Recorder(
            policy: RecordingPolicy(file: setup.file, savesConnectionFailures: setup.savesConnectionFailures, redactor: redactor))
        let log = Locked(Log())
        self.recorder = recorder
        self.log = log
        access = ExecutorAccess(recorder: recorder, setup: setup, redactor: redactor, log: log, rules: playback.rules, stubs: stubs)
        preparation = ReplayPreparation(
            playback: playback, redactor: redactor, latency: setup.latency, time: setup.time, cassette: setup.file,
            mode: setup.file == nil ? nil : setup.mode, clock: setup.clock)
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
    ///   - newRequest: false for a redirect's next hop, which is not another request of the caller's
    ///     (``Tape/Report/requests`` counts each request once).
    ///
    /// A recording that is a WebSocket conversation is refused here, and stays for an upgrade
    /// (``decideUpgrade(_:sent:)``).
    package func decide(
        _ request: Interaction.Request, sent: () -> URLRequest, shownOnMiss: () -> Interaction.Request? = { nil },
        newRequest: Bool = true
    ) -> Decision {
        switch decide(request, sent: sent, shownOnMiss: shownOnMiss, conversing: false, newRequest: newRequest) {
        case .decided(let decision): return decision
        case .converse(let replay):  // not reachable: a conversation is refused when not conversing
            return .refuse(RequestFailure(.webSocketConversation(cassette: replay.cassette), request: replay.request))
        }
    }

    /// Decides who answers a WebSocket upgrade the wire executor received: a recorded conversation,
    /// or whatever ``decide(_:sent:shownOnMiss:)`` would decide.
    package func decideUpgrade(_ request: Interaction.Request, sent: () -> URLRequest) -> UpgradeDecision {
        decide(request, sent: sent, shownOnMiss: { nil }, conversing: true, newRequest: true)
    }

    /// A replay is counted with the rest of its bookkeeping (``noteReplay(of:redactedValues:recordedAt:newRequest:)``,
    /// one lock); any other answer here.
    private func decide(
        _ request: Interaction.Request, sent: () -> URLRequest, shownOnMiss: () -> Interaction.Request?, conversing: Bool,
        newRequest: Bool
    ) -> UpgradeDecision {
        // Stubs first: a stubbed request is neither replayed nor recorded.
        if !stubs.isEmpty || !Stubs.global.isEmpty {
            let urlRequest = sent()
            if let (_, response) = stubs.answer(urlRequest, captured: request) ?? Stubs.global.answer(urlRequest, captured: request) {
                if newRequest { access.noteRequest() }
                return .decided(.stub(response.answer(to: redactor.forMatching(request).request)))
            }
        }
        // A live run without scenarios, or a request the tape ignores: live, never matched, recorded or missed.
        if (setup.live && !setup.replays) || (!setup.ignored.isEmpty && setup.ignored.ignores(url: request.url, sent: sent)) {
            if newRequest { access.noteRequest() }
            return .decided(.passThrough(request.withReadableBody()))
        }
        // Compared, and shown in errors, as it would be stored: never with its secrets.
        let (redacted, failedPattern) = redactor.forMatching(request)
        if let failedPattern {
            // A rule that backtracks without end, or that the engine gave up on: refused with why, the thread freed.
            if newRequest { access.noteRequest() }
            var budget: TimeInterval?
            if case .overBudget(let seconds) = failedPattern.failure { budget = seconds }
            return .decided(.refuse(RequestFailure(.redactionFailed(pattern: failedPattern.pattern, budget: budget), request: redacted)))
        }
        var usedUp = 0
        // Recordings `beforeReplay` declined for this request: as if absent, so the next one that matches is taken.
        var declined: [Int] = []
        replaying: while setup.replays {
            switch playback.take(redacted, live: request, declined: Set(declined)) {
            case .found(let index, let interaction, _, let repeated) where interaction.webSocket != nil && !conversing:
                // Not answered: the conversation stays for an executor that can hold it.
                if !repeated { playback.putBack(index) }
                if newRequest { access.noteRequest() }
                return .decided(.refuse(RequestFailure(.webSocketConversation(cassette: setup.file), request: redacted)))
            case .found(let index, let interaction, let redactedValues, let repeated) where interaction.webSocket != nil:
                guard let conversation = preparation.conversation(interaction, number: index + 1, redacted: redacted) else {
                    decline(index, repeated: repeated, into: &declined)
                    continue replaying
                }
                noteReplay(of: index, redactedValues: redactedValues, recordedAt: interaction.recordedAt, newRequest: newRequest)
                return .converse(conversation)
            case .found(let index, let interaction, let redactedValues, let repeated):
                guard let prepared = preparation.answer(interaction, number: index + 1, to: request, redacted: redacted) else {
                    decline(index, repeated: repeated, into: &declined)
                    continue replaying
                }
                noteReplay(of: index, redactedValues: redactedValues, recordedAt: interaction.recordedAt, newRequest: newRequest)
                if !prepared.movedTimes.isEmpty || !prepared.warnings.isEmpty {
                    log.withLock {
                        $0.movedTimes += prepared.movedTimes
                        $0.warnings += prepared.warnings
                    }
                }
                return .decided(.replay(prepared.answer))
            case .usedUp(let count):
                usedUp = count
            case .noMatch:
                break
            }
            break
        }
        if newRequest { access.noteRequest() }
        // A live run: what no scenario answers goes to the service.
        if setup.live { return .decided(.passThrough(request.withReadableBody())) }
        if setup.recordsNewRequests { return .decided(.record(request.withReadableBody())) }
        // Without a value that stands where a recording holds a placeholder (a secret the tape does not know).
        var shown = shownOnMiss().map { redactor.shown($0) } ?? redacted
        let hidden = playback.placeholderValues(in: request)
        if !hidden.isEmpty { shown = SecretScrubber(secrets: hidden, with: Redaction.replacement).applied(to: shown) }
        return .decided(.refuse(refusal(of: shown, usedUp: usedUp, declined: declined)))
    }

    /// Notes that `beforeReplay` declined the interaction at `index` for this request: it goes back
    /// unused (unless it was a repeat), and the tape's report lists it.
    private func decline(_ index: Int, repeated: Bool, into declined: inout [Int]) {
        if !repeated { playback.putBack(index) }
        declined.append(index)
        log.withLock { $0.declined.append(index + 1) }
    }

    /// Counts a replay of the interaction at `index`, notes a match that relied on redacted values,
    /// and starts the recording's clock at the first replay.
    private func noteReplay(of index: Int, redactedValues: Int, recordedAt: Date?, newRequest: Bool) {
        let requests = redactedValues > 0 ? playback.requests : []
        let match =
            requests.indices.contains(index)
            ? Tape.Report.RedactedMatch(
                interaction: index + 1, request: "\(requests[index].method) \(requests[index].url)",
                redactedValues: redactedValues) : nil
        log.withLock {
            if newRequest { $0.requests += 1 }
            $0.replayed += 1
            if let match { $0.redactedMatches.append(match) }
            // The clock is read at the first replay only.
            if $0.clockAnchor == nil, let recordedAt { $0.clockAnchor = (recordedAt, setup.clock()) }
        }
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
    private func refusal(of request: Interaction.Request, usedUp: Int, declined: [Int] = []) -> RequestFailure {
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
            notes: (setup.time.shifts
                ? [] : playback.expiredCookies(lackedBy: request, at: setup.clock()).map(UnmatchedRequestReport.expiredCookieNote))
                + (declined.isEmpty ? [] : [UnmatchedRequestReport.declinedNote(declined.map { $0 + 1 })])
        ).value
        log.withLock { $0.unmatched.append(miss) }
        return RequestFailure(.unmatched(miss), request: request)
    }

    /// Stops recording: cancels live requests still running.
    func shutDown() {
        recorder.shutDown()
    }
}

// MARK: What the tape asks

extension Router {
    /// Whether requests no recording answers are recorded.
    var recordsNewRequests: Bool { setup.recordsNewRequests }

    /// When the cassette's first interaction was recorded (``Tape/recordedAt``).
    var firstRecordedAt: Date? { playback.firstRecordedAt }

    /// How many interactions are the cassette's own (not of the cassettes beneath).
    var ownCount: Int { playback.ownCount }

    /// Which of the cassette's interactions answered, and when they were recorded.
    func usage() -> (replayed: [Int], unused: [Int], replayedAt: [Date?]) { playback.usage() }

    /// The cassette's interaction numbered `number` (from 1, in file order), until the recordings
    /// are let go of.
    func recordedInteraction(_ number: Int) -> Interaction? { playback.interaction(number: number) }

    /// Lets go of the recordings once the tape is ejected.
    func releaseRecordings() { playback.release() }

    /// What the requests came to, when the tape is ejected.
    struct Conclusion {
        /// The new recordings, in the order their requests started; a secret found in one is
        /// removed from all of them, also from those recorded before it was found.
        var recorded: [Interaction]
        var log: Log
        /// The cassette's interactions that answered nothing: `#3 GET https://…`.
        var unused: [String]
    }

    /// What the requests came to (``Tape/eject(testFailed:)`` asks once, after the sessions are detached):
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
    package var recordedOrigins: Set<String> {
        Set(playback.recordings.compactMap { OriginMove.origin(of: $0.request.url) })
    }
}
