import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A cassette in use: a cassette file, a record mode and matching rules, and the `URLSession`
/// whose requests it records or replays.
///
/// Open a tape, give its ``session`` to the code under test, eject it when done:
///
/// ```swift
/// let tape = try Tape(named: "Users/fetch")       // Cassettes/Users/fetch.json in this package
/// let client = APIClient(session: tape.session)
/// let user = try await client.user(id: 42)
/// try tape.eject()                                 // saves what was recorded, atomically
/// ```
///
/// The first run records live traffic into the file; later runs replay it offline (see
/// ``RecordMode``). Each tape has its own session, so tests running in parallel never see each
/// other's traffic. For your own `URLSessionConfiguration`, call ``configure(_:)`` before creating
/// the session. In tests, the `.cassette` test trait or `withCassette(_:)`
/// open and eject the tape for you.
///
/// Replayed interactions answer at once, in the order recorded. A recorded transport error
/// (`"error": {"code": "timedOut"}`) replays as a `URLError` with that code. A request that
/// matches nothing fails with a `URLError` whose code is ``unmatchedRequestErrorCode`` and whose
/// description names the request, the cassette and its mode; it never reaches the network unless
/// the mode records.
public final class Tape: Sendable {
    /// The `URLError` code of a request that matches no recorded interaction and may not be
    /// recorded: `.resourceUnavailable`. Its `localizedDescription` says which request, which
    /// cassette and which mode.
    public static let unmatchedRequestErrorCode = RequestFailure.unmatchedCode

    /// The tape of the current test, set by the `.cassette` test trait and by
    /// `withCassette(_:)`.
    @TaskLocal public static var current: Tape?

    /// The cassette file.
    public let file: URL
    /// The record mode this tape runs in, after `CASSETTE_RECORD_MODE` and `CI` were applied.
    public let mode: RecordMode
    /// The rules that decide whether a recorded interaction answers a request.
    public let matching: RequestMatching
    /// How replayed responses are timed, after `CASSETTE_LATENCY` was applied; an interaction's
    /// own `"latency"` in the file wins over it.
    public let latency: Latency
    /// A session whose requests go through this tape (an ephemeral configuration without a URL
    /// cache; see ``configure(_:)``).
    public var session: URLSession { routes.session }

    /// Cancels the requests of ``session`` still answering (a replay waiting for its latency, a
    /// recording on its way): each ends as cancelled, and so does any that starts answering
    /// afterwards. The `cassette` tool calls it on a signal, before it ejects the tape.
    package func cancelRequestsInFlight() { routes.cancelRequestsInFlight() }

    /// When the cassette was recorded: the `recordedAt` of its first interaction that says so
    /// (each interaction's own is `Interaction.recordedAt`); nil for a cassette that does not
    /// exist yet or was written without times.
    public var recordedAt: Date? { router.firstRecordedAt }

    /// The time for the code under test: the recording's clock while replaying, the real time
    /// while recording.
    ///
    /// While the tape replays, it starts at the `recordedAt` of the first interaction replayed
    /// (before that, of the cassette's first interaction) and runs on with real time; so code that
    /// compares a replayed expiry, a `Date` field or a token's `exp` with "now" sees what it saw
    /// when the cassette was recorded (with `Latency.recorded` the replay's waits are the
    /// recorded ones, so the clock runs as it did then). While recording, and with ``Options/time``
    /// ``ReplayTime/shifted`` (which moves the recording to today), it is the real time.
    ///
    /// Hand it to code that takes its clock:
    ///
    /// ```swift
    /// let client = FeedClient(session: tape.session, now: { tape.now })      // a () -> Date
    /// // swift-dependencies: withDependencies { $0.date = DateGenerator { tape.now } } operation: { … }
    /// ```
    public var now: Date {
        if options.time.shifts { return options.clock() }
        return router.recordingTime(opened: openedAt) ?? options.clock()
    }
    /// The options the tape was opened with.
    public let options: Options

    /// What the test keeps with the cassette — the API version it was recorded against, the
    /// account used, a ticket — read from the file when the tape opens (before the first request;
    /// not in mode `all`, which replaces the file and keeps its metadata unless the test sets it)
    /// and saved with what the tape records. Keys starting with `cassette` or `$` are reserved: a
    /// save with one fails and says so. A live tape (``isLive``) reads and saves none.
    ///
    /// ```swift
    /// if tape.mode != .none { tape.metadata["apiVersion"] = "2026-10-01" }   // recording: say against what
    /// #expect(tape.metadata["apiVersion"] == "2026-10-01")                    // replaying: read it back
    /// ```
    public var metadata: [String: MetadataValue] {
        get { storedMetadata.current.values }
        set { storedMetadata.withLock { $0 = (newValue, changed: true) } }
    }
    /// Stubs for this tape's sessions, asked before the cassette: a request a stub answers is
    /// neither replayed nor recorded.
    ///
    /// ```swift
    /// tape.stubs.add(.path("/feed")) { _ in .error(.timedOut) }   // the rest replays from the cassette
    /// ```
    public let stubs = Stubs()

    package let router: Router
    let routes: ProtocolClasses
    /// When the tape was opened, by its clock.
    let openedAt: Date
    /// The private parts of the platform's networking not found, said by the first tape of the
    /// process only (``NetworkingInternals``): on standard error as it opens, in its report's
    /// warnings when it is ejected.
    let platformWarnings: [String]
    /// Whether ejecting writes the misses beside the cassette (``Options/writesMisses``, `CASSETTE_WRITE_MISSES`).
    let writesMisses: Bool
    /// Whether saving prints what was written (``SaveAnnouncement``).
    let announcesSaves: Bool
    let fileExisted: Bool
    /// The scenarios a re-recording keeps as they were (``TapePlan/keptScenarios``).
    let keptScenarios: [Interaction]
    /// Whether a tape that recorded nothing creates its new cassette empty: not one of the
    /// `cassette` tool's (``Ledger/toolRunVariable``; ``SavePolicy``).
    let createsEmptyCassette: Bool
    /// Whether the tape is a pass-through (``isLive``).
    let isLive: Bool
    /// ``metadata``, and whether the test changed it.
    let storedMetadata: Locked<(values: [String: MetadataValue], changed: Bool)>
    /// Whether what a failing test recorded is saved (``Options/savesWhenTestFails``, `CASSETTE_SAVE_ON_FAILURE`).
    let savesWhenTestFails: Bool
    /// Where ``eject(testFailed:)`` records what the tape did (`Ledger`), or nil when the ledger is off.
    let ledger: LedgerWriter?
    /// Whether a stale cassette fails the test, and what to add to the message; nil when the
    /// tape does not judge staleness when it is ejected.
    let staleJudgment: (fails: Bool, note: String)?
    let state = Locked((ejected: false, holdsSharedSession: false))
    let servers = Locked<[any EndsWithTape]>([])

    /// Opens the cassette `name`, in the package's `Cassettes/` folder unless told otherwise.
    ///
    /// ```swift
    /// let tape = try Tape(named: "Users/fetch")                            // <package>/Cassettes/Users/fetch.json
    /// let tape = try Tape(named: "Users/fetch", folder: "Fixtures")         // Fixtures/ beside this test file
    /// let tape = try Tape(named: "Users/fetch", bundle: .module)            // also from the test bundle, on a device
    /// ```
    ///
    /// - Parameters:
    ///   - name: A relative path; `"Users/fetch"` is `Cassettes/Users/fetch.json` (or the
    ///     `.http` or `.har` file of that name when only it exists). End it in `.http` or `.har` to
    ///     keep the cassette as HTTP messages or HAR (`CassetteFormat`): `"Users/fetch.http"` is
    ///     `Cassettes/Users/fetch.http`. A name with `..` or a hidden step (`.x`) is refused; so is
    ///     one whose symbolic links lead out of the folder. The folder server and the `cassette`
    ///     tool read names the same way.
    ///   - folder: The folder holding cassettes: absolute, or relative to the folder of the test
    ///     file. `nil`: `CASSETTE_FOLDER` from `environment` (absolute, or relative to the package
    ///     root), else `Cassettes/` in the package whose `Package.swift` is above `filePath`, else
    ///     (an Xcode project without one) `Cassettes/` beside the test file.
    ///   - bundle: Where to look when the file is not in the folder: a test bundle's resources
    ///     (`Bundle.module`, `Bundle(for: Self.self)`), under `Cassettes/` or at its root. For runs
    ///     on a device, where the source tree is out of reach; such a cassette can only replay.
    ///   - filePath: The test's source file, to find the folders above; leave the default.
    ///   - mode: The record mode, `once` by default. `CASSETTE_RECORD_MODE` in `environment`
    ///     overrides it, and so does `CI`, which means `none` (see ``RecordMode``).
    ///   - matching: How requests are matched with recorded ones.
    ///   - options: Further options.
    ///   - environment: Where `CASSETTE_RECORD_MODE`, `CI`, `CASSETTE_LATENCY` and `CASSETTE_FOLDER` are read.
    /// - Throws: ``CassetteError`` when the name, the mode or the latency is wrong, when the
    ///   cassette is missing in mode `none`, or when one found in `bundle` would be recorded into;
    ///   `CassetteFormatError` when the file is malformed.
    public convenience init(
        named name: String,
        folder: String? = nil,
        bundle: Bundle? = nil,
        filePath: String = #filePath,
        mode: RecordMode = .once,
        matching: RequestMatching = .default,
        options: Options = Options(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        try self.init(
            TapeSettings(
                name: name, folder: folder, bundle: bundle, filePath: filePath, mode: mode, matching: matching, options: options,
                environment: environment))
    }

    /// Opens the tape `settings` describe: where every public way of opening one by name arrives.
    package convenience init(_ settings: TapeSettings) throws {
        let (file, inBundle) = try CassetteLocation.file(
            named: settings.name, folder: settings.folder, bundle: settings.bundle, filePath: settings.filePath,
            environment: settings.environment)
        try self.init(
            file: file, mode: settings.mode, matching: settings.matching, options: settings.options, environment: settings.environment,
            inBundle: inBundle)
    }

    /// Opens the cassette at `file`, in the format its extension names (`.json`, `.http`, `.har`;
    /// JSON for any other).
    ///
    /// - Throws: as ``init(named:folder:bundle:filePath:mode:matching:options:environment:)``.
    public convenience init(
        file: URL,
        mode: RecordMode = .once,
        matching: RequestMatching = .default,
        options: Options = Options(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        try self.init(file: file, mode: mode, matching: matching, options: options, environment: environment, inBundle: false)
    }

    /// Opens the cassette at `file` by its plan (``TapePlan``): what the settings, the environment
    /// and the disk say opening it means.
    private init(
        file: URL, mode: RecordMode, matching: RequestMatching, options: Options, environment: [String: String], inBundle: Bool
    ) throws {
        #if os(watchOS)
        throw CassetteError.unsupportedPlatform("watchOS")
        #endif
        let plan = try TapePlan(
            file: file, requested: mode, options: options, environment: environment, inBundle: inBundle, now: options.clock())
        let latency = try Latency.resolve(requested: options.latency, environment: environment)
        let redactor = try Redactor(options.redaction, beforeRecord: options.beforeRecord, beforeReplay: options.beforeReplay)
        self.staleJudgment = plan.staleJudgment
        self.options = options
        self.file = file
        self.mode = plan.mode
        self.matching = matching
        self.latency = latency
        self.fileExisted = plan.fileExisted
        keptScenarios = plan.keptScenarios
        createsEmptyCassette = environment[Ledger.toolRunVariable] != "1"
        storedMetadata = Locked((plan.stored?.metadata ?? [:], changed: false))
        isLive = plan.live
        savesWhenTestFails = SavePolicy.savesWhenTestFails(option: options.savesWhenTestFails, environment: environment)
        openedAt = options.clock()
        platformWarnings = NetworkingInternals.firstTapeWarnings()
        for warning in platformWarnings { StandardError.warn(warning) }
        ledger = Ledger.folder(for: file, testFile: options.openedBy?.file, environment: environment).flatMap {
            LedgerWriter.shared(in: $0, environment: environment)
        }
        writesMisses = options.writesMisses || MissesFile.isWanted(in: environment)
        announcesSaves =
            options.announcesWarnings
            && SaveAnnouncement.isWanted(environment: environment)
        router = Router(
            setup: Router.Setup(
                file: file, mode: plan.mode,
                recordsNewRequests: plan.recordsNewRequests,
                replays: plan.replays,
                live: plan.live,
                ignored: options.ignoredRequests,
                latency: latency,
                savesConnectionFailures: options.savesConnectionFailures,
                adviceReader: options.adviceReader,
                urlCache: options.urlCache,
                time: options.time,
                announcesWarnings: options.announcesWarnings,
                clock: options.clock,
                challengeRules: options.challengeRules
            ),
            redactor: redactor,
            playback: PlaybackQueue(
                plan.replayed, rules: matching, allowsRepeats: options.allowsRepeatedReplays, redactor: redactor,
                layerEnds: plan.layerEnds),
            stubs: stubs
        )
        routes = ProtocolClasses(router: router, announcesWarnings: options.announcesWarnings)
        // New recordings join the cassette: their placeholders are numbered after its own.
        if plan.recordsNewRequests, plan.ownCount > 0 { redactor.continueNumbering(after: Array(plan.replayed.prefix(plan.ownCount))) }
    }

    /// Routes the sessions made from `configuration` through this tape: puts the tape's protocol
    /// first in its `protocolClasses`, and removes its `urlCache` unless ``Options/urlCache`` is
    /// ``URLCacheUse/kept``: every request is the cassette's to answer, so a lookup would only cost
    /// time (about 30 µs a request on Linux). Call before creating the session.
    ///
    /// The tape keeps a reference to `configuration`: its `httpAdditionalHeaders`, cookie
    /// storage and policies, and timeouts apply to the requests of the sessions made from it, on
    /// every platform, as a live session applies them (a protocol on Apple platforms cannot ask
    /// the session for them). Set them before creating the session; changes made to the
    /// configuration after that reach the tape but not the session. Once the tape is ejected,
    /// a session made from `configuration` fails its requests with an "already ejected" error —
    /// it never reaches a later tape.
    ///
    /// ```swift
    /// let configuration = URLSessionConfiguration.default
    /// configuration.httpAdditionalHeaders = ["X-Client": "tests"]
    /// tape.configure(configuration)
    /// let session = URLSession(configuration: configuration, delegate: myDelegate, delegateQueue: nil)
    /// ```
    ///
    /// A background configuration (`.background(withIdentifier:)`) cannot go through a cassette:
    /// on Apple platforms its transfers run in a system process that never asks Cassette's
    /// protocol, so they would go live unrecorded. `configure` says so on standard error at
    /// once, fails the requests that do reach the tape (as they do on Linux) with that
    /// explanation, and ``eject(testFailed:)`` then throws
    /// ``CassetteError/backgroundSessionNotRoutable(identifier:)`` after saving what the tape
    /// recorded — on every platform alike, so a test that passes on Linux does not go live on a Mac.
    /// It does not throw itself, so that it can be called where a client library hands you its
    /// configuration in a closure that cannot throw:
    ///
    /// ```swift
    /// let client = APIClient(baseURL: baseURL) { configuration in
    ///     tape.configure(configuration.sessionConfiguration)
    /// }
    /// ```
    public func configure(_ configuration: URLSessionConfiguration) {
        routes.configure(configuration)
    }

    /// A session for the code under test made from `configuration`, routed through this tape,
    /// with `delegate`: ``configure(_:)`` and `URLSession(configuration:delegate:delegateQueue:)`
    /// in one call. Prefer it when the session has a delegate: Cassette then knows which session
    /// runs a task, so on Apple platforms it asks that delegate about redirects (and tells it of
    /// upload progress) without looking the session up through the task, which is not public API.
    ///
    /// ```swift
    /// let session = tape.makeSession(configuration: .default, delegate: RedirectPolicy())
    /// let client = APIClient(session: session)
    /// ```
    ///
    /// A background configuration is refused as ``configure(_:)`` refuses it.
    public func makeSession(
        configuration: URLSessionConfiguration = .ephemeral, delegate: (any URLSessionDelegate)? = nil,
        delegateQueue: OperationQueue? = nil
    ) -> URLSession {
        routes.makeSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    /// What the tape did so far, while it is still in use: requests replayed, recorded (not saved
    /// yet) and unmatched, and the interactions that answered nothing yet. ``eject(testFailed:)`` returns
    /// the final report.
    ///
    /// An exchange counts as recorded before its caller can see its end: a `URLSession` task
    /// completes, and a client of the tape's server (`CassetteServer`) reads the last byte of its
    /// response, only once the recording is kept. So a test may assert on the count right after
    /// its request returns.
    public var reportSoFar: Report {
        let (recorded, log, unused) = router.progress()
        var report = Report(
            file: file, mode: mode, requests: log.requests, replayed: log.replayed, recorded: recorded, unmatched: log.unmatched,
            unusedInteractions: unused, stale: stale, saved: false, warnings: log.warnings, redactedMatches: log.redactedMatches,
            movedTimes: log.movedTimes)
        report.declined = log.declined
        report.isLive = isLive
        return report
    }

    /// Keeps `server` (a `TapeServer`, which `CassetteServer` adds) to stop it at ``eject(testFailed:)``.
    ///
    /// - Throws: ``CassetteError/alreadyEjected(file:)``: the server is not kept, and the caller stops it.
    package func adopt(_ server: any EndsWithTape) throws {
        try state.withLock { state in
            if state.ejected { throw CassetteError.alreadyEjected(file: file.path) }
            servers.withLock { $0.append(server) }
        }
    }

    /// Whether ``eject(testFailed:)`` was called.
    package var isEjected: Bool { state.withLock { $0.ejected } }

    /// Also routes `URLSession.shared` through this tape until it is ejected.
    ///
    /// Only one tape at a time can own `.shared`: this waits until the tape holding it is ejected,
    /// so tests that use `.shared` run one after another while the others run in parallel.
    ///
    /// FoundationNetworking reads the protocols of `.shared` once, when it is first used. Cassette
    /// registers its protocol the first time this is called (or by ``prepareSharedSession()``), and
    /// checks with a request that `.shared` really is intercepted.
    ///
    /// - Throws: ``CassetteError/sharedSessionNotInterceptable`` when `.shared` was created too
    ///   early; ``CassetteError/alreadyEjected(file:)``.
    public func interceptSharedSession() async throws {
        try await SharedSessionInterception.acquire(router)
        let ejected = state.withLock { state -> Bool in
            if !state.ejected { state.holdsSharedSession = true }
            return state.ejected
        }
        if ejected {
            SharedSessionInterception.release(router)
            throw CassetteError.alreadyEjected(file: file.path)
        }
    }

    /// Registers Cassette's protocol for `URLSession.shared`. On Linux it must run before anything
    /// in the process first uses `.shared` (other sessions may exist already); the
    /// `.cassette(sharedSession: true)` trait calls it while the tests are discovered, so only code
    /// that uses `.shared` before any test starts (a static initializer) needs this call earlier.
    public static func prepareSharedSession() {
        SharedSessionInterception.register()
    }
}
