import Foundation

extension Router {
    /// How the router was set up by its ``Tape`` or ``StubSession``.
    struct Setup: Sendable {
        /// The cassette, or nil for a session that only stubs.
        var file: URL?
        var mode: RecordMode
        /// Whether requests without a recorded match may go to the network.
        var recordsNewRequests: Bool
        /// Whether recorded interactions answer requests (`false` in mode `all`).
        var replays: Bool
        /// Whether every request goes live, neither replayed nor recorded (``Tape/isLive``).
        var live = false
        /// Requests that go live in every mode.
        var ignored = IgnoredRequests.none
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
        /// Whether warnings are also written to standard error as they happen.
        var announcesWarnings = true
        /// The real time.
        var clock: @Sendable () -> Date = { Date() }
        /// How challenges go (``ChallengeRules``): the platform's, unless a test sets the other's.
        var challengeRules = ChallengeRules.platform
    }
}
