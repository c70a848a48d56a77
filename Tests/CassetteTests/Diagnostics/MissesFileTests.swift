import Cassette
import CassetteTestSupport
import CassetteTools
import Foundation
import Testing

/// `CASSETTE_WRITE_MISSES=1`: a tape that missed writes its misses beside the cassette as a
/// cassette of their own, each missed request (with the error its client got) followed by its
/// closest recordings, with what differs as notes; `cassette view` shows that file as a page (read here in Chromium).
struct MissesFileTests {
    /// A cassette with two recordings, and a tape on it that misses one request.
    private func tapeThatMisses(in scratch: ScratchTape, environment: [String: String]) async throws -> Tape.Report {
        try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [
                Interaction(request: .init(url: "https://api.example.com/users/42?fields=name"), response: .init(status: 200)),
                Interaction(request: .init(method: "POST", url: "https://api.example.com/orders"), response: .init(status: 201)),
            ])
        ).write(to: scratch.file)
        let tape = try Tape(file: scratch.file, mode: .none, options: Tape.Options().quiet, environment: environment)
        let miss = await Fetch.get("https://api.example.com/users/42?fields=email", on: tape.session)
        #expect(miss.errorCode == .resourceUnavailable)
        return try tape.eject()
    }

    @Test func theMissesAreWrittenAsACassetteWithTheirNotes() async throws {
        try await withScratchTape(cassette: "users.json") { scratch in
            let quiet = try await tapeThatMisses(in: scratch, environment: .tests)
            #expect(quiet.missesFile == nil)
            #expect(!FileManager.default.fileExists(atPath: scratch.file("users.misses.json").path))

            let report = try await tapeThatMisses(in: scratch, environment: ["CASSETTE_WRITE_MISSES": "1"])
            let file = try #require(report.missesFile)
            #expect(file.path == scratch.file("users.misses.json").path)
            let misses = try JSONCassetteCodec.decode(Data(contentsOf: file))
            #expect(
                misses.interactions.map(\.request.url) == [
                    "https://api.example.com/users/42?fields=email", "https://api.example.com/users/42?fields=name",
                ])
            // The miss with the error its client got; the closest recording whole, as in the cassette.
            #expect(misses.interactions.map(\.error?.code) == [.init(name: "resourceUnavailable"), nil])
            #expect(misses.interactions.map(\.response?.status) == [nil, 200])
            #expect(
                MissesFile.notes(in: misses).map { "\($0.interaction): \($0.text)" } == [
                    "0: miss 1: no recorded interaction matches this request (record mode none)",
                    "0: closest: recorded #1 (row 1), 1 difference(s)",
                    "1: recorded #1, closest to miss 1",
                    #"1: differs: query parameter "fields": recorded "name", requested "email""#,
                ])
        }
    }

    /// What the `.cassette` trait attaches to the test: the miss reports as the failure says them,
    /// and the misses as the file would hold them, whether or not the file is written; nothing
    /// for a tape without a miss.
    @Test func aMissLeavesItsEvidenceForTheTest() async throws {
        try await withScratchTape(cassette: "users.json") { scratch in
            let report = try await tapeThatMisses(in: scratch, environment: .tests)
            #expect(report.evidence.map(\.name) == ["users.misses.txt", "users.misses.json"])
            #expect(report.evidence.first?.contents == report.unmatched.map(\.description).joined(separator: "\n\n") + "\n")
            let misses = try JSONCassetteCodec.decode(Data(try #require(report.evidence.last).contents.utf8))
            #expect(
                misses.interactions.map(\.request.url) == [
                    "https://api.example.com/users/42?fields=email", "https://api.example.com/users/42?fields=name",
                ])
            #expect(MissesFile.notes(in: misses).count == 4)

            let replayed = try Tape(file: scratch.file, mode: .none, options: Tape.Options().quiet, environment: .tests)
            #expect(await Fetch.get("https://api.example.com/users/42?fields=name", on: replayed.session).status == 200)
            #expect(try replayed.eject().evidence.isEmpty)
        }
    }

    @Test func theFormerSwitchNameStillWritesThem() async throws {
        try await withScratchTape(cassette: "users.json") { scratch in
            let report = try await tapeThatMisses(in: scratch, environment: ["CASSETTE_REPORT_HTML": "1"])
            #expect(report.missesFile?.path == scratch.file("users.misses.json").path)
        }
    }

    #if os(Linux) || os(macOS)  // starts a process
    @Test(
        .enabled(
            if: HeadlessBrowser.runsTests,
            "needs Chrome or Chromium (HeadlessBrowser.candidates) or CASSETTE_BROWSER; .ci/run installs Debian's chromium"))
    func cassetteViewShowsEachMissNextToItsClosestRecording() async throws {
        try await withScratchTape(cassette: "users.json") { scratch in
            let report = try await tapeThatMisses(in: scratch, environment: ["CASSETTE_WRITE_MISSES": "1"])
            let file = try #require(report.missesFile)
            let source = CassetteViewPage.Source(
                file: file.path, format: "json", reading: try JSONCassetteCodec.decode(Data(contentsOf: file)))
            let page = scratch.file("users.misses.html")
            try Data(CassetteViewPage(sources: [source]).html().utf8).write(to: page)

            let dom = DumpedDOM(try HeadlessBrowser.dom(of: URL(string: page.absoluteString + "#detail=0")!))
            #expect(dom.html.contains(#"data-ready="1""#))
            let urls = dom.all(#"<td class="url"[^>]*>(.*?)</td>"#).map(DumpedDOM.text)
            #expect(urls == ["https://api.example.com/users/42?fields=email", "https://api.example.com/users/42?fields=name"])
            let detail = DumpedDOM.text(try #require(dom.all(#"(<section id="detail".*?</section>)"#).first))
            #expect(detail.contains("miss 1: no recorded interaction matches this request (record mode none)"))
            #expect(detail.contains("closest: recorded #1 (row 1), 1 difference(s)"))
            let candidate = DumpedDOM(try HeadlessBrowser.dom(of: URL(string: page.absoluteString + "#detail=1")!))
            let candidateDetail = DumpedDOM.text(try #require(candidate.all(#"(<section id="detail".*?</section>)"#).first))
            #expect(candidateDetail.contains("recorded #1, closest to miss 1"))
            #expect(candidateDetail.contains(#"differs: query parameter "fields": recorded "name", requested "email""#))
        }
    }
    #endif
}
