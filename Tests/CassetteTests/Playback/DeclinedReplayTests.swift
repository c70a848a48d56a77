import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `beforeReplay` returning nil declines a recording: for that request it is as if absent — the
/// next recording that matches answers, or the record mode decides — and the report says so.
@Suite struct DeclinedReplayTests {
    /// Two recordings of `GET /feed`: a 500, then a 200.
    static func writeFeed(to file: URL, url: String) throws {
        try Data(
            """
            { "version": 1, "interactions": [
              { "request": { "method": "GET", "url": "\(url)" }, "response": { "status": 500, "body": "broken" } },
              { "request": { "method": "GET", "url": "\(url)" }, "response": { "status": 200, "body": "fine" } }
            ] }
            """.utf8
        ).write(to: file)
    }

    static let declineServerErrors = Tape.Options(beforeReplay: { ($0.response?.status ?? 0) >= 500 ? nil : $0 })

    @Test(arguments: FetchStyle.allCases)
    func theNextMatchingRecordingAnswers(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let url = "https://api.example.com/feed"
            try Self.writeFeed(to: scratch.file, url: url)
            let tape = try scratch.tape(mode: .none, options: Self.declineServerErrors)
            let session = Fetch.session(of: tape, style: style)
            let fetched = await Fetch.get(url, on: session, style: style)
            #expect(fetched.status == 200)
            #expect(fetched.text == "fine")
            #expect(tape.reportSoFar.declined == [1])
            let report = try tape.eject()
            #expect(report.declined == [1])
            #expect(report.replayed == 1)
            #expect(report.unmatched == [])
            #expect(report.unusedInteractions == ["#1 GET https://api.example.com/feed"])
        }
    }

    /// With nothing left to answer, a tape that only replays misses, and the miss names the declined recording.
    @Test func withNothingLeftTheMissSaysWhatWasDeclined() async throws {
        try await withScratchTape { scratch in
            let url = "https://api.example.com/feed"
            try Self.writeFeed(to: scratch.file, url: url)
            let tape = try scratch.tape(mode: .none, options: Tape.Options(beforeReplay: { _ in nil }))
            let fetched = await Fetch.get(url, on: tape.session)
            #expect(fetched.errorCode == RequestFailure.unmatchedCode)
            let report = try tape.eject()
            #expect(report.declined == [1, 2])
            #expect(report.unmatched.count == 1)
            #expect(
                report.unmatched.first?.description.contains(
                    "Note: recorded interactions #1, #2 match, but beforeReplay declined them (returned nil)") == true,
                "\(report.unmatched.first?.description ?? "")")
        }
    }

    /// A miss after a declined replay names the declined recording as declined and the one that
    /// answered as answered: #1 (a 200, declined each time) never answered anything.
    @Test func aMissNamesDeclinedAndAnsweredApart() async throws {
        try await withScratchTape { scratch in
            let url = "https://api.example.com/foo"
            try Data(
                """
                { "version": 1, "interactions": [
                  { "request": { "method": "GET", "url": "\(url)" }, "response": { "status": 200, "body": "fine" } },
                  { "request": { "method": "GET", "url": "\(url)" }, "response": { "status": 500, "body": "broken" } }
                ] }
                """.utf8
            ).write(to: scratch.file)
            let declineSuccesses = Tape.Options(beforeReplay: { $0.response?.status == 200 ? nil : $0 })
            let tape = try scratch.tape(mode: .none, options: declineSuccesses)
            let first = await Fetch.get(url, on: tape.session)
            #expect(first.status == 500)
            let second = await Fetch.get(url, on: tape.session)
            #expect(second.errorCode == RequestFailure.unmatchedCode)
            let report = try tape.eject()
            #expect(report.declined == [1, 1])
            let lines = (report.unmatched.first?.description ?? "").split(separator: "\n").map(String.init)
            #expect(
                lines.contains(
                    "It matches recorded interaction #2, which already answered an earlier request: each recorded interaction answers once."
                ),
                "\(lines)")
            #expect(lines.contains("Note: recorded interaction #1 matches, but beforeReplay declined it (returned nil)"), "\(lines)")
            #expect(!lines.contains { $0.contains("#1, #2") }, "\(lines)")
        }
    }

    /// A tape that records records the request again: the mode decides.
    @Test func aRecordingTapeRecordsItAgain() async throws {
        try await withScratchTape { scratch in
            let url = scratch.url("/echo/feed")
            try Self.writeFeed(to: scratch.file, url: url)
            let tape = try scratch.tape(mode: .newEpisodes, options: Tape.Options(beforeReplay: { _ in nil }))
            let fetched = await Fetch.get(url, on: tape.session)
            #expect(fetched.status == 200)
            #expect(fetched.headers["Content-Type"] == "application/json")
            let report = try tape.eject()
            #expect(report.declined == [1, 2])
            #expect(report.recorded == 1)
            #expect(try CassetteFile.read(scratch.file).interactions.map { $0.response?.status } == [500, 200, 200])
        }
    }

    @Test func withCassetteDeclinesToo() async throws {
        try await withScratchTape { scratch in
            let url = "https://api.example.com/feed"
            try Self.writeFeed(to: scratch.file("declined.json"), url: url)
            let fetched = try await withCassette(
                "declined", folder: scratch.url.path, mode: .none, options: Self.declineServerErrors, environment: .tests
            ) { tape in
                await Fetch.get(url, on: tape.session)
            }
            #expect(fetched.status == 200)
            #expect(fetched.text == "fine")
        }
    }

    @Test func theTraitDeclinesToo() async throws {
        let test = try #require(Test.current)
        try await withScratchTape { scratch in
            let url = "https://api.example.com/feed"
            try Self.writeFeed(to: scratch.file("traited.json"), url: url)
            var trait = CassetteTrait.cassette("traited", folder: scratch.url.path, mode: .none, options: Self.declineServerErrors)
            trait.settings.environment = [:]
            let status = Locked<Int?>(nil)
            try await trait.provideScope(for: test, testCase: nil) {
                let tape = try #require(Tape.current)
                let fetched = await Fetch.get(url, on: tape.session)
                status.withLock { $0 = fetched.status }
                #expect(tape.reportSoFar.declined == [1])
            }
            #expect(status.withLock { $0 } == 200)
        }
    }

    @Sendable static func marked(_ interaction: Interaction) -> Interaction {
        var interaction = interaction
        interaction.response?.headers["X-Replayed"] = "yes"
        return interaction
    }

    /// The hook's earlier shape, a function that always returns an interaction, is still accepted.
    @Test func aHookThatAlwaysReturnsAnInteractionStillCompiles() async throws {
        try await withScratchTape { scratch in
            let url = "https://api.example.com/feed"
            try Self.writeFeed(to: scratch.file, url: url)
            let tape = try scratch.tape(mode: .none, options: Tape.Options(beforeReplay: Self.marked))
            let fetched = await Fetch.get(url, on: tape.session)
            #expect(fetched.status == 500)
            #expect(fetched.headers["X-Replayed"] == "yes")
            #expect(try tape.eject().declined == [])
        }
    }
}
