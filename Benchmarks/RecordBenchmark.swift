import Cassette
import CassetteTestSupport
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recording through Cassette's passthrough against the same requests sent directly.
enum RecordBenchmark {
    static func pair(server: LoopbackServer, requests: Int, folder: URL) -> Harness.Pair {
        let urls = (0..<requests).compactMap { URL(string: server.baseURL + "/bytes/1024?n=\($0)") }
        let direct = URLSession(configuration: .ephemeral)
        let counter = Counter()
        return Harness.Pair(
            name: "record_vs_direct", what: "GET 1 KB from the loopback server, \(requests) requests per run, one at a time",
            aLabel: "recording tape", bLabel: "plain URLSession", unit: "s/op", goal: 1.25,
            a: {
                let file = folder.appendingPathComponent("record-\(counter.next()).json")
                let tape = try Tape(file: file, mode: .all, options: .init(redaction: .none), environment: [:])
                let seconds = try await Harness.secondsPerOperation(requests) {
                    try await Requests.sequential(urls, on: tape.session, bodySize: 1024)
                }
                try tape.eject()
                try? FileManager.default.removeItem(at: file)
                return seconds
            },
            b: { try await Harness.secondsPerOperation(requests) { try await Requests.sequential(urls, on: direct, bodySize: 1024) } })
    }
}

/// Numbers for file names, from closures that may run on any thread.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var _value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        _value += 1
        return _value
    }

    func add(_ count: Int) {
        lock.lock()
        _value += count
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return _value
    }
}
