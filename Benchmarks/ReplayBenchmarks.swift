import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Replay against the floor, and replay with a big cassette against a small one.
enum ReplayBenchmarks {
    /// A 1 KB JSON body, as an API would send it.
    static let body: Data = {
        let items = (0..<13).map { #"{"id":\#($0),"name":"Item number \#($0)","ok":true}"# }.joined(separator: ",")
        var text = #"{"items":[\#(items)],"page":1}"#
        while text.utf8.count < 1024 { text += " " }
        return Data(text.utf8.prefix(1024))
    }()

    static let headers = ["Content-Type": "application/json", "Cache-Control": "no-store"]

    static func interaction(_ url: String) -> Interaction {
        Interaction(
            request: .init(url: url),
            response: .init(
                status: 200, headers: Interaction.Headers(headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
                body: .init(body, contentType: "application/json")))
    }

    /// A tape in mode `none` over `document`, each interaction answering as often as asked.
    static func tape(_ document: CassetteDocument, in folder: URL, name: String, matching: RequestMatching = .default) throws -> Tape {
        let file = folder.appendingPathComponent(name)
        try JSONCassetteCodec.encode(document).write(to: file)
        return try Tape(file: file, mode: .none, matching: matching, options: .init(allowsRepeatedReplays: true), environment: [:])
    }

    /// `replay_vs_floor` (`inFlight` 1) and `replay_vs_floor_64` in wall time; with `cpu`,
    /// `replay_cpu_64`: the same replays in the process's CPU time, so that a wall-time ratio above
    /// the CPU-time one says the requests wait rather than work (what peer benchmarks measure:
    /// many short replays through one session, both times).
    static func versusFloor(inFlight: Int, requests: Int, cpu: Bool = false, folder: URL) throws -> Harness.Pair {
        FloorProtocol.body = body
        FloorProtocol.headers = headers
        let url = "https://bench.example/items?page=1"
        let tape = try tape(CassetteDocument(interactions: [interaction(url)]), in: folder, name: "replay-\(inFlight).json")
        let floor = FloorProtocol.session()
        let urls = Array(repeating: URL(string: url) ?? URL(fileURLWithPath: "/"), count: requests)
        func send(_ session: URLSession) async throws -> Double {
            let measure = cpu ? Harness.cpuSecondsPerOperation : Harness.secondsPerOperation
            return try await measure(requests) {
                if inFlight == 1 {
                    try await Requests.sequential(urls, on: session, bodySize: body.count)
                } else {
                    try await Requests.concurrent(urls, inFlight: inFlight, on: session, bodySize: body.count)
                }
            }
        }
        return Harness.Pair(
            name: cpu ? "replay_cpu_\(inFlight)" : inFlight == 1 ? "replay_vs_floor" : "replay_vs_floor_\(inFlight)",
            what: "replay of a 1 KB JSON response, \(inFlight) in flight, \(requests) requests per run" + (cpu ? ", CPU time" : ""),
            aLabel: "Tape replay", bLabel: "URLProtocol from memory", unit: cpu ? "cpu s/op" : "s/op", goal: 1.10,
            a: { try await send(tape.session) }, b: { try await send(floor) })
    }

    /// `replay_distinct_64`: 64 in flight as `replay_vs_floor_64`, but every request for its own
    /// URL and recording, so that no replay finds its head built before (``ResponseHeads`` keeps
    /// 256, the run asks for more): what a test's first replay of each interaction costs.
    static func distinctVersusFloor(requests: Int, folder: URL) throws -> Harness.Pair {
        FloorProtocol.body = body
        FloorProtocol.headers = headers
        let urls = (0..<requests).map { "https://bench.example/items/\($0)?page=1" }
        let tape = try tape(CassetteDocument(interactions: urls.map(interaction)), in: folder, name: "replay-distinct.json")
        let floor = FloorProtocol.session()
        let sent = urls.compactMap(URL.init(string:))
        func send(_ session: URLSession) async throws -> Double {
            try await Harness.secondsPerOperation(requests) {
                try await Requests.concurrent(sent, inFlight: 64, on: session, bodySize: body.count)
            }
        }
        return Harness.Pair(
            name: "replay_distinct_64",
            what: "replay of a 1 KB JSON response, 64 in flight, \(requests) requests per run, each its own URL and recording",
            aLabel: "Tape replay", bLabel: "URLProtocol from memory", unit: "s/op", goal: 1.10,
            a: { try await send(tape.session) }, b: { try await send(floor) })
    }

    /// `match_scaling`: the same replays from a cassette of `large` distinct interactions and from one of 10.
    ///
    /// Every request carries its own `request=N`, a query parameter both tapes' matching ignores,
    /// so that neither side finds its response head built before (``ResponseHeads`` keys a head by
    /// the request's URL): with 10 URLs the small cassette's heads were all reused, and the ratio
    /// measured building a head (1.22–1.33) rather than finding a recording among many (1.00–1.03).
    static func matchScaling(large: Int, requests: Int, folder: URL) throws -> Harness.Pair {
        func document(_ count: Int) -> CassetteDocument {
            CassetteDocument(interactions: (0..<count).map { interaction("https://bench.example/items/\($0)?v=\($0 % 7)") })
        }
        let matching = RequestMatching.default.ignoringQueryParameters("request")
        let big = try tape(document(large), in: folder, name: "match-\(large).json", matching: matching)
        let small = try tape(document(10), in: folder, name: "match-10.json", matching: matching)
        // Spread over the whole cassette, in an order unrelated to the file's.
        let bigURLs = (0..<requests).compactMap {
            URL(string: "https://bench.example/items/\(($0 * 7919) % large)?v=\((($0 * 7919) % large) % 7)&request=\($0)")
        }
        let smallURLs = (0..<requests).compactMap {
            URL(string: "https://bench.example/items/\($0 % 10)?v=\(($0 % 10) % 7)&request=\($0)")
        }
        return Harness.Pair(
            name: "match_scaling", what: "replay from \(large) interactions vs from 10, \(requests) requests per run",
            aLabel: "\(large) interactions", bLabel: "10 interactions", unit: "s/op", goal: 1.20,
            a: {
                try await Harness.secondsPerOperation(requests) {
                    try await Requests.sequential(bigURLs, on: big.session, bodySize: body.count)
                }
            },
            b: {
                try await Harness.secondsPerOperation(requests) {
                    try await Requests.sequential(smallURLs, on: small.session, bodySize: body.count)
                }
            })
    }
}
