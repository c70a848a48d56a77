import Cassette
import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteCLI

#if os(Linux) || os(macOS)  // starts a browser
/// `cassette view`, checked in a real browser: headless Chromium opens the page from `file://`,
/// runs its script, and the test reads the DOM it built.
@Suite(
    .enabled(
        if: HeadlessBrowser.runsTests,
        "needs Chrome or Chromium (HeadlessBrowser.candidates) or CASSETTE_BROWSER; .ci/run installs Debian's chromium"), .serialized)
struct ViewCommandTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)
    /// A 1×1 PNG.
    static let png = Data(
        base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!

    /// Every kind of interaction the page shows differently.
    static func kinds() -> [Interaction] {
        func at(_ seconds: TimeInterval) -> Date { start + seconds }
        let multipart = Multipart(
            boundary: "b0undary",
            parts: [
                .init(name: "title", body: Data("Holiday".utf8)),
                .init(name: "photo", filename: "photo.png", contentType: "image/png", body: png),
            ])
        let stream = Interaction.StreamedBody(chunks: [
            .init(at: 0.1, data: Data("data: one\n\n".utf8)), .init(at: 0.2, data: Data("data: two\n\n".utf8)),
            .init(at: 0.35, data: Data("data: [DONE]\n\n".utf8)),
        ])
        return [
            Interaction(
                recordedAt: at(0), request: .init(url: "https://api.example.com/users/42?fields=name%2Ctags"),
                response: .init(
                    status: 200, headers: ["Content-Type": "application/json"],
                    body: .init(
                        Data(#"{"id":42,"name":"Ada","tags":["a","b"],"address":{"city":"London","geo":{"lat":51.5}}}"#.utf8),
                        contentType: "application/json")),
                timing: .init(firstByte: 0.05, duration: 0.2)),
            Interaction(
                recordedAt: at(0.3),
                request: .init(
                    method: "POST", url: "https://api.example.com/upload",
                    headers: ["Content-Type": "multipart/form-data; boundary=b0undary"], body: .init(multipart.serialized())),
                response: .init(status: 201, headers: ["Content-Type": "application/json"], body: .init(text: #"{"ok":true}"#)),
                timing: .init(firstByte: 0.1, duration: 0.4)),
            Interaction(
                recordedAt: at(0.5), request: .init(url: "https://cdn.example.com/a.png"),
                response: .init(status: 200, headers: ["Content-Type": "image/png"], body: .init(png, contentType: "image/png")),
                timing: .init(firstByte: 0.02, duration: 0.05)),
            Interaction(
                recordedAt: at(0.6), request: .init(method: "POST", url: "https://api.example.com/v1/chat"),
                response: .init(status: 200, headers: ["Content-Type": "text/event-stream"], stream: stream),
                timing: .init(firstByte: 0.1, duration: 0.35)),
            Interaction(recordedAt: at(1.0), request: .init(url: "https://api.example.com/feed"), error: .init(code: .timedOut)),
            Interaction(
                recordedAt: at(1.1), request: .init(url: "https://api.example.com/old"),
                response: .init(status: 302, headers: ["Location": "https://api.example.com/new"]),
                timing: .init(firstByte: 0.01, duration: 0.01)),
            Interaction(
                recordedAt: at(1.12), request: .init(url: "https://api.example.com/new"),
                response: .init(status: 200, headers: ["Content-Type": "text/plain"], body: .init(text: "arrived")),
                timing: .init(firstByte: 0.01, duration: 0.03)),
            Interaction(
                recordedAt: at(1.2),
                request: .init(
                    method: "POST", url: "https://api.example.com/login",
                    headers: ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Bearer [REDACTED-2]"],
                    body: .init(text: "user=ada&password=[REDACTED-1]")),
                response: .init(status: 500, headers: ["Content-Type": "text/plain"], body: .init(text: "server error")),
                timing: .init(firstByte: 0.3, duration: 0.3)),
        ]
    }

    /// Writes `interactions` as a cassette and its page; returns the page's URL.
    static func page(_ interactions: [Interaction], in folder: URL, name: String = "kinds") throws -> URL {
        let cassette = folder.appendingPathComponent("\(name).json")
        try JSONCassetteCodec.encode(CassetteDocument(interactions: interactions)).write(to: cassette)
        let html = folder.appendingPathComponent("\(name).html")
        let result = Captured.run(["view", cassette.path, "-o", html.path])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.out == "wrote \(html.path) (\(interactions.count) interaction\(interactions.count == 1 ? "" : "s"))\n")
        return html
    }

    static func dom(_ page: URL, _ fragment: String = "") throws -> DumpedDOM {
        let url = URL(string: page.absoluteString + fragment) ?? page
        let dom = DumpedDOM(try HeadlessBrowser.dom(of: url))
        #expect(dom.html.contains(#"data-ready="1""#), "the page's script finished")
        return dom
    }

    /// The list's rows as the browser shows them: [index, method, URL, status].
    static func rows(_ dom: DumpedDOM, visibleOnly: Bool = false) -> [[String]] {
        dom.all(#"(<tr class="row[^"]*" data-index="\d+"[^>]*>.*?)</tr>"#).compactMap { row in
            if visibleOnly, row.contains("hidden=") { return nil }
            let cells = DumpedDOM(row).all(#"<td[^>]*>(.*?)</td>"#).map(DumpedDOM.text)
            return Array(cells.prefix(4))
        }
    }

    @Test func everyInteractionIsARowWithItsMethodURLAndStatus() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let dom = try Self.dom(try Self.page(Self.kinds(), in: scratch))
        #expect(
            Self.rows(dom) == [
                ["1", "GET", "https://api.example.com/users/42?fields=name,tags", "200"],
                ["2", "POST", "https://api.example.com/upload", "201"],
                ["3", "GET", "https://cdn.example.com/a.png", "200"],
                ["4", "POST", "https://api.example.com/v1/chat", "200"],
                ["5", "GET", "https://api.example.com/feed", "timedOut"],
                ["6", "GET", "https://api.example.com/old", "302"],
                ["7", "GET", "https://api.example.com/new", "200"],
                ["8", "POST", "https://api.example.com/login", "500"],
            ])
        #expect(dom.all(#"<span id="count">(.*?)</span>"#) == ["8 of 8"])
    }

    /// A cassette's metadata is among its facts.
    @Test func theMetadataIsShown() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var document = CassetteDocument(interactions: [Self.kinds()[0]])
        document.metadata = ["apiVersion": "2026-10-01"]
        let cassette = scratch.appendingPathComponent("tagged.json")
        try JSONCassetteCodec.encode(document).write(to: cassette)
        let html = scratch.appendingPathComponent("tagged.html")
        #expect(Captured.run(["view", cassette.path, "-o", html.path]).status == 0)
        let dom = try Self.dom(html)
        #expect(dom.all(#"<div class="metadata">(.*?)</div>"#).map(DumpedDOM.text) == [#"metadata: {"apiVersion":"2026-10-01"}"#])
    }

    @Test func eachKindOfInteractionHasItsDetail() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let page = try Self.page(Self.kinds(), in: scratch)
        func detail(_ index: Int) throws -> String {
            try #require(try Self.dom(page, "#detail=\(index)").all(#"(<section id="detail".*?</section>)"#).first)
        }
        let json = try detail(0)
        #expect(json.contains(#"data-index="0""#))
        #expect(json.contains(#"<div class="json"><details open=""><summary>{4}</summary>"#), "JSON folded by level")
        #expect(json.contains(#"<details><summary><span class="key">"geo"</span>: {1}</summary>"#), "deeper levels closed")
        #expect(DumpedDOM.text(json).contains(#""city": "London""#))
        let multipart = try detail(1)
        #expect(
            DumpedDOM(multipart).all(#"<tr class="part">(.*?)</tr>"#).map(DumpedDOM.text) == [
                "title(binary)".replacingOccurrences(of: "(binary)", with: "") + "7 BHoliday", "photophoto.pngimage/png70 B(binary)",
            ])
        let image = try detail(2)
        #expect(image.contains(#"<img class="body" alt="response image" src="data:image/png;base64,\#(Self.png.base64EncodedString())">"#))
        let stream = try detail(3)
        #expect(
            DumpedDOM(stream).all(#"<ol class="events">(.*?)</ol>"#).map(DumpedDOM.text) == ["100 ms: 11 B200 ms: 11 B350 ms: 14 B"])
        let failed = try detail(4)
        #expect(failed.contains(#"<p class="err outcome">timedOut · -</p>"#))
        #expect(failed.contains(#"<p class="err">timedOut</p>"#))
        let redirect = try detail(5)
        #expect(redirect.contains(#"<button class="link" data-next="6">next hop: #7</button>"#))
        #expect(try detail(6).contains(#"<button class="link" data-previous="5">#6 https://api.example.com/old</button>"#))
        let form = try detail(7)
        #expect(
            form.contains(
                #"<td>password</td><td><mark class="redacted" title="redacted: the recorded value was removed">[REDACTED-1]</mark></td>"#))
        #expect(form.contains(#"Bearer <mark class="redacted""#))
    }

    /// The page says what `cassette show` says: the number from 1, a latency written by hand (and
    /// the waterfall draws it, not the recorded timing), the scenario mark and the challenges.
    @Test func thePageShowsTheLatencyTheScenarioAndTheChallenges() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let page = try Self.page(FormatCommandsTests.marked.interactions, in: scratch, name: "marked")
        let dom = try Self.dom(page, "#detail=0")
        let cells = dom.all(#"<tr class="row[^"]*" data-index="0"[^>]*>(.*?)</tr>"#).flatMap {
            DumpedDOM($0).all(#"<td[^>]*>(.*?)</td>"#).map(DumpedDOM.text)
        }
        #expect(cells.first == "1")
        #expect(cells.contains("https://api.example.com/feed · scenario \"slow feed\""))
        #expect(cells.last == "latency fixed:1.5,1.5 (recorded 10 / 10 ms)")
        let detail = try #require(dom.all(#"(<section id="detail".*?</section>)"#).first)
        #expect(detail.contains(#"<p class="s2 outcome">200 · latency fixed:1.5,1.5 (recorded 10 / 10 ms)</p>"#))
        #expect(detail.contains(#"<p class="note">scenario "slow feed"</p>"#))
        let challenged = try #require(try Self.dom(page, "#detail=1").all(#"(<section id="detail".*?</section>)"#).first)
        #expect(challenged.contains(#"<p class="note">challenge HTTPBasic realm "api" (401): useCredential</p>"#))
        // One bar, 1.5 s long: the whole axis.
        let widths = dom.all(#"<rect class="bar"[^>]* width="([0-9.]+)""#).compactMap(Double.init)
        #expect(widths.count == 1 && abs((widths.first ?? 0) - 720) <= 2, "\(widths)")
    }

    @Test func waterfallBarsAreAsLongAsTheirDurations() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let interactions = Self.kinds()
        let dom = try Self.dom(try Self.page(interactions, in: scratch))
        let widths = dom.all(#"<rect class="bar"[^>]* width="([0-9.]+)""#).compactMap(Double.init)
        let timed = interactions.compactMap { $0.timing?.duration }
        #expect(widths.count == timed.count)
        // From the first start to the last end: 1.2 s + 0.3 s on 720 px.
        let scale = 720 / 1.5
        for (width, duration) in zip(widths, timed) {
            #expect(abs(width - duration * scale) <= 2, "\(width) px for \(duration) s")
        }
        #expect(dom.all(#"<line class="tick""#).count == 0)
        #expect(dom.html.components(separatedBy: #"class="tick""#).count - 1 == 3, "one tick per stream event")
    }

    @Test func filtersAndSortingFollowTheFragment() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let page = try Self.page(Self.kinds(), in: scratch)
        #expect(Self.rows(try Self.dom(page, "#filter=example.com%2Fu"), visibleOnly: true).map { $0[0] } == ["1", "2"])
        #expect(Self.rows(try Self.dom(page, "#status=5"), visibleOnly: true).map { $0[0] } == ["8"])
        #expect(Self.rows(try Self.dom(page, "#status=error"), visibleOnly: true).map { $0[0] } == ["5"])
        let sorted = try Self.dom(page, "#sort=-duration")
        #expect(Self.rows(sorted).map { $0[0] } == ["2", "4", "8", "1", "3", "7", "6", "5"])
        #expect(sorted.all(#"<span id="count">(.*?)</span>"#) == ["8 of 8"])
    }

    /// A cassette is untrusted: markup, script and `javascript:` URLs in it are shown as text and never run.
    @Test func nothingFromTheCassetteRuns() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let attacks = [
            "<script>document.title='pwned'</script>", #"<img src=x onerror="document.body.setAttribute('data-pwned','1')">"#,
            "</script><script>document.body.setAttribute('data-pwned','2')</script>", "javascript:document.title='pwned'",
        ]
        let hostile = attacks.enumerated().map { index, attack in
            Interaction(
                request: .init(
                    url: "https://evil.example/\(index)?q=\(attack.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")",
                    headers: ["X-Attack": attack]),
                response: .init(
                    status: 200, headers: ["Content-Type": "application/json", "Location": attack],
                    body: .init(text: #"{"html":"\#(attack.replacingOccurrences(of: "\"", with: "\\\""))"}"#)))
        }
        let page = try Self.page(hostile, in: scratch, name: "hostile")
        for index in hostile.indices {
            let dom = try Self.dom(page, "#detail=\(index)")
            #expect(dom.all(#"<title>(.*?)</title>"#) == ["hostile.json · Cassette"])
            #expect(dom.all(#"<body([^>]*)>"#).allSatisfy { !$0.contains("pwned") }, "no attribute was set on the body")
            #expect(!dom.html.contains("<script>document"), "no script element came from the cassette")
            #expect(!dom.html.contains("<img src=\"x\""), "no element came from the cassette")
            #expect(DumpedDOM.text(dom.html).contains(attacks[index]), "shown as text")
        }
    }

    /// `cassette diff --html`: each changed pair side by side with its changes highlighted, then
    /// what was added and removed.
    @Test func diffAsAPage() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        func interaction(_ path: String, _ status: Int, _ json: String) -> Interaction {
            Interaction(
                request: .init(url: "https://api.example.com" + path),
                response: .init(status: status, headers: ["Content-Type": "application/json"], body: .init(text: json)))
        }
        let old = scratch.appendingPathComponent("old.json")
        let new = scratch.appendingPathComponent("new.json")
        try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [interaction("/user", 200, #"{"id":42}"#), interaction("/gone", 200, "{}")])
        ).write(to: old)
        try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [interaction("/new", 200, "[]"), interaction("/user", 503, #"{"id":"42"}"#)])
        ).write(to: new)
        let html = scratch.appendingPathComponent("diff.html")
        let result = Captured.run(["diff", old.path, new.path, "--html", html.path])
        #expect(result.status == 1)
        #expect(result.error == "wrote \(html.path)\n")
        let dom = try Self.dom(html, "#detail=1")
        #expect(
            Self.rows(dom).map { [$0[2], $0[3]] } == [
                ["https://api.example.com/user", "200"], ["https://api.example.com/user", "503"], ["https://api.example.com/new", "200"],
                ["https://api.example.com/gone", "200"],
            ])
        let detail = try #require(dom.all(#"(<section id="detail".*?</section>)"#).first)
        #expect(
            DumpedDOM(detail).all(#"<p class="finding change">(.*?)</p>"#).map(DumpedDOM.text) == [
                "changed: response.status: 200 → 503", #"changed: response.body.$.id: a number 42 → a string "42""#,
            ])
        let sides = DumpedDOM(detail).all(#"<div class="side (old|new)">"#)
        #expect(sides == ["old", "new"])
        #expect(detail.contains(#"<p class="s2 outcome">200 · -</p>"#) && detail.contains(#"<p class="s5 outcome">503 · -</p>"#))
        let added = try #require(try Self.dom(html, "#detail=2").all(#"(<section id="detail".*?</section>)"#).first)
        #expect(DumpedDOM.text(added).contains("added: interactions[0] of the new cassette"))
    }

    @Test func aMalformedCassetteGetsLintsLocatedError() throws {
        let malformed = Locations.malformed + "/comment.json"
        let result = Captured.run(["view", malformed, "-o", "/dev/null"])
        #expect(result.status == 1)
        #expect(result.error == malformed + ":1:1: error: expected a value, found '/'\n")
    }

    /// A 50 MB body is shown cut to its first 256 KB, with its size: the page stays small.
    @Test func aFiftyMegabyteBodyIsShownCut() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let big = Data(repeating: UInt8(ascii: "a"), count: 50 * 1024 * 1024)
        let page = try Self.page(
            [
                Interaction(
                    request: .init(url: "https://api.example.com/export"),
                    response: .init(status: 200, headers: ["Content-Type": "text/plain"], body: .init(big, contentType: "text/plain")))
            ], in: scratch, name: "big")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: page.path)[.size] as? Int)
        #expect(size < 400_000, "\(size) bytes")
        let dom = try Self.dom(page, "#detail=0")
        #expect(dom.html.contains(#"<p class="note" data-kind="text">text, 50.0 MB (shown cut to its first 256.0 KB)</p>"#))
        #expect(Self.rows(dom).first?[3] == "200")
    }

    /// 5,000 interactions: the page is written in under 2 s and renders in the browser in well under
    /// the bound (the figure is printed for the note). It measures time, so it takes turns with the
    /// load-heavy tests (under AddressSanitizer, in the whole suite, the write once took 19 s).
    @Test(.timingIsolated) func fiveThousandInteractions() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        var many: [Interaction] = []
        for index in 0..<5_000 {
            let status = 200 + (index % 4) * 100
            let duration = 0.02 + Double(index % 7) * 0.01
            let response = Interaction.Response(
                status: status, headers: ["Content-Type": "application/json"], body: .init(text: "{\"id\":\(index)}"))
            many.append(
                Interaction(
                    recordedAt: Self.start + Double(index) * 0.01, request: .init(url: "https://api.example.com/items/\(index)"),
                    response: response, timing: .init(firstByte: 0.01, duration: duration)))
        }
        let cassette = scratch.appendingPathComponent("many.json")
        try JSONCassetteCodec.encode(CassetteDocument(interactions: many)).write(to: cassette)
        let html = scratch.appendingPathComponent("many.html")
        let began = Date()
        #expect(Captured.run(["view", cassette.path, "-o", html.path]).status == 0)
        let writing = Date().timeIntervalSince(began)
        #expect(writing < 2 * TimingIsolation.scale, "written in \(writing) s")
        let dom = try Self.dom(html)
        let rendered = try #require(dom.all(#"data-render-ms="([0-9.]+)""#).first.flatMap(Double.init))
        #expect(rendered < 10_000 * TimingIsolation.scale, "rendered in \(rendered) ms (the benchmark view_5k measures it)")
        #expect(dom.all(#"<span id="count">(.*?)</span>"#) == ["5000 of 5000"])
    }
}
#endif
