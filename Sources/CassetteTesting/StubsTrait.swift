#if canImport(Testing)
import Foundation
import Testing

/// A Swift Testing trait that gives a test stubs, and checks their expectations afterwards.
///
/// ```swift
/// @Test(.stubs { $0.add(.path("/feed"), response: .error(.notConnectedToInternet)) })
/// func showsOfflineBanner() async throws {
///     let stubbed = try #require(StubSession.current)
///     let model = FeedModel(session: stubbed.session)
///     await model.load()
///     #expect(model.isOffline)
/// }
///
/// // With a cassette: the stubs come first, the cassette answers the rest.
/// @Test(.cassette("Feed/day"), .stubs { $0.add(.path("/feed"), response: .error(.timedOut)) })
/// func feedTimesOut() async throws { … Tape.current!.session … }
/// ```
///
/// Inside a `.cassette` trait (listed before this one), the stubs are installed on the test's
/// tape. Otherwise the test gets its own `StubSession` as `StubSession/current`, invalidated
/// after the test. Either way, expectations never met and requests nothing answered are recorded
/// as issues of the test.
public struct StubsTrait: TestTrait, SuiteTrait, TestScoping {
    /// What happens to a request no stub answers, in a test without a cassette.
    package var unmatched: StubSession.Unmatched
    /// Installs the test's stubs before it runs.
    package var install: @Sendable (Stubs) -> Void

    /// A trait from its parts; `.stubs` and `.stubs(unmatched:_:)` read better.
    package init(unmatched: StubSession.Unmatched, install: @escaping @Sendable (Stubs) -> Void) {
        self.unmatched = unmatched
        self.install = install
    }

    /// Applies to every test of a suite.
    public var isRecursive: Bool { true }

    /// Installs the stubs, runs the test, verifies them.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard !test.isSuite else {
            try await function()
            return
        }
        let location = test.sourceLocation
        let verify = { @Sendable (stubs: Stubs) in
            do throws(StubVerificationError) {
                try stubs.verify()
            } catch {
                Issue.record(Comment(rawValue: error.description), sourceLocation: location)
            }
        }
        if let tape = Tape.current {
            install(tape.stubs)
            try await function()
            verify(tape.stubs)
            return
        }
        let stubbed = StubSession(unmatched: unmatched)
        defer { stubbed.invalidate() }
        install(stubbed.stubs)
        try await StubSession.$current.withValue(stubbed) { try await function() }
        verify(stubbed.stubs)
    }
}

extension Trait where Self == StubsTrait {
    /// A `StubSession` for the test, with no stubs yet: add them through `StubSession/current`.
    public static var stubs: StubsTrait {
        StubsTrait(unmatched: .fail) { _ in }
    }

    /// Stubs installed for the test by `install`: on the test's tape inside `.cassette`, else on
    /// a `StubSession` of its own.
    public static func stubs(unmatched: StubSession.Unmatched = .fail, _ install: @escaping @Sendable (Stubs) -> Void) -> StubsTrait {
        StubsTrait(unmatched: unmatched, install: install)
    }
}
#endif
