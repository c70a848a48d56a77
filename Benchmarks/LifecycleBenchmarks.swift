import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a test pays around its requests: opening and ejecting a tape, and saving a big cassette.
enum LifecycleBenchmarks {
    /// `tape_lifecycle`: open a tape on a cassette of `interactions`, replay one request, eject —
    /// against the least the same work can cost: parse the same file with `JSONSerialization`,
    /// create a session answered by a bare `URLProtocol`, send one request, invalidate the session.
    static func tapeLifecycle(interactions: Int, repetitions: Int, folder: URL) throws -> Harness.Pair {
        let urls = (0..<interactions).map { "https://bench.example/items/\($0)?page=\($0 % 5)" }
        let file = folder.appendingPathComponent("lifecycle.json")
        try JSONCassetteCodec.encode(CassetteDocument(interactions: urls.map(ReplayBenchmarks.interaction))).write(to: file)
        FloorProtocol.body = ReplayBenchmarks.body
        FloorProtocol.headers = ReplayBenchmarks.headers
        guard let asked = URL(string: urls[interactions / 2]) else { throw Requests.Failed(description: "bad URL") }
        let size = ReplayBenchmarks.body.count
        return Harness.Pair(
            name: "tape_lifecycle",
            what: "open a tape on \(interactions) interactions, replay one request, eject (\(repetitions) per run)",
            aLabel: "Tape open + replay + eject", bLabel: "JSONSerialization + bare session + request", unit: "s/op", goal: 1.3,
            a: {
                try await Harness.secondsPerOperation(repetitions) {
                    for _ in 0..<repetitions {
                        let tape = try Tape(file: file, mode: .none, environment: [:])
                        try await Requests.fetch(asked, on: tape.session, bodySize: size)
                        try tape.eject()
                    }
                }
            },
            b: {
                try await Harness.secondsPerOperation(repetitions) {
                    for _ in 0..<repetitions {
                        _ = try JSONSerialization.jsonObject(with: Data(contentsOf: file))
                        let session = FloorProtocol.session()
                        try await Requests.fetch(asked, on: session, bodySize: size)
                        session.invalidateAndCancel()
                    }
                }
            })
    }

    /// `session_setup` and `stub_session_setup`: making a session that Cassette answers — from an
    /// open tape (`makeSession`) or a new ``StubSession`` — sending it one request and ending it,
    /// against the same with a bare configuration answered by `FloorProtocol`. What a test pays to
    /// start talking to its cassette or stubs, beyond the request.
    static func sessionSetup(stubs: Bool, repetitions: Int, folder: URL) throws -> Harness.Pair {
        let url = "https://bench.example/items?page=1"
        guard let asked = URL(string: url) else { throw Requests.Failed(description: "bad URL") }
        FloorProtocol.body = ReplayBenchmarks.body
        FloorProtocol.headers = ReplayBenchmarks.headers
        let size = ReplayBenchmarks.body.count
        let tape = try ReplayBenchmarks.tape(
            CassetteDocument(interactions: [ReplayBenchmarks.interaction(url)]), in: folder, name: "setup.json")
        let answer = StubResponse.data(
            ReplayBenchmarks.body, status: 200,
            headers: Interaction.Headers(ReplayBenchmarks.headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        return Harness.Pair(
            name: stubs ? "stub_session_setup" : "session_setup",
            what: (stubs ? "a StubSession with one stub" : "tape.makeSession(configuration: .ephemeral)")
                + ", one request, ended (\(repetitions) per run)",
            aLabel: stubs ? "StubSession + request" : "tape session + request", bLabel: "bare session + request", unit: "s/op",
            goal: 1.5,
            a: {
                try await Harness.secondsPerOperation(repetitions) {
                    for _ in 0..<repetitions {
                        if stubs {
                            let stubbed = StubSession()
                            _ = stubbed.stubs.add(.always, response: answer)
                            try await Requests.fetch(asked, on: stubbed.session, bodySize: size)
                            stubbed.invalidate()
                        } else {
                            let session = tape.makeSession(configuration: .ephemeral)
                            try await Requests.fetch(asked, on: session, bodySize: size)
                            session.invalidateAndCancel()
                        }
                    }
                }
            },
            b: bareSession(asking: asked, size: size, repetitions: repetitions))
    }

    /// `tape_setup`: what a test pays to start talking to its cassette, the way a test opens one —
    /// `Tape(file:)` on a cassette of one interaction, one request through `tape.session`, `eject()`
    /// — against a bare ephemeral session answered by `FloorProtocol`, one request, invalidated.
    static func tapeSetup(repetitions: Int, folder: URL) throws -> Harness.Pair {
        let url = "https://bench.example/items?page=1"
        guard let asked = URL(string: url) else { throw Requests.Failed(description: "bad URL") }
        FloorProtocol.body = ReplayBenchmarks.body
        FloorProtocol.headers = ReplayBenchmarks.headers
        let size = ReplayBenchmarks.body.count
        let file = folder.appendingPathComponent("tape-setup.json")
        try JSONCassetteCodec.encode(CassetteDocument(interactions: [ReplayBenchmarks.interaction(url)])).write(to: file)
        return Harness.Pair(
            name: "tape_setup", what: "Tape(file:) on one interaction, one request, eject (\(repetitions) per run)",
            aLabel: "Tape + request + eject", bLabel: "bare session + request", unit: "s/op", goal: 1.5,
            a: {
                try await Harness.secondsPerOperation(repetitions) {
                    for _ in 0..<repetitions {
                        let tape = try Tape(file: file, mode: .none, environment: [:])
                        try await Requests.fetch(asked, on: tape.session, bodySize: size)
                        try tape.eject()
                    }
                }
            },
            b: bareSession(asking: asked, size: size, repetitions: repetitions))
    }

    /// The floor of the set-up benchmarks: a bare ephemeral session answered by `FloorProtocol`,
    /// one request, invalidated, `repetitions` times.
    private static func bareSession(asking asked: URL, size: Int, repetitions: Int) -> () async throws -> Double {
        {
            try await Harness.secondsPerOperation(repetitions) {
                for _ in 0..<repetitions {
                    let session = FloorProtocol.session()
                    try await Requests.fetch(asked, on: session, bodySize: size)
                    session.invalidateAndCancel()
                }
            }
        }
    }

    /// `save_10k`: saving a cassette of `interactions` interactions (as `eject` does: encoded, then
    /// written to a temporary file and renamed over the cassette) against `JSONSerialization.data`
    /// of the same content plus `Data.write(options: .atomic)`.
    static func save(interactions: Int, repetitions: Int, folder: URL) throws -> Harness.Pair {
        let document = CassetteDocument(
            interactions: (0..<interactions).map {
                var interaction = ReplayBenchmarks.interaction("https://bench.example/items/\($0)?page=\($0 % 5)")
                interaction.request.headers = ["Accept": "application/json", "User-Agent": "Bench/1.0"]
                interaction.timing = .init(firstByte: 0.012, duration: 0.034)
                return interaction
            })
        let file = folder.appendingPathComponent("save-10k.json")
        let floorFile = folder.appendingPathComponent("save-10k-floor.json")
        // The same content as Foundation objects, the way JSONSerialization writes it.
        let tree = try JSONSerialization.jsonObject(with: JSONCassetteCodec.encode(document))
        return Harness.Pair(
            name: "save_10k", what: "save a cassette of \(interactions) interactions (\(repetitions) per run)",
            aLabel: "CassetteFile.write", bLabel: "JSONSerialization.data + Data.write(.atomic)", unit: "s/op", goal: 2.0,
            a: {
                try await Harness.secondsPerOperation(repetitions) {
                    for _ in 0..<repetitions { try CassetteFile.write(document, to: file) }
                }
            },
            b: {
                try await Harness.secondsPerOperation(repetitions) {
                    for _ in 0..<repetitions {
                        try JSONSerialization.data(withJSONObject: tree, options: [.prettyPrinted]).write(to: floorFile, options: .atomic)
                    }
                }
            })
    }
}
