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

    /// What a re-recording reads of the old cassette at open: its scenarios, each whole, a large
    /// scenario body included; the other interactions' large bodies are left in the file, since
    /// they are replaced (decoding a 100 MB body only to drop it held it once more in memory).
    @Test func theScenariosAreReadWithoutTheLargeBodiesTheRecordingReplaces() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scenarios-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let large = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        let big = Interaction(
            request: .init(url: "https://api.example/big"),
            response: .init(status: 200, body: .init(large, contentType: "application/octet-stream")))
        let scenario = Interaction(
            request: .init(url: "https://api.example/down"), response: .init(status: 503, body: .init(text: "down")),
            scenario: "status 503")
        let file = folder.appendingPathComponent("mixed.json")
        try CassetteFile.write(CassetteDocument(interactions: [big, scenario, big]), to: file)
        #expect(try CassetteFile.scenarios(in: file) == [scenario])
        // Left unread: four characters of the large body made invalid base64 do not stop it (a
        // whole read fails on them), and the scenario is still kept.
        var text = try String(contentsOf: file, encoding: .utf8)
        let middle = try #require(text.range(of: Base64Probe.encoded(large.prefix(3 << 10))))
        text.replaceSubrange(text.index(middle.lowerBound, offsetBy: 400)..<text.index(middle.lowerBound, offsetBy: 404), with: "!!!!")
        try Data(text.utf8).write(to: file)
        #expect(throws: CassetteFormatError.self) { try CassetteFile.read(file) }
        #expect(try CassetteFile.scenarios(in: file) == [scenario])

        let largeScenario = Interaction(
            request: .init(url: "https://api.example/big-down"),
            response: .init(status: 500, body: .init(large, contentType: "application/octet-stream")), scenario: "a large 500")
        let both = folder.appendingPathComponent("both.json")
        try CassetteFile.write(CassetteDocument(interactions: [big, largeScenario]), to: both)
        let read = try CassetteFile.scenarios(in: both)
        #expect(read == [largeScenario])
        #expect(read.first?.response?.body.data == large)

        // A large part of a multipart scenario body is read whole, not left in the file.
        let multipartScenario = MultipartRerecordingTests.upload(of: large, answered: .init(status: 507), scenario: "storage full")
        #expect(multipartScenario.request.body.form == .multipart)
        let parts = folder.appendingPathComponent("parts.json")
        try CassetteFile.write(CassetteDocument(interactions: [big, multipartScenario]), to: parts)
        #expect(try CassetteFile.scenarios(in: parts) == [multipartScenario])
        #expect(try CassetteFile.scenarios(in: parts).first?.request.body.data == multipartScenario.request.body.data)

        let none = folder.appendingPathComponent("none.json")
        try CassetteFile.write(CassetteDocument(interactions: [big]), to: none)
        #expect(try CassetteFile.scenarios(in: none).isEmpty)
    }

    private enum Base64Probe {
        static func encoded(_ data: Data) -> String { data.base64EncodedString() }
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
