import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests that go live and are kept nowhere: every request of a live tape (`CASSETTE_LIVE`,
/// `Tape.isLive`), and the requests a tape ignores (`IgnoredRequests`) in every mode. What the
/// caller gets is what it gets live, field by field, through each API.
@Suite struct PassThroughTests {
    /// A cassette whose recording of the loopback server's `/status/201` says otherwise (a 503),
    /// and a recording of an API the loopback server is not.
    static func writeCassette(to file: URL, base: String) throws {
        try Data(
            """
            { "version": 1, "interactions": [
              { "request": { "method": "GET", "url": "https://api.example.com/feed" }, "response": { "status": 200, "body": "feed" } },
              { "request": { "method": "GET", "url": "\(base)/status/201" }, "response": { "status": 503, "body": "recorded" } }
            ] }
            """.utf8
        ).write(to: file)
    }

    /// What the loopback server answers `path` with, through a session Cassette has nothing to do with.
    static func live(_ path: String, on server: LoopbackServer, style: FetchStyle) async -> Fetched {
        let session = style == .delegate ? Fetch.delegateSession { _ in } : URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        return await Fetch.get(server.baseURL + path, on: session, style: style)
    }

    // MARK: The live switch

    @Test(arguments: FetchStyle.allCases)
    func aLiveTapeSendsEveryRequestLiveAndKeepsNothing(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            try Self.writeCassette(to: scratch.file, base: scratch.server.baseURL)
            let before = try Data(contentsOf: scratch.file)
            let direct = await Self.live("/status/201", on: scratch.server, style: style)
            #expect(direct.status == 201)
            let tape = try Tape(file: scratch.file, mode: .none, options: Tape.Options().quiet, environment: ["CASSETTE_LIVE": "1"])
            let fetched = await Fetch.get(scratch.url("/status/201"), on: Fetch.session(of: tape, style: style), style: style)
            #expect(fetched.sameOutcome(as: direct), "live \(direct), through the live tape \(fetched)")
            #expect(fetched.text == "status 201")
            let report = try tape.eject()
            #expect(report.isLive)
            #expect(report.requests == 1)
            #expect(report.replayed == 0)
            #expect(report.recorded == 0)
            #expect(!report.saved)
            #expect(report.unmatched == [])
            #expect(report.unusedInteractions == [])
            #expect(report.warnings == [])
            #expect(try Data(contentsOf: scratch.file) == before)
            #expect(scratch.server.received.count == 2)
        }
    }

    /// Live, a cassette that does not exist is no error and is not created, in every mode.
    @Test(arguments: [RecordMode.none, .once, .newEpisodes, .all])
    func aLiveTapeNeitherNeedsNorWritesItsCassette(mode: RecordMode) async throws {
        try await withScratchTape { scratch in
            let tape = try Tape(file: scratch.file, mode: mode, options: Tape.Options().quiet, environment: ["CASSETTE_LIVE": "true"])
            #expect(await Fetch.get(scratch.url("/status/202"), on: tape.session).status == 202)
            let report = try tape.eject()
            #expect(report.isLive && !report.saved && report.recorded == 0 && report.warnings == [])
            #expect(!FileManager.default.fileExists(atPath: scratch.file.path))
        }
    }

    @Test func withCassetteAndTheTraitGoLiveToo() async throws {
        try await withScratchTape { scratch in
            try Self.writeCassette(to: scratch.file("live.json"), base: scratch.server.baseURL)
            let status = try await withCassette(
                "live", folder: scratch.url.path, mode: .none, environment: ["CASSETTE_LIVE": "1"]
            ) { tape in
                await Fetch.get(scratch.url("/status/201"), on: tape.session).status
            }
            #expect(status == 201)

            let test = try #require(Test.current)
            var trait = CassetteTrait.cassette("live", folder: scratch.url.path, mode: .none)
            trait.settings.environment = ["CASSETTE_LIVE": "1"]
            let traitStatus = Locked<Int?>(nil)
            try await trait.provideScope(for: test, testCase: nil) {
                let tape = try #require(Tape.current)
                let fetched = await Fetch.get(scratch.url("/status/201"), on: tape.session)
                traitStatus.withLock { $0 = fetched.status }
            }
            #expect(traitStatus.withLock { $0 } == 201)
        }
    }

    /// A scenario (an interaction marked `"scenario"`: a fault the live service will not make)
    /// replays on a live tape exactly as it replays offline, while every other request goes live.
    @Test(arguments: FetchStyle.allCases)
    func aScenarioKeepsReplayingOnALiveTape(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let base = scratch.server.baseURL
            try Data(
                """
                { "version": 1, "interactions": [
                  { "request": { "method": "GET", "url": "\(base)/status/201" }, "response": { "status": 503, "body": "down" },
                    "scenario": "the service is down" },
                  { "request": { "method": "GET", "url": "\(base)/status/202" }, "response": { "status": 500, "body": "recorded" } }
                ] }
                """.utf8
            ).write(to: scratch.file)
            let before = try Data(contentsOf: scratch.file)
            let offline = try Tape(file: scratch.file, mode: .none, options: Tape.Options().quiet, environment: [:])
            let replayed = await Fetch.get(scratch.url("/status/201"), on: Fetch.session(of: offline, style: style), style: style)
            _ = try offline.eject()
            let direct = await Self.live("/status/202", on: scratch.server, style: style)
            let received = scratch.server.received.count

            let tape = try Tape(file: scratch.file, mode: .none, options: Tape.Options().quiet, environment: ["CASSETTE_LIVE": "1"])
            let session = Fetch.session(of: tape, style: style)
            let scenario = await Fetch.get(scratch.url("/status/201"), on: session, style: style)
            #expect(scenario.sameOutcome(as: replayed), "offline \(replayed), on the live tape \(scenario)")
            #expect(scenario.status == 503)
            #expect(scenario.text == "down")
            let live = await Fetch.get(scratch.url("/status/202"), on: session, style: style)
            #expect(live.sameOutcome(as: direct), "live \(direct), on the live tape \(live)")
            #expect(live.text == "status 202")
            let report = try tape.eject()
            #expect(report.isLive)
            #expect(report.requests == 2)
            #expect(report.replayed == 1)
            #expect(report.recorded == 0)
            #expect(!report.saved)
            #expect(report.unmatched == [])
            #expect(report.unusedInteractions == [])
            #expect(try Data(contentsOf: scratch.file) == before)
            // Only the request no scenario answers reached the server.
            #expect(scratch.server.received.dropFirst(received).map(\.target) == ["/status/202"])
        }
    }

    // MARK: Ignored requests

    /// On CI (`CI` set: mode none), an ignored request goes live while the rest replays offline;
    /// a request to an ignored host that the cassette does not hold is no miss.
    @Test(arguments: FetchStyle.allCases)
    func anIgnoredRequestGoesLiveWhileTheRestReplays(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            try Self.writeCassette(to: scratch.file, base: scratch.server.baseURL)
            let before = try Data(contentsOf: scratch.file)
            let direct = await Self.live("/status/201", on: scratch.server, style: style)
            let directMissing = await Self.live("/status/404", on: scratch.server, style: style)
            let options = Tape.Options(ignoredRequests: IgnoredRequests(localhost: true)).quiet
            let tape = try Tape(file: scratch.file, options: options, environment: ["CI": "true"])
            #expect(tape.mode == .none)
            let session = Fetch.session(of: tape, style: style)
            let feed = await Fetch.get("https://api.example.com/feed", on: session, style: style)
            #expect(feed.status == 200)
            #expect(feed.text == "feed")
            let ignored = await Fetch.get(scratch.url("/status/201"), on: session, style: style)
            #expect(ignored.sameOutcome(as: direct), "live \(direct), ignored \(ignored)")
            let missing = await Fetch.get(scratch.url("/status/404"), on: session, style: style)
            #expect(missing.sameOutcome(as: directMissing))
            let report = try tape.eject()
            #expect(report.requests == 3)
            #expect(report.replayed == 1)
            #expect(report.unmatched == [])
            #expect(!report.saved)
            // The recording of the ignored URL answered nothing: it is the one unused interaction.
            #expect(report.unusedInteractions == ["#2 GET \(scratch.server.baseURL)/status/201"])
            #expect(try Data(contentsOf: scratch.file) == before)
        }
    }

    /// Recorded, then replayed: the ignored request is never in the cassette, and reaches the
    /// server both times with the same outcome as live.
    @Test(arguments: FetchStyle.allCases)
    func anIgnoredRequestIsNeverRecordedAndAlwaysLive(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let ignoring = Tape.Options(ignoredRequests: IgnoredRequests(where: { $0.url?.path.hasPrefix("/status/") == true }))
            let direct = await Self.live("/status/201", on: scratch.server, style: style)
            let recording = try scratch.tape(mode: .once, options: ignoring)
            let recordingSession = Fetch.session(of: recording, style: style)
            #expect(await Fetch.get(scratch.url("/echo/kept"), on: recordingSession, style: style).status == 200)
            let whileRecording = await Fetch.get(scratch.url("/status/201"), on: recordingSession, style: style)
            let recorded = try recording.eject()
            #expect(recorded.recorded == 1)
            #expect(try CassetteFile.read(scratch.file).interactions.map(\.request.url) == [scratch.url("/echo/kept")])

            let replaying = try scratch.tape(mode: .none, options: ignoring)
            let replaySession = Fetch.session(of: replaying, style: style)
            let received = scratch.server.received.count
            #expect(await Fetch.get(scratch.url("/echo/kept"), on: replaySession, style: style).status == 200)
            let whileReplaying = await Fetch.get(scratch.url("/status/201"), on: replaySession, style: style)
            #expect(scratch.server.received.count == received + 1, "only the ignored request reached the server")
            for outcome in [whileRecording, whileReplaying] {
                #expect(outcome.sameOutcome(as: direct), "live \(direct), through the tape \(outcome)")
            }
            let report = try replaying.eject()
            #expect(report.replayed == 1)
            #expect(report.unmatched == [])
            #expect(report.unusedInteractions == [])
        }
    }

    @Test func withCassetteAndTheTraitIgnoreToo() async throws {
        try await withScratchTape { scratch in
            try Self.writeCassette(to: scratch.file("ignoring.json"), base: scratch.server.baseURL)
            let options = Tape.Options(ignoredRequests: IgnoredRequests(hosts: ["127.0.0.1"]))
            let statuses = try await withCassette("ignoring", folder: scratch.url.path, mode: .none, options: options, environment: .tests)
            {
                tape in
                [
                    await Fetch.get("https://api.example.com/feed", on: tape.session).status,
                    await Fetch.get(scratch.url("/status/204"), on: tape.session).status,
                ]
            }
            #expect(statuses == [200, 204])

            let test = try #require(Test.current)
            var trait = CassetteTrait.cassette("ignoring", folder: scratch.url.path, mode: .none, options: options)
            trait.settings.environment = [:]
            let traitStatuses = Locked<[Int?]>([])
            try await trait.provideScope(for: test, testCase: nil) {
                let tape = try #require(Tape.current)
                let feed = await Fetch.get("https://api.example.com/feed", on: tape.session).status
                let live = await Fetch.get(scratch.url("/status/204"), on: tape.session).status
                traitStatuses.withLock { $0 = [feed, live] }
            }
            #expect(traitStatuses.withLock { $0 } == [200, 204])
        }
    }

    @Test func whatIsIgnored() {
        let never: () -> URLRequest = {
            Issue.record("the predicate was asked although no predicate is set")
            return URLRequest(url: URL(fileURLWithPath: "/"))
        }
        let localhost = IgnoredRequests(localhost: true)
        #expect(localhost.ignores(url: "http://localhost:8080/a", sent: never))
        #expect(localhost.ignores(url: "http://127.0.0.1/a", sent: never))
        #expect(localhost.ignores(url: "http://[::1]:9000/a", sent: never))
        #expect(!localhost.ignores(url: "http://127.0.0.2/a", sent: never))
        #expect(!localhost.ignores(url: "https://api.example.com/a", sent: never))
        let hosts = IgnoredRequests(hosts: ["Telemetry.Example.com"])
        #expect(hosts.ignores(url: "https://telemetry.example.COM/v1/events", sent: never))
        #expect(!hosts.ignores(url: "https://eu.telemetry.example.com/v1/events", sent: never))
        let ports = IgnoredRequests(ports: [443, 9229])
        #expect(ports.ignores(url: "https://api.example.com/a", sent: never))
        #expect(ports.ignores(url: "http://api.example.com:9229/a", sent: never))
        #expect(!ports.ignores(url: "http://api.example.com/a", sent: never))
        let predicate = IgnoredRequests(where: { $0.httpMethod == "OPTIONS" })
        var options = URLRequest(url: URL(string: "https://api.example.com/a")!)
        options.httpMethod = "OPTIONS"
        #expect(predicate.ignores(url: "https://api.example.com/a", sent: { options }))
        #expect(!predicate.ignores(url: "https://api.example.com/a", sent: { URLRequest(url: URL(string: "https://api.example.com/a")!) }))
        #expect(IgnoredRequests.none.isEmpty)
        #expect(!IgnoredRequests.none.ignores(url: "http://localhost/", sent: never))
    }
}
