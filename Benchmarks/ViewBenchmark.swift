import Cassette
import CassetteTools
import Foundation

/// `cassette view` on 5,000 interactions: writing the page, against encoding the same cassette
/// (the floor: the page carries the same data), and — when Debian's chromium is installed — the
/// browser's time from its script's start to the rendered list, printed as a `VIEW` line.
enum ViewBenchmark {
    static func interactions() -> [Interaction] {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        return (0..<5_000).map { index in
            Interaction(
                recordedAt: start + Double(index) * 0.01, request: .init(url: "https://bench.example/items/\(index)"),
                response: .init(status: 200, headers: ["Content-Type": "application/json"], body: .init(text: "{\"id\":\(index)}")),
                timing: .init(firstByte: 0.01, duration: 0.03))
        }
    }

    static func pair() -> Harness.Pair {
        let document = CassetteDocument(interactions: interactions())
        let source = CassetteViewPage.Source(file: "bench.json", format: "JSON", document: document, warnings: [])
        func time(_ body: () throws -> Void) rethrows -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        return Harness.Pair(
            name: "view_5k", what: "write cassette view's page for 5,000 interactions", aLabel: "CassetteViewPage.html",
            bLabel: "JSONCassetteCodec.encode", unit: "s", goal: 5,
            a: { time { _ = CassetteViewPage(sources: [source]).html() } },
            b: { try time { _ = try JSONCassetteCodec.encode(document) } })
    }

    /// Prints `VIEW name=view_5k_render render_ms=…` when a browser is installed.
    static func render(folder: URL) throws {
        #if !(os(Linux) || os(macOS))
        // Xcode builds every executable for iOS too; nothing starts a browser there.
        print("VIEW name=view_5k_render skipped: no processes on this platform")
        #else
        guard let browser = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: FileManager.default.isExecutableFile)
        else { return print("VIEW name=view_5k_render skipped: no chromium") }
        let page = folder.appendingPathComponent("view-bench.html")
        let source = CassetteViewPage.Source(
            file: "bench.json", format: "JSON", document: CassetteDocument(interactions: interactions()), warnings: [])
        try Data(CassetteViewPage(sources: [source]).html().utf8).write(to: page)
        let chromium = try SpawnedProcess.run(
            executable: browser, ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.absoluteString])
        let dom = String(decoding: chromium.output, as: UTF8.self)
        let rendered = dom.range(of: #"data-render-ms="[0-9.]+""#, options: .regularExpression).map {
            dom[$0].dropFirst("data-render-ms=\"".count).dropLast()
        }
        print("VIEW name=view_5k_render render_ms=\(rendered.map(String.init) ?? "unknown")")
        #endif
    }
}
