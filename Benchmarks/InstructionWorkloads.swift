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
/// | `floor` | the same 200 answers from `FloorProtocol` (`replay_vs_floor`'s floor): `replay` less this is Cassette's own |
/// | `replay_post` | the same for a `POST` with a 200-byte JSON body, matched by meaning |
/// | `suite_test` | 20 tests after a first one (in the setup: what a process pays once), each `withCassette` on its own cassette of 3–5 interactions, replaying each once, then ejecting |
/// | `open_100` | 10 times: a tape opened on a 100-interaction cassette, and ejected |
/// | `codec_1mb` | a 1 MB cassette decoded and encoded, 3 times |
/// | `serve` | 100 requests through `TapeServer`, one kept-alive connection |
enum InstructionWorkloads {
    static let names = ["replay", "floor", "replay_post", "suite_test", "open_100", "codec_1mb", "serve"]

    /// The `POST` of `replay_post`: a 200-byte JSON body.
    static func post(_ url: URL) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let items = (0..<6).map { #"{"id":\#($0),"name":"Item \#($0)"}"# }.joined(separator: ",")
        request.httpBody = Data(#"{"query":"items","page":1,"filters":[\#(items)]}"#.utf8)
        return request
    }

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
        case "floor":
            FloorProtocol.body = ReplayBenchmarks.body
            FloorProtocol.headers = ReplayBenchmarks.headers
            let session = FloorProtocol.session()
            guard let parsed = URL(string: "https://api.bench.example/v1/items?page=1") else {
                throw Requests.Failed(description: "bad URL")
            }
            if setupOnly { return }
            try await Requests.sequential(Array(repeating: parsed, count: 200), on: session, bodySize: ReplayBenchmarks.body.count)
        case "replay_post":
            let url = "https://api.bench.example/v1/search"
            guard let parsed = URL(string: url) else { throw Requests.Failed(description: "bad URL \(url)") }
            var interaction = ReplayBenchmarks.interaction(url)
            let request = post(parsed)
            interaction.request = Interaction.Request(
                method: "POST", url: url, headers: ["Content-Type": "application/json"], body: .init(request.httpBody ?? Data()))
            let tape = try ReplayBenchmarks.tape(CassetteDocument(interactions: [interaction]), in: folder, name: "post.json")
            if setupOnly { return }
            for _ in 0..<200 {
                let (data, response) = try await tape.session.data(for: request)
                guard (response as? HTTPURLResponse)?.statusCode == 200, data == ReplayBenchmarks.body else {
                    throw Requests.Failed(description: "\(url): not the recorded answer")
                }
            }
            try tape.eject()
        case "suite_test":
            let tests = try SuiteBenchmark.make(tests: 21, withBigBody: false, folder: folder)
            let cassettes = folder.appendingPathComponent("Suite").path
            // A ledger of its own, empty: the first tape of a process prunes the ledger's old runs,
            // which costs by how many a checkout has gathered (a clean clone has none).
            let environment = ["CASSETTE_LEDGER": folder.appendingPathComponent("ledger").path]
            func run(_ test: SuiteBenchmark.Test) async throws {
                try await withCassette(test.name, folder: cassettes, mode: .none, environment: environment, function: test.name + "()") {
                    tape in
                    for (url, size) in test.requests { try await SuiteBenchmark.fetch(url, size: size, on: tape.session) }
                }
            }
            // The first test pays what a process pays once (the ledger's opening, the platform's
            // first look at URLSession's internals): part of the setup, so that the count is what
            // each further test of a suite costs.
            try await run(tests[0])
            if setupOnly { return }
            for test in tests.dropFirst() { try await run(test) }
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
