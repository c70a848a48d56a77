import Cassette
import CassetteTestSupport
import Foundation
import Testing

/// `CASSETTE_REPORT_HTML=1`: a tape that missed writes its misses beside the cassette, each next to
/// its closest recordings with what differs, on `cassette view`'s page (read here in Chromium).
@Suite(.enabled(if: HeadlessBrowser.runsTests, "needs Debian's chromium (.ci/run installs it)"))
struct MissReportPageTests {
    @Test func aMissIsShownNextToItsClosestRecording() async throws {
        try await withScratchTape(cassette: "users.json") { scratch in
            try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [
                    Interaction(request: .init(url: "https://api.example.com/users/42?fields=name"), response: .init(status: 200)),
                    Interaction(request: .init(method: "POST", url: "https://api.example.com/orders"), response: .init(status: 201)),
                ])
            ).write(to: scratch.file)
            let quiet = try Tape(file: scratch.file, mode: .none, environment: [:])
            _ = await Fetch.get("https://api.example.com/users/42?fields=email", on: quiet.session)
            #expect(try quiet.eject().missReportPage == nil)
            #expect(!FileManager.default.fileExists(atPath: scratch.file("users.misses.html").path))

            let tape = try Tape(file: scratch.file, mode: .none, options: Tape.Options().quiet, environment: ["CASSETTE_REPORT_HTML": "1"])
            let miss = await Fetch.get("https://api.example.com/users/42?fields=email", on: tape.session)
            #expect(miss.errorCode == .resourceUnavailable)
            let page = try #require(try tape.eject().missReportPage)
            #expect(page.path == scratch.file("users.misses.html").path)

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
}
