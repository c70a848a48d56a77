import Foundation

/// What an executor may touch of a tape besides the ``Decision`` the ``Router`` hands it: record
/// what the network answers (the ``Recorder``), note a recording's connection failure, show a
/// request as the tape shows it (redacted), read the tape's clock, its URL-cache setting and
/// whether it records. The session executor and the wire executor reach the tape only through
/// this, never through the router's fields, so what an executor can change is written here. A
/// class: an executor holds it with one reference, on every request.
final class ExecutorAccess: Sendable {
    /// Keeps what the network answers, by the tape's recording policy.
    let recorder: Recorder
    /// The tape's clock (a test may set it).
    let clock: @Sendable () -> Date
    /// How the tape's sessions use a URL cache.
    let urlCache: URLCacheUse
    /// Whether requests no recording answers are recorded.
    let recordsNewRequests: Bool
    /// Whether a connection failure is also said on standard error at once.
    private let announcesWarnings: Bool
    private let redactor: Redactor
    private let log: Locked<Router.Log>

    init(recorder: Recorder, setup: Router.Setup, redactor: Redactor, log: Locked<Router.Log>) {
        self.recorder = recorder
        clock = setup.clock
        urlCache = setup.urlCache
        recordsNewRequests = setup.recordsNewRequests
        announcesWarnings = setup.announcesWarnings
        self.redactor = redactor
        self.log = log
    }

    /// `request` as reports and errors show it: redacted as the tape stores requests.
    func shown(_ request: Interaction.Request) -> Interaction.Request {
        redactor.shown(request)
    }

    /// A warning for the tape's report (and standard error, unless the tape's options say not
    /// to), said once however many requests lead to it.
    func warnOnce(_ warning: String) {
        let new = log.withLock { log -> Bool in
            guard !log.warnings.contains(warning) else { return false }
            log.warnings.append(warning)
            return true
        }
        if new, announcesWarnings { StandardError.warn(warning) }
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
