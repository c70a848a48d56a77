import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `URLSession` whose requests only stubs answer: OHHTTPStubs and URLMock without a cassette.
///
/// ```swift
/// let stubbed = StubSession()
/// stubbed.stubs.add(.host("api.example.com") && .path("/users/:id")) { request in
///     .json(User(id: Int(request.parameters["id"] ?? "") ?? 0, name: "Ada"))
/// }
/// let user = try await APIClient(session: stubbed.session).user(id: 42)
/// try stubbed.verify()        // expectations met, no unexpected request
/// stubbed.invalidate()
/// ```
///
/// In tests, the `.stubs` trait and `withStubSession(_:)` make one, verify it and invalidate it
/// for you. A request no stub answers fails with `URLError(.resourceUnavailable)` saying so, or,
/// with `unmatched: .passThrough`, goes to the network (OHHTTPStubs' default). Stubs in
/// ``Stubs/global`` answer here too, after the session's own.
public final class StubSession: Sendable {
    /// What happens to a request no stub answers.
    public enum Unmatched: Sendable {
        /// It fails with `URLError(.resourceUnavailable)` whose description says no stub matched,
        /// and ``verify()`` reports it.
        case fail
        /// It goes to the network, as without Cassette.
        case passThrough
    }

    /// The stub session of the current test, set by the `.stubs` trait and `withStubSession(_:)`.
    @TaskLocal public static var current: StubSession?

    /// The stubs that answer this session's requests.
    public let stubs: Stubs
    /// A session whose requests go through the stubs (an ephemeral configuration).
    public var session: URLSession { routes.session }
    /// What happens to a request no stub answers.
    package let unmatched: Unmatched

    let router: Router
    private let routes: ProtocolClasses
    private let invalidated = Locked(false)
    private let clock = Locked<@Sendable () -> Date>({ Date() })

    /// The time for the code under test, as ``Tape/now`` is for a tape: the real time, unless
    /// ``setClock(_:)`` set another. Stubs have no recording whose day they speak of.
    public var now: Date { clock.withLock { $0 }() }

    /// Makes ``now`` read `clock`: a fixed time for stubs whose answers hold times, for example.
    ///
    /// ```swift
    /// let stubs = StubSession()
    /// stubs.setClock { Date(timeIntervalSince1970: 1_795_000_000) }
    /// let client = FeedClient(session: stubs.session, now: { stubs.now })
    /// ```
    public func setClock(_ clock: @escaping @Sendable () -> Date) {
        self.clock.withLock { $0 = clock }
    }

    /// A session answered by stubs.
    public init(unmatched: Unmatched = .fail) {
        self.unmatched = unmatched
        let stubs = Stubs()
        self.stubs = stubs
        router = Router(
            setup: Router.Setup(file: nil, mode: .none, recordsNewRequests: unmatched == .passThrough, replays: false, latency: .instant),
            redactor: .none(), playback: PlaybackQueue([], rules: .default, allowsRepeats: false, redactor: .none()), stubs: stubs)
        routes = ProtocolClasses(router: router)
    }

    /// Routes the sessions made from `configuration` through these stubs: first in its
    /// `protocolClasses`, and without a `urlCache` (see ``Tape/configure(_:)``). Call before
    /// creating the session.
    ///
    /// A background configuration cannot be answered by stubs (its requests never ask a protocol
    /// on Apple platforms): it is refused as ``Tape/configure(_:)`` refuses it — said on standard
    /// error at once, its requests failed where they reach the stubs, and ``verify()`` fails with it.
    public func configure(_ configuration: URLSessionConfiguration) {
        routes.configure(configuration)
    }

    /// Checks that every expectation was met and every request answered (``Stubs/verify()``), and
    /// that no background configuration was given to ``configure(_:)`` (listed with the
    /// unexpected requests: on Apple platforms they reached the network instead).
    public func verify() throws(StubVerificationError) {
        let refusals = routes.refusedBackgrounds.map { CassetteError.backgroundSessionNotRoutable(identifier: $0).description }
        do {
            try stubs.verify()
        } catch {
            throw StubVerificationError(unmet: error.unmet, unexpected: error.unexpected + refusals)
        }
        if !refusals.isEmpty { throw StubVerificationError(unmet: [], unexpected: refusals) }
    }

    /// Ends the session: requests in flight are cancelled, and its protocol is free for reuse.
    /// Calling it again does nothing. As with any invalidated `URLSession`, creating a task on
    /// ``session`` afterwards is a programming error (FoundationNetworking stops the process).
    public func invalidate() {
        let first = invalidated.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        routes.detach()
    }
}

/// Runs `body` with a ``StubSession`` (as ``StubSession/current`` too), then verifies it and
/// invalidates it: for XCTest, or any code. When `body` throws, its error is the one thrown;
/// otherwise a failed verification throws ``StubVerificationError``.
///
/// ```swift
/// func testShowsOfflineBanner() async throws {
///     try await withStubSession { stubbed in
///         stubbed.stubs.add(.path("/feed"), response: .error(.notConnectedToInternet))
///         let model = FeedModel(session: stubbed.session)
///         await model.load()
///         XCTAssertTrue(model.isOffline)
///     }
/// }
/// ```
public func withStubSession<Result>(
    unmatched: StubSession.Unmatched = .fail,
    _ body: (StubSession) async throws -> Result
) async throws -> Result {
    let stubbed = StubSession(unmatched: unmatched)
    defer { stubbed.invalidate() }
    let result = try await StubSession.$current.withValue(stubbed) { try await body(stubbed) }
    try stubbed.verify()
    return result
}

/// The synchronous form of `withStubSession(unmatched:_:)`.
public func withStubSession<Result>(
    unmatched: StubSession.Unmatched = .fail,
    _ body: (StubSession) throws -> Result
) throws -> Result {
    let stubbed = StubSession(unmatched: unmatched)
    defer { stubbed.invalidate() }
    let result = try StubSession.$current.withValue(stubbed) { try body(stubbed) }
    try stubbed.verify()
    return result
}
