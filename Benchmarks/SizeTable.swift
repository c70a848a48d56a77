import Cassette
import CassetteFormats
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CassetteBench --sizes`: what a cassette costs by its size, as a table for
/// `docs/Performance.md` — by how many interactions it holds (1 KB JSON bodies), then by the size
/// of one body: the file's size, opening a tape on it (read and decode), a first replay (match and
/// answer, the median of up to 200 distinct requests), and saving it (encode, write, rename).
/// Not run by CI: the largest rows take about a minute.
enum SizeTable {
    struct Row {
        var label: String
        var fileBytes: Int
        var load: Double
        var replay: Double
        var save: Double
    }

    /// The median of `runs` timings of `body`, in seconds.
    static func median(_ runs: Int, _ body: () async throws -> Void) async rethrows -> Double {
        var times: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            try await body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return Harness.median(times)
    }

    /// One row: `document` saved to a file, opened, replayed at `urls`, saved again.
    static func row(_ label: String, document: CassetteDocument, urls: [(URL, Int)], folder: URL, runs: Int) async throws -> Row {
        let file = folder.appendingPathComponent("size-\(label.filter(\.isLetter))-\(document.interactions.count).json")
        try CassetteFile.write(document, to: file)
        let fileBytes = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        let load = try await median(runs) { _ = try Tape(file: file, mode: .none, environment: [:]).eject() }
        let tape = try Tape(file: file, mode: .none, options: .init(allowsRepeatedReplays: true), environment: [:])
        var replays: [Double] = []
        for (url, size) in urls {
            replays.append(try await median(1) { try await Requests.fetch(url, on: tape.session, bodySize: size) })
        }
        _ = try tape.eject()
        let save = try await median(runs) { try CassetteFile.write(document, to: file) }
        try? FileManager.default.removeItem(at: file)
        return Row(label: label, fileBytes: fileBytes, load: load, replay: Harness.median(replays), save: save)
    }

    static func rows(folder: URL) async throws -> (byCount: [Row], byBody: [Row]) {
        var byCount: [Row] = []
        for count in [10, 100, 1_000, 10_000, 100_000] {
            let urls = (0..<count).map { "https://bench.example/items/\($0)?page=\($0 % 7)" }
            let document = CassetteDocument(interactions: urls.map(ReplayBenchmarks.interaction))
            let asked = stride(from: 0, to: count, by: max(1, count / 200)).compactMap { URL(string: urls[$0]) }
            byCount.append(
                try await row(
                    "\(grouped(count)) interactions", document: document, urls: asked.map { ($0, ReplayBenchmarks.body.count) },
                    folder: folder, runs: count >= 10_000 ? 3 : 9))
        }
        var byBody: [Row] = []
        for size in [10 << 10, 1 << 20, 10 << 20, 50 << 20] {
            let body = SuiteBenchmark.json(size: size, seed: size)
            let url = "https://bench.example/report"
            let interaction = Interaction(
                request: .init(url: url),
                response: .init(
                    status: 200, headers: ["Content-Type": "application/json"], body: .init(body, contentType: "application/json")))
            guard let asked = URL(string: url) else { continue }
            byBody.append(
                try await row(
                    "one \(size >= 1 << 20 ? "\(size >> 20) MB" : "\(size >> 10) KB") JSON body",
                    document: CassetteDocument(interactions: [interaction]), urls: [(asked, body.count)], folder: folder,
                    runs: size >= 10 << 20 ? 3 : 9))
        }
        return (byCount, byBody)
    }

    /// `100,000`.
    static func grouped(_ number: Int) -> String {
        let digits = Array(String(number))
        return String(digits.enumerated().flatMap { index, digit in (index > 0 && (digits.count - index) % 3 == 0 ? [","] : []) + [digit] })
    }

    static func duration(_ seconds: Double) -> String {
        seconds >= 1
            ? String(format: "%.2f s", seconds)
            : seconds >= 1e-3
                ? String(format: "%.1f ms", seconds * 1e3)
                : String(format: "%.0f µs", seconds * 1e6)
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes >= 1 << 20 ? String(format: "%.1f MB", Double(bytes) / 1_048_576) : String(format: "%.0f KB", Double(bytes) / 1024)
    }

    /// The two tables, in Markdown, then a `SIZE` line per row.
    static func print(folder: URL) async throws {
        let (byCount, byBody) = try await rows(folder: folder)
        for (title, rows) in [("cassette", byCount), ("body", byBody)] {
            Swift.print("| \(title) | file | open a tape (read, decode) | first replay | save |")
            Swift.print("| --- | ---: | ---: | ---: | ---: |")
            for row in rows {
                Swift.print(
                    "| \(row.label) | \(megabytes(row.fileBytes)) | \(duration(row.load)) | \(duration(row.replay)) | \(duration(row.save)) |"
                )
            }
            Swift.print("")
        }
        for row in byCount + byBody {
            Swift.print(
                "SIZE label=\"\(row.label)\" file_bytes=\(row.fileBytes) load_s=\(row.load) replay_s=\(row.replay) save_s=\(row.save)")
        }
    }
}
