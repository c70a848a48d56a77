import Cassette
import CassetteFormats
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `suite_replay` and `suite_replay_cpu`: what a test suite pays, shaped like one — `tests` tests,
/// each opening its own cassette with `withCassette` (three to five interactions with JSON bodies
/// of a few KB; one test in four reads a `.http` cassette; the first test has one body of 1 MB),
/// replaying each interaction once with `data(for:)`, and ejecting, with the suite ledger on as CI
/// runs it — against the same requests answered by ``FloorProtocol`` from memory, one bare session
/// per test and no cassette. Time per test, wall clock and the process's CPU time.
///
/// `suite_replay_vs_files` and `suite_replay_vs_files_cpu` judge the same suite against what a
/// user without Cassette writes: fixture files and a stub that reads them. Each floor test reads
/// its fixture — the same file, the same bytes Cassette reads — with `Data(contentsOf:)` and
/// parses it with `JSONSerialization` (a `.http` fixture is read as bytes), then answers from memory.
enum SuiteBenchmark {
    /// One test's requests, and what each answer's body must be.
    struct Test {
        var name: String
        var requests: [(url: URL, size: Int)]
        /// The test's cassette, which the file floor reads as its fixture.
        var file: URL
        var isJSON: Bool
    }

    /// What the suite is measured against.
    enum Floor {
        /// Answers from memory, no file at all (`suite_replay`).
        case memory
        /// Each test reads and parses its fixture file first (`suite_replay_vs_files`).
        case files
    }

    /// A JSON body of about `size` bytes, different for each `seed`, as an API would send it.
    static func json(size: Int, seed: Int) -> Data {
        var items: [String] = []
        var length = 20
        var index = 0
        while length < size - 80 {
            let item = #"{"id":\#(seed * 1000 + index),"name":"Item \#(index) of \#(seed)","tags":["a","b"],"ok":\#(index % 2 == 0)}"#
            items.append(item)
            length += item.utf8.count + 1
            index += 1
        }
        return Data(#"{"seed":\#(seed),"items":[\#(items.joined(separator: ","))]}"#.utf8)
    }

    /// Writes the suite's cassettes under `folder`/`Suite`, and gives the floor the same answers;
    /// the first test's first body is 1 MB `withBigBody`.
    static func make(tests count: Int, withBigBody: Bool = true, folder: URL) throws -> [Test] {
        let root = folder.appendingPathComponent("Suite")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let headers = Interaction.Headers([("Content-Type", "application/json"), ("Cache-Control", "no-store")])
        var tests: [Test] = []
        var answers: [String: Data] = [:]
        for test in 0..<count {
            var interactions: [Interaction] = []
            var requests: [(URL, Int)] = []
            for item in 0..<(3 + test % 3) {
                let url = "https://api.suite.example/v1/test\(test)/items/\(item)?page=\(item + 1)"
                let size = test == 0 && item == 0 && withBigBody ? 1_048_576 : 2_048 + (test * 7 + item * 13) % 3_000
                let body = json(size: size, seed: test * 10 + item)
                interactions.append(
                    Interaction(
                        request: .init(url: url, headers: ["Accept": "application/json"]),
                        response: .init(status: 200, headers: headers, body: .init(body, contentType: "application/json")),
                        timing: .init(firstByte: 0.05, duration: 0.08)))
                guard let parsed = URL(string: url) else { throw Requests.Failed(description: "bad URL \(url)") }
                requests.append((parsed, body.count))
                answers[url] = body
            }
            let name = "test\(test)"
            let document = CassetteDocument(interactions: interactions)
            let format: CassetteFormat = test % 4 == 3 ? .httpMessages : .json
            let file = root.appendingPathComponent(name + "." + format.fileExtension)
            try format.encode(document).write(to: file)
            tests.append(Test(name: name, requests: requests, file: file, isJSON: format == .json))
        }
        FloorProtocol.answers = answers
        FloorProtocol.headers = ["Content-Type": "application/json", "Cache-Control": "no-store"]
        return tests
    }

    static func fetch(_ url: URL, size: Int, on session: URLSession) async throws {
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200, data.count == size else {
            throw Requests.Failed(
                description: "\(url): status \((response as? HTTPURLResponse)?.statusCode ?? 0), \(data.count) bytes, expected \(size)")
        }
    }

    /// The fixture a user without Cassette would read: the file's bytes, parsed when it is JSON.
    static func readFixture(_ test: Test) throws {
        let data = try Data(contentsOf: test.file)
        if test.isJSON, !(try JSONSerialization.jsonObject(with: data) is [String: Any]) {
            throw Requests.Failed(description: "\(test.file.path) is not a JSON object")
        }
    }

    static func pair(tests count: Int, cpu: Bool, floor: Floor = .memory, folder: URL) throws -> Harness.Pair {
        let tests = try make(tests: count, folder: folder)
        let cassettes = folder.appendingPathComponent("Suite").path
        let ledger = ["CASSETTE_LEDGER": folder.appendingPathComponent("suite-ledger").path, "CASSETTE_RUN_ID": "bench-suite"]
        let measure = cpu ? Harness.cpuSecondsPerOperation : Harness.secondsPerOperation
        let name = (floor == .files ? "suite_replay_vs_files" : "suite_replay") + (cpu ? "_cpu" : "")
        return Harness.Pair(
            name: name,
            what: "\(count) tests, each with its own cassette of 3 to 5 interactions (a quarter .http), replayed once and ejected, "
                + "ledger on\(cpu ? ", CPU time" : "")\(floor == .files ? "; the floor reads and parses each test's fixture file" : "")",
            aLabel: "withCassette + replays", bLabel: floor == .files ? "fixture file + URLProtocol" : "bare session + URLProtocol",
            unit: cpu ? "cpu s/test" : "s/test", goal: floor == .files ? 1.10 : 1.35,
            a: {
                try await measure(count) {
                    for test in tests {
                        try await withCassette(
                            test.name, folder: cassettes, mode: .none, environment: ledger, function: test.name + "()"
                        ) { tape in
                            for (url, size) in test.requests { try await fetch(url, size: size, on: tape.session) }
                        }
                    }
                }
            },
            b: {
                try await measure(count) {
                    for test in tests {
                        if floor == .files { try readFixture(test) }
                        let session = FloorProtocol.session()
                        for (url, size) in test.requests { try await fetch(url, size: size, on: session) }
                        session.invalidateAndCancel()
                    }
                }
            })
    }
}
