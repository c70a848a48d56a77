import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A scenario survives re-recording: `CASSETTE_RECORD_MODE=all` (the docs' way to re-record) over
/// a scenario cassette replays the marked 503 instead of sending the request live, records the
/// rest anew, and writes the scenario back as it was, mark included; the run's line says what it
/// kept. (It sent the scenario live and dropped its mark.)
@Suite struct ScenarioRerecordingTests {
    @Test(arguments: FetchStyle.allCases)
    func modeAllKeepsAScenarioAndReRecordsTheRest(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let scenario = Interaction(
                request: .init(method: "GET", url: scratch.url("/echo/down")),
                response: .init(status: 503, headers: ["Retry-After": "30"], body: .init(text: "down for maintenance")),
                scenario: "status 503")
            let old = Interaction(request: .init(method: "GET", url: scratch.url("/echo/up")), response: .init(status: 299))
            try CassetteFile.write(CassetteDocument(interactions: [old, scenario]), to: scratch.file)

            let tape = try Tape(file: scratch.file, mode: .none, environment: ["CASSETTE_RECORD_MODE": "all"])
            let down = await Fetch.run(
                URLRequest(url: try #require(URL(string: scratch.url("/echo/down")))), on: Fetch.session(of: tape, style: style),
                style: style)
            #expect(down.status == 503)
            #expect(down.text == "down for maintenance")
            let up = await Fetch.run(
                URLRequest(url: try #require(URL(string: scratch.url("/echo/up")))), on: Fetch.session(of: tape, style: style), style: style
            )
            #expect(up.status == 200)
            let report = try tape.eject()
            #expect(report.recorded == 1 && report.replayed == 1)
            #expect(scratch.server.received.map(\.target) == ["/echo/up"])

            let saved = try CassetteFile.read(scratch.file).interactions
            #expect(saved.count == 2)
            #expect(saved.first == scenario)
            #expect(saved.last?.request.url == scratch.url("/echo/up") && saved.last?.response?.status == 200)
        }
    }

    /// The run's line names what was kept.
    @Test func theLineSaysWhatWasKept() {
        let file = URL(fileURLWithPath: "/work/App/Cassettes/feed.json")
        #expect(
            SaveAnnouncement.line(
                recorded: 2, file: file, replacing: true, fileExisted: true, keptScenarios: ["status 503"], currentFolder: "/work/App")
                == "Cassette: recorded 2 interactions into Cassettes/feed.json (replacing what it held; kept 1 scenario as it was: status 503)"
        )
    }
}
