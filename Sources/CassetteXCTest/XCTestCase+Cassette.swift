@_exported import Cassette
import XCTest

extension XCTestCase {
    /// Runs `body` with a tape for cassette `name`, as the global `withCassette` does, for an
    /// XCTest test that wants what the `.cassette` trait gives a Swift Testing one: the test's own
    /// failures count (an `XCTAssert` that failed keeps what the test recorded from being saved,
    /// as a thrown error does), and on Apple platforms the tape's evidence is attached to the test
    /// (`XCTAttachment`, kept whatever the outcome): `feed.misses.txt` and `feed.misses.json` for a
    /// miss, `feed.rerecorded.txt` for a re-recording that changed the cassette. Xcode shows them
    /// in the test's report. (XCTest on Linux has no attachments: there the evidence is only in
    /// the failure's text.)
    ///
    /// ```swift
    /// import CassetteXCTest
    ///
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
    /// Link `CassetteXCTest` from test targets only: it links XCTest, which an app cannot.
    ///
    /// - Parameters: as the global `withCassette`.
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
        return try await Tape.withCassette(settings, outlet: outlet, failed: { testFailed }, body)
    }

    /// The synchronous form, for a synchronous XCTest test: as the global synchronous
    /// `withCassette`, with the test's own failures counted and the evidence attached as above.
    /// A test case that links `CassetteXCTest` calls this one, never the global one, whatever
    /// its style: both forms are members, so neither hides the other.
    ///
    /// ```swift
    /// func testFetchSynchronously() throws {
    ///     try withCassette("Users/fetch") { tape in
    ///         XCTAssertEqual(try LegacyClient(session: tape.session).fetchUserNameSynchronously(id: 42), "Ada")
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters: as the global `withCassette`. `URLSession.shared` cannot be intercepted from
    ///   here (that waits): use the `async` form with `sharedSession: true`.
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
        return try Tape.withCassette(settings, outlet: outlet, failed: { testFailed }, body)
    }

    /// Hands what ejecting found to the test: the evidence attached, failures thrown.
    private func outlet(_ verification: EjectVerification, bodyThrew: Bool) throws {
        attach(verification.evidence)
        try Tape.throwingOutlet(verification, bodyThrew: bodyThrew)
    }

    /// Whether the test failed without throwing (an `XCTAssert` that failed, an exception).
    private var testFailed: Bool { (testRun?.failureCount ?? 0) + (testRun?.unexpectedExceptionCount ?? 0) > 0 }

    /// Attaches each piece of `evidence` to this test (Apple platforms; XCTest on Linux has no
    /// attachments).
    private func attach(_ evidence: [Evidence]) {
        #if canImport(Darwin)
        for item in evidence {
            let attachment = XCTAttachment(data: Data(item.contents.utf8), uniformTypeIdentifier: "public.plain-text")
            attachment.name = item.name
            attachment.lifetime = .keepAlways
            add(attachment)
        }
        #endif
    }
}
