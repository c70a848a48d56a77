import Cassette
import CassetteFormats
import Foundation

/// What the suite ledger costs: a tape's life with the ledger on against the same with it off
/// (`ledger_cost`, goal: at most 2 % more), and `cassette report` over 10,000 cassettes and the
/// ledger of their run (`report_10k`, goal: under 5 s) against listing the same files and reading
/// the ledger's bytes.
enum LedgerBenchmarks {
    static func cost(interactions: Int, repetitions: Int, folder: URL) throws -> Harness.Pair {
        let urls = (0..<interactions).map { "https://bench.example/items/\($0)?page=\($0 % 5)" }
        let file = folder.appendingPathComponent("ledger-lifecycle.json")
        try JSONCassetteCodec.encode(CassetteDocument(interactions: urls.map(ReplayBenchmarks.interaction))).write(to: file)
        guard let asked = URL(string: urls[interactions / 2]) else { throw Requests.Failed(description: "bad URL") }
        let size = ReplayBenchmarks.body.count
        func lifecycle(_ environment: [String: String]) async throws -> Double {
            try await Harness.secondsPerOperation(repetitions) {
                for _ in 0..<repetitions {
                    let tape = try Tape(file: file, mode: .none, environment: environment)
                    try await Requests.fetch(asked, on: tape.session, bodySize: size)
                    try tape.eject()
                }
            }
        }
        let ledger = folder.appendingPathComponent("ledger").path
        return Harness.Pair(
            name: "ledger_cost", what: "tape_lifecycle with the suite ledger on, against off (\(repetitions) per run)",
            aLabel: "ledger on", bLabel: "ledger off", unit: "s/op", goal: 1.02,
            a: { try await lifecycle(["CASSETTE_LEDGER": ledger, "CASSETTE_RUN_ID": "bench"]) },
            b: { try await lifecycle(["CASSETTE_LEDGER": "off"]) })
    }

    static func report(cassettes: Int, folder: URL) throws -> Harness.Pair {
        let root = folder.appendingPathComponent("report-bench/Cassettes")
        let ledger = folder.appendingPathComponent("report-bench/ledger")
        let run = ledger.appendingPathComponent("swift-test-1-1")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        let body = try JSONCassetteCodec.encode(
            CassetteDocument(interactions: ["/a", "/b", "/c"].map { ReplayBenchmarks.interaction("https://bench.example" + $0) }))
        let now = Date()
        let processes = 4
        var lines = Array(repeating: Data(), count: processes)
        for process in 0..<processes {
            lines[process] +=
                LedgerRecord.process(.init(pid: Int32(process), started: now, arguments: [], runnerArguments: [], filter: nil)).line
        }
        let perFolder = 100
        for index in 0..<cassettes {
            let sub = root.appendingPathComponent("Suite\(index / perFolder)")
            if index % perFolder == 0 { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true) }
            let file = sub.appendingPathComponent("test\(index).json")
            try body.write(to: file)
            // One in a hundred is an orphan; every other one leaves an interaction unused.
            guard index % 100 != 99 else { continue }
            lines[index % processes] +=
                LedgerRecord.tape(
                    .init(
                        cassette: file.path, test: "Suite\(index / perFolder)/test\(index)()", mode: "none", opened: now, interactions: 3,
                        replayed: index % 2 == 0 ? [1, 2] : [1, 2, 3], oldestReplayed: now.addingTimeInterval(-Double(index) * 3_600),
                        unused: index % 2 == 0 ? [3] : [], unusedShown: index % 2 == 0 ? ["#3 GET https://bench.example/c"] : [])
                ).line
        }
        for process in 0..<processes {
            try (lines[process] + LedgerRecord.end(.init(ended: now)).line).write(to: run.appendingPathComponent("\(process).jsonl"))
        }
        func time(_ body: () throws -> Void) rethrows -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        return Harness.Pair(
            name: "report_10k", what: "cassette report over \(cassettes) cassettes and their ledger (goal: under 5 s)",
            aLabel: "SuiteReport.make", bLabel: "read every file + JSONSerialization of the ledger", unit: "s", goal: 3,
            a: {
                try time {
                    let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [root])
                    guard report.orphans.count == cassettes / 100, report.unusedCount == cassettes / 2 else {
                        throw Requests.Failed(description: "report_10k found \(report.orphans.count) orphans, \(report.unusedCount) unused")
                    }
                }
            },
            b: {
                try time {
                    let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
                    while let file = enumerator?.nextObject() as? URL {
                        if file.pathExtension == "json" { _ = try Data(contentsOf: file) }
                    }
                    for process in 0..<processes {
                        let data = try Data(contentsOf: run.appendingPathComponent("\(process).jsonl"))
                        for line in data.split(separator: 0x0A) { _ = try JSONSerialization.jsonObject(with: Data(line)) }
                    }
                }
            })
    }
}
