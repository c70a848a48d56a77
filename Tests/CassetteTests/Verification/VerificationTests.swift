import CassetteTestSupport
import CassetteTesting
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ejecting a tape tells the test: unmatched requests fail it, unused interactions and stale
/// cassettes per their policies, each said once, and never on top of the test's own failure.
@Suite struct VerificationTests {
    static let file = URL(fileURLWithPath: "/cassettes/users.json")

    static func report(unmatched: [String] = [], unused: [String] = [], stale: Tape.Report.Stale? = nil) -> Tape.Report {
        Tape.Report(
            file: file, mode: .none, replayed: 1, recorded: 0, unmatched: unmatched.map(miss),
            unusedInteractions: unused, stale: stale, saved: false)
    }

    /// An unmatched request whose report is `text`.
    static func miss(_ text: String) -> UnmatchedRequest {
        UnmatchedRequest(
            request: .init(url: "https://a.example/"), cassette: file, mode: RecordMode.none, candidates: [], usedUp: 0, description: text)
    }

    static let unused = VerificationFinding.unusedInteractions(
        cassette: file, interactions: ["#2 POST https://api.example.com/users", "#3 GET https://api.example.com/users?page=1"])

    static let unusedMessage = """
        cassette /cassettes/users.json: 2 recorded interactions answered no request:
          #2 POST https://api.example.com/users
          #3 GET https://api.example.com/users?page=1
        Remove them from the cassette if the code under test no longer sends these requests, or open the tape with \
        Tape.Options(unusedInteractions: .ignore).
        """

    @Test func unusedInteractionsFollowThePolicy() {
        let report = Self.report(unused: ["#2 POST https://api.example.com/users", "#3 GET https://api.example.com/users?page=1"])
        #expect(EjectVerification(report, unusedInteractions: .ignore, bodyError: nil) == EjectVerification())
        #expect(EjectVerification(report, unusedInteractions: .warn, bodyError: nil) == EjectVerification(warnings: [Self.unused]))
        #expect(EjectVerification(report, unusedInteractions: .fail, bodyError: nil) == EjectVerification(failures: [Self.unused]))
        #expect(Self.unused.description == Self.unusedMessage)
    }

    @Test func unmatchedRequestsAlwaysFailAndSilenceTheUnusedReport() {
        let report = Self.report(
            unmatched: ["Cassette: no recorded interaction matches GET https://a.example/"], unused: ["#1 GET https://b.example/"])
        #expect(
            EjectVerification(report, unusedInteractions: .fail, bodyError: nil)
                == EjectVerification(failures: [.unmatched(Self.miss("Cassette: no recorded interaction matches GET https://a.example/"))]))
    }

    /// The test threw the unmatched request's own error: it is not said again, and nor are the
    /// unused interactions; an unmatched request the error does not mention still is.
    @Test func aTestThatAlreadyFailedIsNotDrowned() {
        let first = "Cassette: no recorded interaction matches GET https://a.example/ in cassette x (record mode none).\nTo fix: …"
        let second = "Cassette: no recorded interaction matches GET https://b.example/ in cassette x (record mode none).\nTo fix: …"
        let thrown = URLError(.resourceUnavailable, userInfo: [NSLocalizedDescriptionKey: first])
        let report = Self.report(unmatched: [first, second], unused: ["#1 GET https://c.example/"])
        #expect(
            EjectVerification(report, unusedInteractions: .fail, bodyError: thrown)
                == EjectVerification(failures: [.unmatched(Self.miss(second))]))

        struct AppError: Error {}
        let quiet = Self.report(unused: ["#1 GET https://c.example/"])
        #expect(EjectVerification(quiet, unusedInteractions: .fail, bodyError: AppError()) == EjectVerification())
    }

    /// Through the `.cassette` trait: a failure is an issue of the test. A warning is an issue of
    /// severity warning where Swift Testing has them (Swift 6.3 and later); with Swift 6.2's
    /// Testing, which keeps severities as SPI, it is a `Cassette warning:` line on standard error.
    /// Either way it is said once.
    @Test func theTraitRecordsFailuresAndWarningsAsIssues() async throws {
        let test = try #require(Test.current)
        let usersURL = "https://api.example.com/users/42?fields=name,email"
        let expected =
            "cassette \(PackagePaths.examples.appendingPathComponent("users-api.json").path): 2 recorded interactions answered no request:\n"
            + "  #2 POST https://api.example.com/users\n  #3 GET https://api.example.com/users?page=1&per_page=2\n"

        for policy in [UnusedInteractions.warn, .fail] {
            // Mode none: the committed example is only read.
            let trait = CassetteTrait.cassette("Examples/users-api", mode: .none, options: .init(unusedInteractions: policy))
            let play = {
                try await trait.provideScope(for: test, testCase: nil) {
                    let tape = try #require(Tape.current)
                    #expect(await Fetch.get(usersURL, on: tape.session).status == 200)
                }
            }
            #if compiler(>=6.3)
            let warningsAreIssues = true
            #else
            let warningsAreIssues = false
            #endif
            if policy == .fail || warningsAreIssues {
                let written = try await StandardError.capturing {
                    try await withKnownIssue {
                        try await play()
                    } matching: { issue in
                        #if compiler(>=6.3)
                        guard issue.severity == (policy == .fail ? .error : .warning) else { return false }
                        #endif
                        return issue.comments.map(\.rawValue).joined().hasPrefix(expected)
                    }
                }
                #expect(written == [], "\(policy): said as an issue, not on standard error too")
            } else {
                let written = try await StandardError.capturing { try await play() }
                #expect(written.count == 1, "\(written)")
                #expect(written.first?.hasPrefix("Cassette warning: " + expected) == true, "\(written)")
            }
        }
    }

    // MARK: Staleness

    static let oldCassette = """
        {"version":1,"interactions":[
          {"recordedAt":"2020-01-02T03:04:05.678Z","request":{"method":"GET","url":"URL"},"response":{"status":200,"body":"old"}},
          {"request":{"method":"GET","url":"URL?hand=written"},"response":{"status":200,"body":"by hand"}}
        ]}
        """

    static func staleMessage(_ file: URL, age: String = "30 days", replayed: Int = 1, test: String? = nil) -> String {
        let days = Int(Date().timeIntervalSince(Date(timeIntervalSince1970: 1_577_934_245.678)) / 86_400)
        let refresh =
            test.map { "Refresh it with CASSETTE_RECORD_MODE=all swift test --filter '\($0)'" }
            ?? "Re-record it with CASSETTE_RECORD_MODE=all"
        return "cassette \(file.path) is stale: 1 of the \(replayed) interactions replayed were recorded more than \(age) ago "
            + "(the oldest at 2020-01-02T03:04:05.678Z, \(days) days ago). \(refresh) on a machine with network access, and commit it."
    }

    @Test func aStaleCassetteWarnsOrFailsAndStillReplays() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("old.json")
            try Data(Self.oldCassette.replacingOccurrences(of: "URL", with: "https://api.example.com/feed").utf8).write(to: file)
            let month: TimeInterval = 30 * 86_400

            let warned = try Tape(file: file, mode: .none, options: .init(staleness: .warn(after: month)), environment: .tests)
            #expect(await Fetch.get("https://api.example.com/feed", on: warned.session).text == "old")
            #expect(await Fetch.get("https://api.example.com/feed?hand=written", on: warned.session).text == "by hand")
            #expect(try warned.eject().stale == Tape.Report.Stale(message: Self.staleMessage(file, replayed: 2), fails: false))

            // The refresh command names the test that opened the cassette.
            await #expect(
                throws: CassetteError.verificationFailed([
                    .stale(
                        cassette: file, message: Self.staleMessage(file, age: "1.5 days", test: "aStaleCassetteWarnsOrFailsAndStillReplays")
                    )
                ])
            ) {
                try await withCassette(
                    "old", folder: scratch.url.path, mode: .none, options: .init(staleness: .fail(after: 1.5 * 86_400)),
                    environment: .tests
                ) { tape in
                    #expect(await Fetch.get("https://api.example.com/feed", on: tape.session).text == "old")
                }
            }

            // Younger than the limit: nothing to say.
            let fresh = try Tape(file: file, mode: .none, options: .init(staleness: .fail(after: 100 * 365 * 86_400)), environment: .tests)
            #expect(await Fetch.get("https://api.example.com/feed", on: fresh.session).text == "old")
            #expect(try fresh.eject().stale == nil)

            // Only what the test replays counts: the old interaction unasked, the cassette is not stale.
            let unasked = try Tape(file: file, mode: .none, options: .init(staleness: .fail(after: month)), environment: .tests)
            #expect(await Fetch.get("https://api.example.com/feed?hand=written", on: unasked.session).text == "by hand")
            #expect(try unasked.eject().stale == nil)
        }
    }

    /// On CI (`CI` set, or mode none) a stale cassette is never re-recorded: it warns, or fails
    /// when the policy says so, and the file keeps its bytes — even when the mode asked for
    /// could record.
    @Test(arguments: [Staleness.Action.warn, .fail]) func onCIAStaleCassetteNeverRecords(_ onCI: Staleness.Action) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("old.json")
            try Data(Self.oldCassette.replacingOccurrences(of: "URL", with: server.baseURL + "/status/201").utf8).write(to: file)
            let before = try Data(contentsOf: file)
            let note = " (On CI — record mode none, or CI set — a stale cassette is never re-recorded.)"
            for environment in [["CI": "true"], ["CI": "true", "CASSETTE_RECORD_MODE": "once"]] {
                let tape = try Tape(
                    file: file, options: .init(staleness: .reRecord(after: 30 * 86_400, onCI: onCI)), environment: environment)
                #expect(tape.mode == (environment["CASSETTE_RECORD_MODE"] == nil ? .none : .once))
                let replayed = await Fetch.get(server.baseURL + "/status/201", on: tape.session)
                #expect(replayed.status == 200 && replayed.text == "old")
                let report = try tape.eject()
                #expect(report.stale == Tape.Report.Stale(message: Self.staleMessage(file) + note, fails: onCI == .fail))
                #expect(report.recorded == 0 && !report.saved)
                #expect(try Data(contentsOf: file) == before)
            }
            #expect(server.received.isEmpty)
        }
    }

    @Test func aStaleCassetteIsReRecordedWhereTheModeRecords() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("old.json")
            try Data(Self.oldCassette.replacingOccurrences(of: "URL", with: server.baseURL + "/status/201").utf8).write(to: file)

            // Made by this test, however long a sanitizer makes it take: recorded after it began.
            let began = Date()
            let tape = try Tape(file: file, mode: .once, options: .init(staleness: .reRecord(after: 30 * 86_400)), environment: .tests)
            #expect(tape.mode == .all)
            let fetched = await Fetch.get(server.baseURL + "/status/201", on: tape.session)
            #expect(fetched.status == 201 && fetched.text == "status 201")
            let report = try tape.eject()
            #expect(report.recorded == 1 && report.saved && report.stale == nil)
            let interactions = try JSONCassetteCodec.decode(try Data(contentsOf: file)).interactions
            #expect(interactions.count == 1)
            #expect(interactions.first?.response?.body.text == "status 201")
            let recordedAt = try #require(interactions.first?.recordedAt)
            #expect(recordedAt >= began.addingTimeInterval(-0.001) && recordedAt <= Date(), "\(recordedAt), test began \(began)")
        }
    }
}
