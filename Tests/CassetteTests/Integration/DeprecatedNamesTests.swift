import Cassette
import CassetteTestSupport
import Foundation
import Testing

/// The forwarders of names an earlier release used still open the same cassette.
@Suite struct DeprecatedNamesTests {
    @available(*, deprecated, message: "exercises the deprecated forwarders")
    @Test func aFolderGivenAsAURLStillWorks() async throws {
        try await withScratchTape { scratch in
            try CassetteFile.write(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(url: "https://api.example.com/ping"), response: .init(status: 200, body: .init(text: "pong")))
                ]),
                to: scratch.file("Ping.json"))
            let tape = try Tape(named: "Ping", in: scratch.url, mode: .none, environment: .tests)
            #expect(tape.file.standardizedFileURL == scratch.file("Ping.json").standardizedFileURL)
            #expect(await Fetch.get("https://api.example.com/ping", on: tape.session).text == "pong")
            try tape.eject()
            let text = try await withCassette("Ping", in: scratch.url, mode: .none, environment: .tests) { tape in
                await Fetch.get("https://api.example.com/ping", on: tape.session).text
            }
            #expect(text == "pong")
            let synchronous = try withCassette("Ping", in: scratch.url, mode: .none, environment: .tests) { tape in
                tape.file.lastPathComponent
            }
            #expect(synchronous == "Ping.json")
        }
    }

    @available(*, deprecated, message: "exercises the deprecated forwarders")
    @Test func theEarlierNamesOfTheReplayOptionsForwardToTheCurrentOnes() async throws {
        let marked = Interaction(request: .init(url: "https://api.example.com/marked"))
        var options = Tape.Options(allowsPlaybackRepeats: true, beforePlayback: { _ in marked }, volatileParts: .none)
        #expect(options.allowsRepeatedReplays)
        #expect(options.beforeReplay?(Interaction(request: .init(url: "https://other.example/")))?.request.url == marked.request.url)
        #expect(options.ignoredChanges == IgnoredChanges.none)
        options.allowsPlaybackRepeats = false
        options.volatileParts = VolatileParts.default
        options.beforePlayback = nil
        #expect(!options.allowsRepeatedReplays)
        #expect(options.ignoredChanges == IgnoredChanges.default)
        #expect(options.beforeReplay == nil)
        // A call with none of the earlier names is the current initializer's.
        #expect(!Tape.Options().allowsRepeatedReplays)
        let finding: EjectFinding = .stale(cassette: URL(fileURLWithPath: "/c.json"), message: "old")
        #expect(finding == VerificationFinding.stale(cassette: URL(fileURLWithPath: "/c.json"), message: "old"))
        #expect(EverySessionInterception.self == ConfigurationInterception.self)

        try await withScratchTape { scratch in
            try CassetteFile.write(
                CassetteDocument(interactions: [
                    Interaction(request: .init(url: "https://api.example.com/a"), response: .init(status: 200)),
                    Interaction(request: .init(url: "https://api.example.com/b"), response: .init(status: 200)),
                ]),
                to: scratch.file)
            let tape = try scratch.tape(mode: .none)
            #expect(await Fetch.get("https://api.example.com/a", on: tape.session).status == 200)
            let report = try tape.eject()
            #expect(report.unused == 1)
            #expect(report.unusedInteractions == ["#2 GET https://api.example.com/b"])
        }
    }
}
