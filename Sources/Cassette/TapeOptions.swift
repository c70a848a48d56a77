import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Tape {
    /// Options beyond the record mode and the matching rules.
    public struct Options: Sendable {
        /// When every recorded interaction matching a request has been used, answer with the
        /// last of them again instead of failing as unmatched. Default `false`: each recorded
        /// interaction answers once, as the server answered once.
        public var allowsRepeatedReplays: Bool
        /// How replayed responses are timed (see `Latency`). `nil`, the default: as
        /// `CASSETTE_LATENCY` says, else instant. An interaction's own `"latency"` in the file
        /// wins over this.
        public var latency: Latency?
        /// What is removed from interactions before they are stored (see ``Redaction``). Default:
        /// the values of `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`.
        public var redaction: Redaction
        /// Rewrites each recorded interaction before redaction and storage; return `nil` to leave
        /// it out of the cassette (the caller still gets the live response).
        ///
        /// ```swift
        /// Tape.Options(beforeRecord: { interaction in
        ///     var interaction = interaction
        ///     interaction.response?.headers["Date"] = nil     // keep re-recordings diff-free
        ///     return interaction
        /// })
        /// ```
        public var beforeRecord: (@Sendable (Interaction) -> Interaction?)?
        /// Rewrites each recorded interaction just before it replays (after placeholders were
        /// given back their secrets); the cassette file is not changed. Return `nil` to decline
        /// the recording: for that request it is as if absent — the next recording that matches
        /// answers, or the record mode decides (record it again, or a miss that names the declined
        /// recording) — and ``Tape/Report/declined`` lists it.
        ///
        /// ```swift
        /// Tape.Options(beforeReplay: { interaction in
        ///     interaction.response?.status == 500 ? nil : interaction    // never replay a recorded 500
        /// })
        /// ```
        public var beforeReplay: (@Sendable (Interaction) -> Interaction?)?
        /// What the `.cassette` trait and `withCassette` say about recorded interactions that
        /// answered no request. Default ``UnusedInteractions/ignore``.
        public var unusedInteractions: UnusedInteractions
        /// What happens when the cassette holds interactions older than an age; `nil`, the
        /// default: nothing.
        public var staleness: Staleness?
        /// Whether a request that could not reach its server at all while recording
        /// (`cannotConnectToHost`, `cannotFindHost`, `notConnectedToInternet`, `dnsLookupFailed`)
        /// is saved as a recorded outage. Default `false`: the caller gets the error as live, but
        /// the cassette does not keep it, and the report (and standard error) say so — a recording
        /// made while offline must not become the truth every later run replays. Set `true` to
        /// capture an outage on purpose. Errors after the server answered (a timeout, a lost
        /// connection) are always saved.
        public var savesConnectionFailures: Bool
        /// What happens when what is about to be saved still looks like it holds a secret after
        /// redaction (see ``SecretCheck``). Default ``SecretCheck/warn``.
        public var secretCheck: SecretCheck
        /// What may change when the same traffic is recorded again (record mode `all`) without
        /// rewriting an interaction: dates, ages, request ids, timing within ±50 % or ±50 ms
        /// (see ``IgnoredChanges``). Unchanged traffic leaves the file byte-identical.
        public var ignoredChanges: IgnoredChanges = .default
        /// Whether the tape's sessions keep a `URLCache` and cache responses as a live session on
        /// the same platform does (see ``URLCacheUse``). Default ``URLCacheUse/removed``: every
        /// request reaches the cassette.
        public var urlCache: URLCacheUse = .removed
        /// Which day replayed responses speak of: the recording's (``ReplayTime/recorded``, the
        /// default; read ``Tape/now``) or today's (``ReplayTime/shifted``).
        public var time: ReplayTime = .recorded
        /// Whether the test is expected to send requests through the tape. Default `true`: a tape
        /// that records, or replays an empty cassette, and that no request reached says so when it
        /// is ejected (a warning in the report, on standard error, and an issue of severity warning
        /// through the `.cassette` trait), since the code under test most likely used another
        /// session: the cassette it saved replays nothing, and the requests went to the network
        /// (offline or on CI, a bare connection error). Set `false` for a test that checks that
        /// nothing is sent.
        public var expectsRequests = true
        /// Whether ejecting a tape that missed requests writes them as a cassette beside its own
        /// (`feed.json` → `feed.misses.json`): each missed request followed by its closest
        /// recordings, with what differs on each as notes; `cassette view feed.misses.json` shows
        /// it as a page. Also on when `CASSETTE_WRITE_MISSES=1`. Default `false`.
        public var writesMisses = false
        /// Whether a tape that recorded saves when its test failed. Default `false`: a recording
        /// made by a failing test is often the failure itself (a 500, a flow cut half-way), and
        /// saved it would replay as the truth on every later run; not saved, the next run records
        /// again. One line names each cassette not saved. The `.cassette` trait learns of the
        /// test's failures (its issues, and a thrown error), `withCassette` of its body throwing,
        /// and ``Tape/eject(testFailed:)`` is told. `CASSETTE_SAVE_ON_FAILURE=1` saves anyway.
        public var savesWhenTestFails = false
        /// Requests that always go live, in every mode and on CI: never matched, recorded,
        /// reported as misses or refused (see ``IgnoredRequests``). Default ``IgnoredRequests/none``.
        public var ignoredRequests: IgnoredRequests = .none
        /// The JSON Schema a new JSON cassette names in its `"$schema"` member, for editors that
        /// offer completion and checking while a cassette is edited by hand. Default `nil`: new
        /// cassettes name none, because no one address suits every checkout (SwiftPM and Xcode
        /// keep the package in different places) and an editor mapping (`Cassettes/**/*.json` →
        /// `docs/cassette.schema.json`, see the README) covers every cassette without touching
        /// them. A cassette that already names a schema keeps it whatever this says.
        ///
        /// ```swift
        /// let options = Tape.Options(schemaReference: "../.build/checkouts/Cassette/docs/cassette.schema.json")
        /// ```
        public var schemaReference: String?
        /// Whether warnings are also written to standard error as they happen (the default). The
        /// package's tests that provoke warnings turn it off and read them from the report, so
        /// `swift test` shows failures, not expected noise.
        package var announcesWarnings = true
        /// The real time, as the tape reads it: `Date()`, or a clock a test sets.
        package var clock: @Sendable () -> Date = { Date() }
        /// Who reads a miss report's "To fix:" — code (the default), the `.cassette` trait or a
        /// `cassette` command — so it names options, the trait's arguments or flags.
        package var adviceReader = AdviceReader.code
        /// Cassettes beneath the tape's own, in order: a request none of the cassette's own
        /// interactions answers is matched against the first of them, then the next. Replay only:
        /// they are never saved to nor reported unused. (A folder server's `{"cassettes": […]}`.)
        package var underlyingCassettes: [URL] = []
        /// The test that opens the tape (`Feed/loads()`) and its source file, for the ledger.
        package var openedBy: (test: String, file: String)?
        /// How challenges go on this platform (``ChallengeRules``): the tests set the other platform's.
        package var challengeRules = ChallengeRules.platform

        /// Options with their defaults.
        ///
        /// - Parameters:
        ///   - allowsRepeatedReplays: See ``allowsRepeatedReplays``.
        ///   - latency: See ``latency``.
        ///   - redaction: See ``redaction``.
        ///   - beforeRecord: See ``beforeRecord``.
        ///   - beforeReplay: See ``beforeReplay``.
        ///   - unusedInteractions: See ``unusedInteractions``.
        ///   - staleness: See ``staleness``.
        ///   - savesConnectionFailures: See ``savesConnectionFailures``.
        ///   - secretCheck: See ``secretCheck``.
        ///   - ignoredChanges: See ``ignoredChanges``.
        ///   - urlCache: See ``urlCache``.
        ///   - time: See ``time``.
        ///   - expectsRequests: See ``expectsRequests``.
        ///   - ignoredRequests: See ``ignoredRequests``.
        ///   - savesWhenTestFails: See ``savesWhenTestFails``.
        ///   - writesMisses: See ``writesMisses``.
        ///   - schemaReference: See ``schemaReference``.
        public init(
            allowsRepeatedReplays: Bool = false,
            latency: Latency? = nil,
            redaction: Redaction = .default,
            beforeRecord: (@Sendable (Interaction) -> Interaction?)? = nil,
            beforeReplay: (@Sendable (Interaction) -> Interaction?)? = nil,
            unusedInteractions: UnusedInteractions = .ignore,
            staleness: Staleness? = nil,
            savesConnectionFailures: Bool = false,
            secretCheck: SecretCheck = .warn,
            ignoredChanges: IgnoredChanges = .default,
            urlCache: URLCacheUse = .removed,
            time: ReplayTime = .recorded,
            expectsRequests: Bool = true,
            ignoredRequests: IgnoredRequests = .none,
            savesWhenTestFails: Bool = false,
            writesMisses: Bool = false,
            schemaReference: String? = nil
        ) {
            self.writesMisses = writesMisses
            self.schemaReference = schemaReference
            self.savesWhenTestFails = savesWhenTestFails
            self.ignoredRequests = ignoredRequests
            self.expectsRequests = expectsRequests
            self.time = time
            self.ignoredChanges = ignoredChanges
            self.urlCache = urlCache
            self.allowsRepeatedReplays = allowsRepeatedReplays
            self.latency = latency
            self.redaction = redaction
            self.beforeRecord = beforeRecord
            self.beforeReplay = beforeReplay
            self.unusedInteractions = unusedInteractions
            self.staleness = staleness
            self.savesConnectionFailures = savesConnectionFailures
            self.secretCheck = secretCheck
        }
    }
}
