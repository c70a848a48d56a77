import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// A re-recording that changed its cassette leaves what it changed for the test to carry
/// (`feed.rerecorded.txt`): interactions changed (each difference re-recording does not ignore),
/// added and removed; an unchanged re-recording and a first recording leave nothing.
@Suite struct RerecordingChangesTests {
    @Test func aReRecordingThatChangedTheCassetteLeavesWhatChanged() async throws {
        try await withScratchTape(cassette: "feed.json") { scratch in
            let base = scratch.server.baseURL
            try Data(
                """
                { "version": 1, "interactions": [
                  { "request": { "method": "GET", "url": "\(base)/status/201" }, "response": { "status": 503, "body": { "text": "down" } },
                    "timing": { "firstByte": 0.01, "duration": 0.01 } },
                  { "request": { "method": "GET", "url": "\(base)/gone" }, "response": { "status": 200 } }
                ] }
                """.utf8
            ).write(to: scratch.file)
            let tape = try Tape(file: scratch.file, mode: .all, options: Tape.Options().quiet, environment: .tests)
            #expect(await Fetch.get(scratch.url("/status/201"), on: tape.session).status == 201)
            #expect(await Fetch.get(scratch.url("/status/202"), on: tape.session).status == 202)
            let report = try tape.eject()
            #expect(report.saved)
            let evidence = try #require(report.evidence.first)
            #expect(report.evidence.count == 1)
            #expect(evidence.name == "feed.rerecorded.txt")
            let headers = try #require(CassetteFile.read(scratch.file).interactions.first?.response?.headers)
            let added = headers.map { name, value in "  response.headers.\(name): added (\(value))" }
            #expect(
                evidence.contents
                    == ([
                        "\(scratch.file.path), re-recorded: 1 interaction changed, 1 added, 1 removed",
                        "interaction #1 (GET \(base)/status/201) changed:",
                        "  response.status: 503 → 201",
                    ] + added.filter { !$0.contains(".Date:") } + [
                        "  response.body: 4 bytes, fnv1a \(Self.fnv("down")) → 10 bytes, fnv1a \(Self.fnv("status 201"))",
                        "interaction #2 (GET \(base)/status/202): added",
                        "interaction #2 of the old file (GET \(base)/gone): removed",
                    ]).joined(separator: "\n") + "\n")

            // The same traffic again changes nothing, and leaves nothing. The timing tolerance is
            // widened: a loaded machine can take longer than 50 ms for one loopback answer, and
            // that change is real (ReRecordingTests pins the default tolerance).
            var steady = Tape.Options().quiet
            steady.ignoredChanges.timingSeconds = 60
            let again = try Tape(file: scratch.file, mode: .all, options: steady, environment: .tests)
            _ = await Fetch.get(scratch.url("/status/201"), on: again.session)
            _ = await Fetch.get(scratch.url("/status/202"), on: again.session)
            #expect(try again.eject().evidence == [])
        }
    }

    @Test func aFirstRecordingLeavesNothing() async throws {
        try await withScratchTape(cassette: "feed.json") { scratch in
            let tape = try Tape(file: scratch.file, mode: .once, options: Tape.Options().quiet, environment: .tests)
            #expect(await Fetch.get(scratch.url("/status/201"), on: tape.session).status == 201)
            let report = try tape.eject()
            #expect(report.saved && report.evidence == [])
        }
    }

    static func fnv(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
