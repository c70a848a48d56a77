import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One set of rules for code and commands: a cassette recorded by a test whose matching ignores a
/// query parameter and compares a header replays alike through a tape, `play` and `serve`, which
/// read the rules file beside it.
@Suite(.timingIsolated) struct RulesFileTests {
    #if os(Linux) || os(macOS)  // starts a process
    @Test func theSameRulesGiveTheSameAnswersThroughATapePlayAndServe() async throws {
        try await withScratchTape { scratch in
            try Data(
                #"{"matching": {"ignoringQueryParameters": ["cb"], "includingHeaders": ["Accept"]}, "allowsRepeatedReplays": true}"#
                    .utf8
            ).write(to: scratch.file(TapeRules.fileName))
            let rules = try #require(try TapeRules.inFolder(scratch.url))
            let file = scratch.file("api.json")
            func request(_ url: String, accept: Bool = true) throws -> URLRequest {
                var request = URLRequest(url: try #require(URL(string: url)))
                if accept { request.setValue("application/json", forHTTPHeaderField: "Accept") }
                return request
            }
            let recorder = try Tape(
                file: file, mode: .once, matching: rules.matching, options: rules.applying(to: Tape.Options()), environment: .tests)
            let live = await Fetch.run(try request(scratch.url("/echo?x=1&cb=111")), on: recorder.session, style: .async)
            #expect(live.status == 200)
            try recorder.eject()
            scratch.server.stop()  // offline from here
            let other = scratch.url("/echo?x=1&cb=999")

            // A tape with the rules, through each API: another cache buster matches, twice (repeats
            // allowed); without Accept, no match.
            for style in FetchStyle.allCases {
                let player = try Tape(
                    file: file, mode: .none, matching: rules.matching, options: rules.applying(to: Tape.Options()), environment: .tests)
                let session = style == .delegate ? Fetch.delegateSession(configuredBy: player.configure) : player.session
                for _ in 0..<2 {
                    let replayed = await Fetch.run(try request(other), on: session, style: style)
                    // The same answer (its URL is the request's, with the other cache buster).
                    #expect(
                        replayed.status == live.status && replayed.headers == live.headers && replayed.body == live.body, "\(style)")
                }
                let withoutAccept = await Fetch.run(try request(other, accept: false), on: session, style: style)
                #expect(withoutAccept.errorCode == Tape.unmatchedRequestErrorCode, "\(style)")
                if style == .delegate { session.finishTasksAndInvalidate() }
                try player.eject()
            }

            // play reads the file beside the cassette.
            let played = Captured.runCapturingBytes(["play", "--cassette", file.path, "-H", "Accept: application/json", other])
            #expect(played.status == 0 && played.out == live.body, "\(played.error)")
            let missed = Captured.run(["play", "--cassette", file.path, other])
            #expect(
                missed.status == 1 && missed.error.contains("header Accept: recorded \"application/json\", requested nothing"),
                "\(missed.error)")
            // --rules names another file; a wrong one is reported with its place.
            try Data(#"{"matching": {"includingHeaders": 1}}"#.utf8).write(to: scratch.file("wrong.json"))
            let wrong = Captured.run(["play", "--cassette", file.path, "--rules", scratch.file("wrong.json").path, other])
            #expect(wrong.status == 1)
            #expect(
                wrong.error
                    == "\(scratch.file("wrong.json").path):1:35: error: matching.includingHeaders: expected an array of strings, found the number 1\n"
            )

            // serve reads it too (repeats included).
            let served = try ServeCommandTests.Served(["--cassette", file.path, "--mode", "none"])
            let path = "/echo?x=1&cb=999"
            for _ in 0..<2 {
                #expect(ServeCommandTests.curl(["-H", "Accept: application/json", served.base + path]).out == live.text)
            }
            #expect(ServeCommandTests.curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", served.base + path]).out == "500")
            #expect(served.stop().status == 0)
        }
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    /// The rules file's `ignore`: `play` and `serve` (offline, mode none) send an ignored request
    /// live, as a tape with the same rules does, and record nothing of it.
    @Test func ignoredRequestsGoLiveThroughPlayAndServe() throws {
        try withScratchTape { scratch in
            try Data(#"{"ignore": {"localhost": true}}"#.utf8).write(to: scratch.file(TapeRules.fileName))
            let file = scratch.file("api.json")
            try Data(#"{ "version": 1, "interactions": [] }"#.utf8).write(to: file)
            let before = try Data(contentsOf: file)
            let played = Captured.run(["play", "--cassette", file.path, scratch.url("/status/201")])
            #expect(played.status == 0, "\(played.error)")
            #expect(played.out == "status 201")
            let recorded = Captured.run(["record", "--cassette", file.path, scratch.url("/status/202")])
            #expect(recorded.status == 0, "\(recorded.error)")
            #expect(recorded.out == "status 202")
            #expect(try Data(contentsOf: file) == before)
            // serve answers a request to the ignored host live: here the cassette's origin is the
            // loopback server itself.
            let served = try ServeCommandTests.Served(["--cassette", file.path, "--mode", "none", "--upstream", scratch.server.baseURL])
            #expect(ServeCommandTests.curl([served.base + "/status/203"]).out == "status 203")
            let stopped = served.stop()
            #expect(stopped.status == 0, "\(stopped.errors)")
            #expect(try Data(contentsOf: file) == before)
            #expect(scratch.server.received.map(\.target) == ["/status/201", "/status/202", "/status/203"])
        }
    }
    #endif
}
