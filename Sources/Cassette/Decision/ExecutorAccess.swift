import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an executor may touch of a tape besides the ``Decision`` the ``Router`` hands it: record
/// what the network answers (the ``Recorder``), count a request that ends before a decision, note
/// a recording's connection failure or a WebSocket message that missed, show a request as the
/// tape shows it (redacted, the ledger of secrets unchanged), read the tape's clock, its URL-cache
/// setting, whether it records and whether the session's configuration is read before deciding.
/// The session executor and the wire executor reach the tape only through this and the router's
/// decisions: the router's state is private to it, so what an executor can change is written
/// here. A class: an executor holds it with one reference, on every request.
package final class ExecutorAccess: Sendable {
    /// Keeps what the network answers, by the tape's recording policy.
    let recorder: Recorder
    /// The tape's clock (a test may set it).
    let clock: @Sendable () -> Date
    /// How the tape's sessions use a URL cache.
    let urlCache: URLCacheUse
    /// The tape's own URL cache, in memory, when its sessions keep one (``URLCacheUse/kept``): every
    /// session the tape routes that has a cache gets this one instead, so nothing a test stores
    /// outlives the tape (a configuration's own, `URLCache.shared` for `.default`, is a disk cache
    /// the next run would find) and no test's entries answer another's requests.
    let cache: UncheckedSendable<URLCache?>
    /// The response heads the tape's sessions replay, each built once (``ResponseHeads``).
    let heads = ResponseHeads()
    /// Whether requests no recording answers are recorded.
    package let recordsNewRequests: Bool
    /// How the platform goes through an authentication challenge, recording and replaying.
    let challengeRules: ChallengeRules
    /// Whether any request may go to the network: recorded, sent live, or ignored by the tape. A
    /// tape that only replays (mode `none`) forwards nothing, so no request can lead anywhere.
    package var forwards: Bool { recordsNewRequests || goesLiveOrIgnores }
    /// Whether a connection failure is also said on standard error at once.
    private let announcesWarnings: Bool
    private let redactor: Redactor
    private let log: Locked<Router.Log>
    /// What decides whether the configuration is read first.
    private let goesLiveOrIgnores: Bool
    private let rules: RequestMatching
    private let stubs: Stubs

    init(
        recorder: Recorder, setup: Router.Setup, redactor: Redactor, log: Locked<Router.Log>, rules: RequestMatching, stubs: Stubs
    ) {
        self.recorder = recorder
        clock = setup.clock
        urlCache = setup.urlCache
        cache = UncheckedSendable(setup.urlCache.keepsCache ? TapeURLCache(capacity: 32 << 20) : nil)
        recordsNewRequests = setup.recordsNewRequests
        challengeRules = setup.challengeRules
        announcesWarnings = setup.announcesWarnings
        goesLiveOrIgnores = setup.live || !setup.ignored.isEmpty
        self.redactor = redactor
        self.log = log
        self.rules = rules
        self.stubs = stubs
    }

    /// Counts a request that reached the tape (``Tape/Report/requests``). The router counts what
    /// it decides; an executor calls this for a request that ends before that (a body that cannot
    /// be read, a download task on Linux, a cancel).
    func noteRequest() {
        log.withLock { $0.requests += 1 }
    }

    /// Whether the session's configuration may decide who answers, so it is read before deciding:
    /// its `httpAdditionalHeaders` reach stubs, header matching, recordings and what goes live.
    /// Otherwise it is read only when a replay waits (timeouts) or fails (the report shows every field).
    var readsConfigurationFirst: Bool {
        recordsNewRequests || goesLiveOrIgnores || !rules.headers.isEmpty || rules.predicate != nil || !stubs.isEmpty
            || !Stubs.global.isEmpty
    }

    /// Logs a WebSocket client message that did not match its recording (``ConversationReplay/miss(at:_:)``):
    /// the tape's report lists it with the unmatched requests.
    package func noteConversationMiss(_ miss: UnmatchedRequest) {
        log.withLock { $0.unmatched.append(miss) }
    }

    /// `request` as reports and errors show it: redacted as the tape stores requests.
    func shown(_ request: Interaction.Request) -> Interaction.Request {
        redactor.shown(request)
    }

    /// A warning for the tape's report (and standard error, unless the tape's options say not
    /// to), said once however many requests lead to it.
    package func warnOnce(_ warning: String) {
        let new = log.withLock { log -> Bool in
            guard !log.warnings.contains(warning) else { return false }
            log.warnings.append(warning)
            return true
        }
        if new, announcesWarnings { StandardError.warn(warning) }
    }

    /// A WebSocket task (or a request that opens one) the session's protocol left to the loading
    /// system: it reaches the network, neither recorded nor replayed, in every mode. The report
    /// says so once per URL (shown without its query, as the tape shows requests), with where a
    /// WebSocket is recorded and replayed instead.
    func noteWebSocketLeft(_ request: URLRequest) {
        let url = shown(Interaction.Request.capturing(request).request).url
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        warnOnce(
            "a WebSocket to \(path) went to the network, neither recorded nor replayed: a URLSession protocol cannot hold a "
                + "WebSocket conversation. Record and replay it through tape.serve() (a local server the WebSocket task connects "
                + "to; see WebSockets in the documentation).")
    }

    /// A recording that failed to connect, kept by the policy's word (`warning` says what): the
    /// tape's report lists it, and standard error says it at once (unless the tape's options say not to).
    func noteConnectionFailure(_ warning: String) {
        log.withLock {
            $0.connectionFailures += 1
            $0.warnings.append(warning)
        }
        if announcesWarnings { StandardError.warn(warning) }
    }
}
