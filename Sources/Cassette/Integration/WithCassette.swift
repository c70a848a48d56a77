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
/// (saving what was recorded); requests that found no match then make this function throw
/// ``CassetteError/unmatchedRequests(_:)``, which fails an XCTest test. When `body` throws, the
/// tape is still ejected and `body`'s error is the one rethrown.
///
/// - Parameters: as ``Tape/init(named:in:filePath:mode:matching:options:environment:)``, plus
///   `sharedSession`: also route `URLSession.shared` through the tape (see
///   ``Tape/interceptSharedSession()``).
public func withCassette<Result>(
    _ name: String,
    in folder: URL? = nil,
    filePath: String = #filePath,
    mode: RecordMode = .once,
    matching: RequestMatching = .default,
    options: Tape.Options = Tape.Options(),
    sharedSession: Bool = false,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    _ body: (Tape) async throws -> Result
) async throws -> Result {
    let tape = try Tape(
        named: name, in: folder, filePath: filePath, mode: mode, matching: matching, options: options, environment: environment)
    return try await tape.play(sharedSession: sharedSession) { try await body(tape) }
}

/// The synchronous form of ``withCassette(_:in:filePath:mode:matching:options:sharedSession:environment:_:)-swift.func``,
/// for synchronous tests. `URLSession.shared` cannot be intercepted from here (that waits).
public func withCassette<Result>(
    _ name: String,
    in folder: URL? = nil,
    filePath: String = #filePath,
    mode: RecordMode = .once,
    matching: RequestMatching = .default,
    options: Tape.Options = Tape.Options(),
    environment: [String: String] = ProcessInfo.processInfo.environment,
    _ body: (Tape) throws -> Result
) throws -> Result {
    let tape = try Tape(
        named: name, in: folder, filePath: filePath, mode: mode, matching: matching, options: options, environment: environment)
    let result: Result
    do {
        result = try Tape.$current.withValue(tape) { try body(tape) }
    } catch {
        _ = try? tape.eject()
        throw error
    }
    try tape.ejectVerifyingMatches()
    return result
}

extension Tape {
    /// Runs `body` with this tape as ``current`` (and owning `URLSession.shared` if asked), then
    /// ejects it; see `withCassette`.
    func play<Result>(sharedSession: Bool, _ body: () async throws -> Result) async throws -> Result {
        let result: Result
        do {
            if sharedSession { try await interceptSharedSession() }
            result = try await Tape.$current.withValue(self) { try await body() }
        } catch {
            _ = try? eject()
            throw error
        }
        try ejectVerifyingMatches()
        return result
    }

    /// Ejects, and throws ``CassetteError/unmatchedRequests(_:)`` when requests found no match.
    @discardableResult
    func ejectVerifyingMatches() throws -> Report {
        let report = try eject()
        if !report.unmatched.isEmpty { throw CassetteError.unmatchedRequests(report.unmatched) }
        return report
    }
}
