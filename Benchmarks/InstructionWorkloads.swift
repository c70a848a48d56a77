import Cassette
import CassetteServer
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fixed workloads whose instructions `Benchmarks/counts` counts under valgrind (cachegrind): a
/// measure that moves by well under 1 % between runs where wall time on two shared cores moves by
/// 10 %. Each is run alone in its own process (`CassetteBench --workload NAME`), and its count is
/// the process's less that of the same process stopping after the workload's setup
/// (`CassetteBench --workload NAME --setup-only`: the runtime's start, writing the cassettes), so
/// that only the work is counted.
///
/// What each does, always the same amount:
///
/// | name | work |
/// | --- | --- |
/// | `replay` | 200 replays of a 1 KB JSON answer, one in flight, through one tape's session |
/// | `suite_test` | 20 tests, each `withCassette` on its own cassette of 4 interactions, replaying each once, then ejecting |
/// | `open_100` | 10 times: a tape opened on a 100-interaction cassette, and ejected |
/// | `codec_1mb` | a 1 MB cassette decoded and encoded, 3 times |
/// | `serve` | 100 requests through `TapeServer`, one kept-alive connection |
enum InstructionWorkloads {
    static let names = ["replay", "suite_test", "open_100", "codec_1mb", "serve"]

    /// Runs workload `name` in `folder`; with `setupOnly`, only what it needs before its work.
    static func run(_ name: String, setupOnly: Bool, folder: URL) async throws {
        switch name {
        case "replay":
            let url = "https://api.bench.example/v1/items?page=1"
            let tape = try ReplayBenchmarks.tape(
                CassetteDocument(interactions: [ReplayBenchmarks.interaction(url)]), in: folder, name: "replay.json")
            guard let parsed = URL(string: url) else { throw Requests.Failed(description: "bad URL \(url)") }
            if setupOnly { return }
            try await Requests.sequential(Array(repeating: parsed, count: 200), on: tape.session, bodySize: ReplayBenchmarks.body.count)
            try tape.eject()
        case "suite_test":
            let tests = try SuiteBenchmark.make(tests: 20, withBigBody: false, folder: folder)
            let cassettes = folder.appendingPathComponent("Suite").path
            if setupOnly { return }
            for test in tests {
                try await withCassette(test.name, folder: cassettes, mode: .none, environment: [:], function: test.name + "()") { tape in
                    for (url, size) in test.requests { try await SuiteBenchmark.fetch(url, size: size, on: tape.session) }
                }
            }
        case "open_100":
            let file = folder.appendingPathComponent("open.json")
            try JSONCassetteCodec.encode(
                CassetteDocument(interactions: (0..<100).map { ReplayBenchmarks.interaction("https://api.bench.example/v1/items/\($0)") })
            ).write(to: file)
            if setupOnly { return }
            for _ in 0..<10 {
                let tape = try Tape(file: file, mode: .none, environment: [:])
                try tape.eject()
            }
        case "codec_1mb":
            let data = try JSONCassetteCodec.encode(CodecBenchmarks.document(megabytes: 1))
            if setupOnly { return }
            for _ in 0..<3 {
                let document = try JSONCassetteCodec.decode(data)
                guard try JSONCassetteCodec.encode(document) == data else { throw Requests.Failed(description: "the codec changed a byte") }
            }
        case "serve":
            _ = try ServeBenchmark.pair(clients: 1, requestsPerClient: 100, folder: folder)
            if setupOnly { return }
            let tape = try Tape(
                file: folder.appendingPathComponent("serve.json"), mode: .none, matching: .default.ignoringHost(),
                options: .init(allowsRepeatedReplays: true), environment: [:])
            let server = try tape.serve()
            _ = try ServeBenchmark.drive(port: server.port, clients: 1, requestsPerClient: 100)
            try tape.eject()
        default:
            throw Requests.Failed(description: "no workload named \(name); there are \(names.joined(separator: ", "))")
        }
    }
}
