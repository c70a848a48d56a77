import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stack of stubs: code-defined answers that come before any cassette (docs/Architecture.md, "The flow").
///
/// Every ``Tape`` and ``StubSession`` has its own (`tape.stubs`), which answers its sessions'
/// requests only; ``global`` answers every request that goes through Cassette, after the
/// session's own stubs.
///
/// ```swift
/// let tape = try Tape(named: "Feed/outage")
/// tape.stubs.add(.path("/feed"), name: "feed times out") { _ in .error(.timedOut) }
/// // Requests to /feed fail; everything else replays from the cassette, which never sees /feed.
/// ```
///
/// As in OHHTTPStubs, the stub added last is asked first, and the first whose condition holds
/// answers. Remove one with ``remove(_:)``, the last with ``removeLast()``, all with
/// ``removeAll()``; ``all`` lists them. ``onActivation(_:)`` hears of each stubbed request.
///
/// URLMock's expectations are here too: ``expect(_:name:headers:respond:)`` adds a stub that
/// answers one request, and ``verify()`` reports, in one message, the expectations that were
/// never met and the requests nothing answered.
public final class Stubs: Sendable {
    private struct State {
        var stubs: [Stub] = []
        var activation: (@Sendable (URLRequest, Stub) -> Void)?
        /// Expectations that answered, by identity.
        var met: Set<ObjectIdentifier> = []
        /// Requests that reached these stubs and that nothing answered.
        var unanswered: [String] = []
    }

    /// Read on every request of every session (mostly to learn there are no stubs), changed rarely.
    private let state = ReadWriteLocked(State())

    /// A stack of stubs. Tapes and stub sessions make their own; you rarely need this.
    public init() {}

    /// Stubs for every request that goes through Cassette (tapes, stub sessions, and
    /// `URLSession.shared` while a tape intercepts it), asked after a session's own stubs.
    ///
    /// Prefer a tape's or a stub session's own stubs, which end with them. Global stubs stay until
    /// removed: call ``removeAll()`` when the test is done.
    public static let global = Stubs()

    // MARK: Adding and removing

    /// Adds a stub that answers the requests meeting `condition` with what `respond` builds.
    ///
    /// ```swift
    /// tape.stubs.add(.method("GET") && .path("/users/:id"), name: "any user") { request in
    ///     .json(User(id: Int(request.parameters["id"] ?? "") ?? 0, name: "Ada"))
    /// }
    /// ```
    @discardableResult
    public func add(_ condition: StubCondition, name: String? = nil, respond: @escaping @Sendable (StubRequest) -> StubResponse) -> Stub {
        let stub = Stub(name: name, condition: condition, respond: respond)
        state.write { $0.stubs.append(stub) }
        return stub
    }

    /// Adds a stub that answers the requests meeting `condition` with `response`.
    @discardableResult
    public func add(_ condition: StubCondition, name: String? = nil, response: StubResponse) -> Stub {
        add(condition, name: name) { _ in response }
    }

    /// Removes `stub`; false when it was not installed here (any more).
    @discardableResult
    public func remove(_ stub: Stub) -> Bool {
        state.write { state in
            guard let index = state.stubs.firstIndex(where: { $0 === stub }) else { return false }
            state.stubs.remove(at: index)
            return true
        }
    }

    /// Removes the stub added last, and returns it.
    @discardableResult
    public func removeLast() -> Stub? {
        state.write { $0.stubs.popLast() }
    }

    /// Removes every stub and expectation, and forgets what ``verify()`` would report.
    public func removeAll() {
        state.write { $0 = State(activation: $0.activation) }
    }

    /// The installed stubs, in the order they were added (the last is asked first).
    /// Whether no stub is installed.
    var isEmpty: Bool { state.read { $0.stubs.isEmpty } }

    /// The stubs installed, oldest first (the newest is asked first).
    public var all: [Stub] {
        state.read { $0.stubs }
    }

    /// Calls `callback` with each request a stub answers, and the stub, before the answer is
    /// delivered: for logging. Replaces the previous callback; nil removes it.
    ///
    /// ```swift
    /// tape.stubs.onActivation { request, stub in print("\(request.url!) stubbed by \(stub)") }
    /// ```
    public func onActivation(_ callback: (@Sendable (URLRequest, Stub) -> Void)?) {
        state.write { $0.activation = callback }
    }

    // MARK: Expectations

    /// Expects one request meeting `condition` (URLMock's expected mock request): answers it
    /// once with what `respond` builds, then is used up. With `headers`, the request's header
    /// fields must be exactly these (URLMock's header checking; names in any case).
    @discardableResult
    public func expect(
        _ condition: StubCondition, name: String? = nil, headers: Interaction.Headers? = nil,
        respond: @escaping @Sendable (StubRequest) -> StubResponse
    ) -> Stub {
        let stub = Stub(name: name, condition: condition, isExpectation: true, requiredHeaders: headers, respond: respond)
        state.write { $0.stubs.append(stub) }
        return stub
    }

    /// Expects one request meeting `condition`, answered with `response`.
    @discardableResult
    public func expect(_ condition: StubCondition, name: String? = nil, headers: Interaction.Headers? = nil, response: StubResponse) -> Stub
    {
        expect(condition, name: name, headers: headers) { _ in response }
    }

    /// Checks that every expectation was met and, for a ``StubSession``'s stubs, that every request
    /// was answered. (A tape's unanswered requests are in its own unmatched report, said once.)
    ///
    /// - Throws: ``StubVerificationError``, whose description lists, in one message, the
    ///   expectations never met and the requests nobody expected.
    public func verify() throws(StubVerificationError) {
        let (unmet, unanswered) = state.read { state in
            (state.stubs.filter { $0.isExpectation && !state.met.contains(ObjectIdentifier($0)) }.map(\.description), state.unanswered)
        }
        guard unmet.isEmpty, unanswered.isEmpty else { throw StubVerificationError(unmet: unmet, unexpected: unanswered) }
    }

    // MARK: Answering

    /// The stub that answers `urlRequest` (whose body was read into `captured`), and its
    /// response; nil when none does. Without stubs, this is one shared read of the state.
    func answer(_ urlRequest: URLRequest, captured: Interaction.Request) -> (stub: Stub, response: StubResponse)? {
        guard !state.read({ $0.stubs.isEmpty }) else { return nil }
        return answer(StubRequest(urlRequest, captured: captured))
    }

    /// The stub that answers `request`, and its response; nil when none does.
    func answer(_ request: StubRequest) -> (stub: Stub, response: StubResponse)? {
        let found = state.write { state -> (Stub, [String: String], (@Sendable (URLRequest, Stub) -> Void)?)? in
            for stub in state.stubs.reversed() {
                if stub.isExpectation, state.met.contains(ObjectIdentifier(stub)) { continue }
                guard let parameters = stub.match(request) else { continue }
                if stub.isExpectation { state.met.insert(ObjectIdentifier(stub)) }
                return (stub, parameters, state.activation)
            }
            return nil
        }
        guard let (stub, parameters, activation) = found else { return nil }
        var request = request
        request.parameters = parameters
        activation?(request.urlRequest, stub)
        // Built outside the lock: a builder may take time (read a file) or add stubs itself.
        return (stub, stub.respond(request))
    }

    /// Notes a request that reached these stubs and that nothing answered, for ``verify()``.
    func noteUnanswered(_ request: Interaction.Request) {
        state.write { $0.unanswered.append("\(request.method) \(request.url)") }
    }
}

/// What ``Stubs/verify()`` found: expectations never met, requests nobody expected.
public struct StubVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The expectations that answered no request.
    public var unmet: [String]
    /// The requests of a ``StubSession`` that no stub answered: `GET https://…`.
    public var unexpected: [String]

    /// A verification error from its parts.
    package init(unmet: [String], unexpected: [String]) {
        self.unmet = unmet
        self.unexpected = unexpected
    }

    /// The verification failure as a test failure shows it: every unmet expectation and unexpected request.
    public var description: String {
        var lines = ["Cassette stubs: verification failed."]
        if !unmet.isEmpty {
            lines.append("Expected but never requested (\(unmet.count)):")
            lines += unmet.map { "  - \($0)" }
        }
        if !unexpected.isEmpty {
            lines.append("Requested but not expected (\(unexpected.count)):")
            lines += unexpected.map { "  - \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
