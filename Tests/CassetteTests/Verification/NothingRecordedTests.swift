import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A tape that records and that no request reached says so when it is ejected — the code under
/// test most likely used another session — through `Tape`, `withCassette` and the `.cassette`
/// trait; the empty cassette is still saved, and a test that expects no traffic silences it.
@Suite struct NothingRecordedTests {
    static func message(_ file: URL, saved: Bool = true) -> String {
        "cassette \(file.path) recorded nothing: no request reached the tape"
            + (saved ? ", and the empty cassette was saved, so it replays nothing. " : ". ")
            + "The code under test most likely sent its requests through another URLSession (URLSession.shared, or one it made "
            + "itself): " + advice
    }

    static let advice =
        "give it tape.session, or a configuration from tape.configure(_:) (in a test with the .cassette trait, "
        + "Tape.current); for URLSession.shared, .cassette(sharedSession: true) or withCassette(…, sharedSession: true). "
        + "A test that sends no requests silences this with Tape.Options(expectsRequests: false)."

    /// What a replay of an empty cassette that no request reached says.
    static func emptyMessage(_ file: URL) -> String {
        "cassette \(file.path) is empty and no request reached the tape: the code under test most likely sends its requests "
            + "through another URLSession (URLSession.shared, or one it made itself), so they went to the network, and offline "
            + "or on CI they fail with a connection error: " + advice
            + " Then record the cassette again: delete it and run the test once with network access."
    }

    /// Options that keep the warning in the report (the test reads it there) instead of on standard error.
    static let quiet = Tape.Options().quiet

    /// The trap as a newcomer fell into it: the request went live through a session of its own.
    @Test func aTapeWhoseRequestsWentElsewhereWarnsAndStillSavesTheEmptyCassette() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once, options: Self.quiet)
            let elsewhere = URLSession(configuration: .ephemeral)
            defer { elsewhere.finishTasksAndInvalidate() }
            #expect(await Fetch.get(scratch.url("/status/200"), on: elsewhere).status == 200)
            let report = try tape.eject()
            #expect(report.requests == 0)
            #expect(report.saved)
            #expect(report.warnings == [Self.message(scratch.file)])
            let saved = try CassetteFile.read(scratch.file)
            #expect(saved.interactions.isEmpty)
        }
    }

    /// Each recording mode: `once` on a new file, `newEpisodes` and `all` on a file that exists
    /// (`all` replaces it with the empty recording; `newEpisodes` leaves it); and every replay of
    /// the empty cassette after it, the test failed or not (offline, the request that went
    /// elsewhere is the failure).
    @Test func everyModeWarnsRecordingOrReplayingAnEmptyCassette() throws {
        try withScratchTape { scratch in
            let first = try scratch.tape(mode: .once, options: Self.quiet).eject()
            #expect(first.warnings == [Self.message(scratch.file)])
            // The file exists now: `once` replays it, and it is empty.
            #expect(try scratch.tape(mode: .once, options: Self.quiet).eject().warnings == [Self.emptyMessage(scratch.file)])
            #expect(try scratch.tape(mode: .none, options: Self.quiet).eject().warnings == [Self.emptyMessage(scratch.file)])
            let failedTest = try scratch.tape(mode: .none, options: Self.quiet).eject(testFailed: true)
            #expect(failedTest.warnings == [Self.emptyMessage(scratch.file)])
            var expectsNone = Self.quiet
            expectsNone.expectsRequests = false
            #expect(try scratch.tape(mode: .none, options: expectsNone).eject().warnings == [])
            #expect(
                try scratch.tape(mode: .newEpisodes, options: Self.quiet).eject().warnings == [Self.message(scratch.file, saved: false)])
            #expect(try scratch.tape(mode: .all, options: Self.quiet).eject().warnings == [Self.message(scratch.file, saved: false)])
        }
    }

    /// A tape that a request reached does not warn, whoever answered it: recorded, or left out of
    /// the file by `beforeRecord`.
    @Test func aRequestThatReachedTheTapeSilencesIt() async throws {
        try await withScratchTape { scratch in
            let recording = try scratch.tape(mode: .once, options: Self.quiet)
            #expect(await Fetch.get(scratch.url("/status/200"), on: recording.session).status == 200)
            let recorded = try recording.eject()
            #expect((recorded.requests, recorded.recorded, recorded.warnings) == (1, 1, []))

            var leftOut = Self.quiet
            leftOut.beforeRecord = { _ in nil }
            let dropping = try Tape(file: scratch.file("dropped.json"), mode: .once, options: leftOut, environment: .tests)
            #expect(await Fetch.get(scratch.url("/status/200"), on: dropping.session).status == 200)
            let dropped = try dropping.eject()
            #expect((dropped.requests, dropped.recorded, dropped.warnings) == (1, 0, []))

            // One that failed before any answer (its body stream was read already) reached it too.
            let failing = try Tape(file: scratch.file("failed.json"), mode: .once, options: Self.quiet, environment: .tests)
            let stream = InputStream(data: Data("sent once".utf8))
            stream.open()
            var buffer = [UInt8](repeating: 0, count: 64)
            _ = stream.read(&buffer, maxLength: buffer.count)
            stream.close()
            var request = URLRequest(url: try #require(URL(string: scratch.url("/echo"))))
            request.httpMethod = "PUT"
            request.httpBodyStream = stream
            #expect(await Fetch.run(request, on: failing.session, style: .async).errorCode == .cannotDecodeRawData)
            let failed = try failing.eject()
            #expect((failed.requests, failed.recorded, failed.warnings) == (1, 0, []))

            // A redirect followed is one request, however many hops.
            let redirected = try Tape(file: scratch.file("hops.json"), mode: .once, options: Self.quiet, environment: .tests)
            #expect(await Fetch.get(scratch.url("/redirect/2"), on: redirected.session).status == 200)
            let hops = try redirected.eject()
            #expect((hops.requests, hops.recorded) == (1, 3))
        }
    }

    @Test func aTestThatExpectsNoRequestsSilencesIt() throws {
        try withScratchTape { scratch in
            var options = Self.quiet
            options.expectsRequests = false
            let report = try scratch.tape(mode: .once, options: options).eject()
            #expect(report.saved)
            #expect(report.warnings == [])
            #expect(Tape.Options(expectsRequests: false).expectsRequests == false)
        }
    }

    /// `withCassette` and the trait eject through `play`: the warning is one of the things the
    /// test must hear, said once (the tape does not also write it to standard error).
    @Test func withCassetteHearsItAsAWarning() async throws {
        try await withScratchTape { scratch in
            let tape = try Tape(file: scratch.file("play.json"), mode: .once, environment: .tests)
            let heard = Locked<[EjectVerification]>([])
            try await tape.play(sharedSession: false, outlet: { verification, _ in heard.withLock { $0.append(verification) } }) {}
            #expect(
                heard.withLock { $0 } == [EjectVerification(warnings: [.nothingRecorded(cassette: scratch.file("play.json"), saved: true)])]
            )
            #expect(
                VerificationFinding.nothingRecorded(cassette: scratch.file("play.json"), saved: true).description
                    == Self.message(scratch.file("play.json")))
        }
    }

    /// On CI the trap fails the test with a bare connection error: under the trait the tape's
    /// warning comes first and names the likely cause — as an issue of severity warning where Swift
    /// Testing has them (6.3 and later), on standard error with Swift 6.2's Testing.
    @Test func theTraitNamesTheCauseBeforeTheConnectionError() async throws {
        let test = try #require(Test.current)
        try await withScratchTape { scratch in
            try JSONCassetteCodec.encode(CassetteDocument(interactions: [])).write(to: scratch.file("offline.json"))
            var trait = CassetteTrait.cassette("offline", folder: scratch.url.path, mode: .none, options: Tape.Options().quiet)
            trait.settings.environment = .tests
            let seen = Locked<[String]>([])
            let written = try await StandardError.capturing {
                try await withKnownIssue {
                    try await trait.provideScope(for: test, testCase: nil) { throw URLError(.cannotConnectToHost) }
                } matching: { issue in
                    seen.withLock {
                        $0.append(issue.comments.isEmpty ? "\(issue.error.map { "\($0)" } ?? "")" : issue.comments.map(\.rawValue).joined())
                    }
                    #if compiler(>=6.3)
                    return (issue.severity == .warning) == !issue.comments.isEmpty
                    #else
                    return true
                    #endif
                }
            }
            #if compiler(>=6.3)
            let issues = seen.current
            #expect(issues.count == 2)
            #expect(written == [])
            #else
            let issues = written.map { $0.replacingOccurrences(of: "Cassette warning: ", with: "") } + seen.current
            #expect(written.count == 1 && seen.current.count == 1, "\(written) \(seen.current)")
            #endif
            #expect(issues.first == Self.emptyMessage(scratch.file("offline.json")))
            #expect(issues.last?.contains("cannotConnectToHost") == true || issues.last?.contains("-1004") == true, "\(issues)")
        }
    }

    /// Through the `.cassette` trait: an issue of severity warning, naming the cassette (Swift 6.3
    /// and later); with Swift 6.2's Testing, which has no warning issues, the same text on standard
    /// error as `Cassette warning: …`, and no issue.
    @Test func theTraitRecordsItAsAWarning() async throws {
        let test = try #require(Test.current)
        try await withScratchTape { scratch in
            var trait = CassetteTrait.cassette("traited", folder: scratch.url.path, mode: .once, options: Tape.Options().quiet)
            trait.settings.environment = [:]  // records under CI too
            #if compiler(>=6.3)
            let written = try await StandardError.capturing {
                try await withKnownIssue {
                    try await trait.provideScope(for: test, testCase: nil) {}
                } matching: { issue in
                    issue.severity == .warning
                        && issue.comments.map(\.rawValue).joined() == Self.message(scratch.file("traited.json"))
                }
            }
            #expect(written == [])
            #else
            let written = try await StandardError.capturing {
                try await trait.provideScope(for: test, testCase: nil) {}
            }
            #expect(written == ["Cassette warning: " + Self.message(scratch.file("traited.json"))])
            #endif
            #expect(FileManager.default.fileExists(atPath: scratch.file("traited.json").path))
        }
    }
}
