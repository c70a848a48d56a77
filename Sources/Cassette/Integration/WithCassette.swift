import Foundation

/// Runs `body` with a tape for cassette `name`, then ejects it — the XCTest-friendly way to use
/// a cassette, and the way to scope one to any piece of code.
///
/// ```swift
/// final class UserTests: XCTestCase {
///     func testFetch() async throws {
///         try await withCassette("Users/fetch") { tape in
///             let user = try await APIClient(session: tape.session).user(id: 42)
///             XCTAssertEqual(user.name, "Ada")
///         }
///     }
/// }
/// ```
///
/// The tape is also ``Tape/current`` inside `body`. When `body` returns, the tape is ejected
/// (saving what was recorded); requests that found no match (and unused interactions or a stale
/// cassette, if the options say they fail) then make this function throw
/// ``CassetteError/verificationFailed(_:)``, which fails an XCTest test. Warnings go to standard
/// error. When `body` throws, the tape is still ejected, `body`'s error is the one rethrown, and
/// unmatched requests it does not already describe are written to standard error.
///
/// - Parameters: as ``Tape/init(named:folder:bundle:filePath:mode:matching:options:environment:)``, plus
///   `sharedSession`: also route `URLSession.shared` through the tape (see
///   ``Tape/interceptSharedSession()``), and `function`: the test, as the suite ledger names it
///   (`Ledger`); leave the default.
public func withCassette<Result>(
    _ name: String,
    folder: String? = nil,
    bundle: Bundle? = nil,
    filePath: String = #filePath,
    mode: RecordMode = .once,
    matching: RequestMatching = .default,
    options: Tape.Options = Tape.Options(),
    sharedSession: Bool = false,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    function: String = #function,
    _ body: (Tape) async throws -> Result
) async throws -> Result {
    let settings = TapeSettings(
        name: name, folder: folder, bundle: bundle, filePath: filePath, mode: mode, matching: matching, options: options,
        sharedSession: sharedSession, environment: environment
    ).opened(by: function, in: filePath)
    return try await Tape.withCassette(settings, outlet: Tape.throwingOutlet, body)
}

extension Tape {
    /// What `withCassette` does with its `settings`: opens the tape, runs `body` with it, ejects
    /// it and hands what the test must hear to `outlet`; `failed` says whether the test failed
    /// without `body` throwing (an XCTest test's recorded failures).
    package static func withCassette<Result>(
        _ settings: TapeSettings, outlet: VerificationOutlet, failed: () -> Bool = { false }, _ body: (Tape) async throws -> Result
    ) async throws -> Result {
        let tape = try Tape(settings)
        return try await tape.play(sharedSession: settings.sharedSession, outlet: outlet, failed: failed) { try await body(tape) }
    }
}

/// The synchronous form of ``withCassette(_:folder:bundle:filePath:mode:matching:options:sharedSession:environment:function:_:)-swift.func``,
/// for synchronous tests. `URLSession.shared` cannot be intercepted from here (that waits).
public func withCassette<Result>(
    _ name: String,
    folder: String? = nil,
    bundle: Bundle? = nil,
    filePath: String = #filePath,
    mode: RecordMode = .once,
    matching: RequestMatching = .default,
    options: Tape.Options = Tape.Options(),
    environment: [String: String] = ProcessInfo.processInfo.environment,
    function: String = #function,
    _ body: (Tape) throws -> Result
) throws -> Result {
    let settings = TapeSettings(
        name: name, folder: folder, bundle: bundle, filePath: filePath, mode: mode, matching: matching, options: options,
        environment: environment
    ).opened(by: function, in: filePath)
    return try Tape.withCassette(settings, outlet: Tape.throwingOutlet, body)
}

extension Tape {
    /// The synchronous form of the `withCassette(_:outlet:failed:_:)` above, for a body that does not wait.
    package static func withCassette<Result>(
        _ settings: TapeSettings, outlet: VerificationOutlet, failed: () -> Bool = { false }, _ body: (Tape) throws -> Result
    ) throws -> Result {
        let tape = try Tape(settings)
        let result: Result
        do {
            result = try Tape.$current.withValue(tape) { try body(tape) }
        } catch {
            tape.ejectAfterFailure(error, outlet: outlet)
            throw error
        }
        try outlet(tape.verifiedEject(bodyError: nil, testFailed: failed()), false)
        return result
    }
}

extension Tape {
    /// Where the results of ejecting go: `verification` (what the test must hear), and whether
    /// the test's body threw, in which case the test already fails with the body's error.
    package typealias VerificationOutlet = (_ verification: EjectVerification, _ bodyThrew: Bool) throws -> Void

    /// Runs `body` with this tape as ``current`` (and owning `URLSession.shared` if asked), then
    /// ejects it and hands what the test must hear to `outlet`. When `body` throws, the tape is
    /// still ejected (as for a failed test) and `body`'s error is the one rethrown.
    ///
    /// - Parameter failed: whether the test failed without `body` throwing (issues it recorded),
    ///   asked when `body` returns.
    package func play<Result>(
        sharedSession: Bool, outlet: VerificationOutlet, failed: () -> Bool = { false }, _ body: () async throws -> Result
    ) async throws -> Result {
        let result: Result
        do {
            if sharedSession { try await interceptSharedSession() }
            result = try await Tape.$current.withValue(self) { try await body() }
        } catch {
            ejectAfterFailure(error, outlet: outlet)
            throw error
        }
        try outlet(verifiedEject(bodyError: nil, testFailed: failed()), false)
        return result
    }

    /// Ejects and checks what the tape saw against its options; `testFailed` (or a `bodyError`):
    /// the test failed, so what it recorded is saved only if the options say so.
    func verifiedEject(bodyError: (any Error)?, testFailed: Bool = false) throws -> EjectVerification {
        EjectVerification(
            try eject(announcingWarnings: false, testFailed: testFailed || bodyError != nil),
            unusedInteractions: options.unusedInteractions, bodyError: bodyError)
    }

    /// Ejects after the test's body threw `error`: what still needs saying goes to `outlet`, and a
    /// failure to eject to standard error (the body's error is the one the test reports).
    func ejectAfterFailure(_ error: any Error, outlet: VerificationOutlet) {
        do {
            try outlet(verifiedEject(bodyError: error), true)
        } catch {
            StandardError.write("Cassette: while the test failed, ejecting \(file.path) failed too: \(error)")
        }
    }

    /// The outlet of `withCassette`: warnings on standard error; failures thrown as
    /// ``CassetteError/verificationFailed(_:)``, or written to standard error when the body's
    /// own error is already failing the test.
    package static func throwingOutlet(_ verification: EjectVerification, bodyThrew: Bool) throws {
        for warning in verification.warnings { StandardError.warn(warning.description) }
        guard !verification.failures.isEmpty else { return }
        if bodyThrew {
            for failure in verification.failures { StandardError.write(failure.description) }
        } else {
            throw CassetteError.verificationFailed(verification.failures)
        }
    }
}
