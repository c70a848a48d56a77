import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Replays follow the latency chosen for them (issue 4). Bounds are generous: these machines are
/// shared and noisy; what is asserted is the order of magnitude and who wins.
@Suite struct LatencyReplayTests {
    static let slowURL = "https://api.example.com/slow"
    static let overriddenURL = "https://api.example.com/overridden"
    static let largeURL = "https://api.example.com/large"
    static let body1K = Data((0..<1000).map { UInt8($0 % 251) })
    static let body32K = Data((0..<32 * 1024).map { UInt8($0 % 253) })

    /// A cassette with one interaction recorded at first byte 0.3 s and duration 0.6 s, one with a
    /// hand-written `"latency"` of 0.5 s, and a 32 KB body recorded as instant.
    static func cassette(in scratch: ScratchTape) throws -> URL {
        func get(_ url: String, body: Data, timing: Interaction.Timing?, latency: Latency? = nil) -> Interaction {
            Interaction(
                request: .init(method: "GET", url: url),
                response: .init(status: 200, headers: ["Content-Type": "application/octet-stream"], body: .init(body)),
                timing: timing, latency: latency)
        }
        let document = CassetteDocument(interactions: [
            get(slowURL, body: body1K, timing: .init(firstByte: 0.3, duration: 0.6)),
            get(
                overriddenURL, body: body1K, timing: .init(firstByte: 0.01, duration: 0.02), latency: .fixed(firstByte: 0.5, duration: 0.5)),
            get(largeURL, body: body32K, timing: .init(firstByte: 0, duration: 0)),
        ])
        let file = scratch.file("latency.json")
        try JSONCassetteCodec.encode(document).write(to: file)
        return file
    }

    /// Seconds `url` takes to replay through a tape with `latency`, and what arrived.
    static func timedFetch(
        _ url: String, latency: Latency?, environment: [String: String] = [:], style: FetchStyle = .async
    )
        async throws -> (seconds: Double, fetched: Fetched)
    {
        try await TimingIsolation.run { try await timedFetchAlone(url, latency: latency, environment: environment, style: style) }
    }

    private static func timedFetchAlone(
        _ url: String, latency: Latency?, environment: [String: String], style: FetchStyle
    )
        async throws -> (seconds: Double, fetched: Fetched)
    {
        try await withScratchTape { scratch in
            let tape = try Tape(file: try cassette(in: scratch), mode: .none, options: .init(latency: latency), environment: environment)
            let session = Fetch.session(of: tape, style: style)
            let start = Date()
            let fetched = await Fetch.get(url, on: session, style: style)
            let seconds = Date().timeIntervalSince(start)
            _ = try tape.eject()
            return (seconds, fetched)
        }
    }

    @Test(arguments: FetchStyle.allCases)
    func recordedReplaysTheRecordedTiming(style: FetchStyle) async throws {
        let (seconds, fetched) = try await Self.timedFetch(Self.slowURL, latency: .recorded, style: style)
        #expect(fetched.status == 200)
        #expect(fetched.body == Self.body1K)
        #expect(seconds >= 0.55 && seconds <= 1.2 * TimingIsolation.scale, "took \(seconds) s")
        if style == .delegate {
            let head = try #require(fetched.headAfter)
            #expect(head >= 0.25 && head <= 0.9, "head after \(head) s")
            // A delegate gets the body in pieces between the first byte and the end.
            #expect(fetched.pieces.count > 1, "\(fetched.pieces)")
            #expect(fetched.pieces.reduce(0, +) == 1000)
        }
    }

    @Test func instantIsTheDefault() async throws {
        let (seconds, fetched) = try await Self.timedFetch(Self.slowURL, latency: nil)
        #expect(fetched.body == Self.body1K)
        #expect(seconds < 0.1 * TimingIsolation.scale, "took \(seconds) s")
    }

    @Test func scaledHalvesTheRecordedTiming() async throws {
        let (seconds, fetched) = try await Self.timedFetch(Self.slowURL, latency: .scaled(0.5))
        #expect(fetched.body == Self.body1K)
        #expect(seconds >= 0.27 && seconds <= 0.6 * TimingIsolation.scale, "took \(seconds) s")
    }

    @Test func fixedGivesEveryResponseTheSameTiming() async throws {
        let (seconds, fetched) = try await Self.timedFetch(Self.largeURL, latency: .fixed(firstByte: 0.1, duration: 0.4))
        #expect(fetched.body == Self.body32K)
        #expect(seconds >= 0.37 && seconds <= 1.0 * TimingIsolation.scale, "took \(seconds) s")
    }

    @Test(arguments: FetchStyle.allCases)
    func thirtyTwoKilobytesAtEDGESpeedTakeAboutTwoSeconds(style: FetchStyle) async throws {
        let (seconds, fetched) = try await Self.timedFetch(Self.largeURL, latency: .downloadSpeed(.edge), style: style)
        #expect(fetched.body == Self.body32K)
        #expect(seconds >= 1.9 && seconds <= 3.5 * TimingIsolation.scale, "took \(seconds) s")
        if style == .delegate {
            #expect(fetched.pieces.count >= 20, "\(fetched.pieces.count) pieces")
        }
    }

    @Test func theInteractionsOwnLatencyWinsOverThePolicy() async throws {
        for latency in [nil, Latency.instant, .scaled(10)] {
            let (seconds, fetched) = try await Self.timedFetch(Self.overriddenURL, latency: latency)
            #expect(fetched.body == Self.body1K)
            #expect(
                seconds >= 0.47 && seconds <= 1.1 * TimingIsolation.scale,
                "\(latency.map(String.init(describing:)) ?? "default"): took \(seconds) s")
        }
    }

    @Test func theEnvironmentSetsTheLatencyWhenTheCodeDoesNot() async throws {
        let fromEnvironment = try await Self.timedFetch(Self.slowURL, latency: nil, environment: ["CASSETTE_LATENCY": "recorded"])
        #expect(
            fromEnvironment.seconds >= 0.55 && fromEnvironment.seconds <= 1.2 * TimingIsolation.scale, "took \(fromEnvironment.seconds) s")
        let codeWins = try await Self.timedFetch(Self.slowURL, latency: .instant, environment: ["CASSETTE_LATENCY": "recorded"])
        #expect(codeWins.seconds < 0.1 * TimingIsolation.scale, "took \(codeWins.seconds) s")
    }

    @Test func anUnreadableLatencyInTheEnvironmentStopsTheTapeFromOpening() throws {
        try withScratchTape { scratch in
            let file = try Self.cassette(in: scratch)
            #expect(throws: CassetteError.invalidLatency("slow", source: "CASSETTE_LATENCY")) {
                try Tape(file: file, mode: .none, environment: ["CASSETTE_LATENCY": "slow"])
            }
            #expect(
                CassetteError.invalidLatency("slow", source: "CASSETTE_LATENCY").description
                    == "CASSETTE_LATENCY: cannot read the latency \"slow\"; expected instant, recorded, scaled:FACTOR, "
                    + "fixed:FIRSTBYTE,DURATION, or speed:SPEED[,FIRSTBYTE] where SPEED is bytes per second or one of gprs, edge, 3g, 3g+, wifi"
            )
            let tape = try Tape(file: file, mode: .none, environment: ["CASSETTE_LATENCY": "scaled:0.5"])
            #expect(tape.latency == .scaled(0.5))
            _ = try tape.eject()
        }
    }
}
