import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTools

// Processes cannot be started on iOS, tvOS or watchOS.
#if os(Linux) || os(macOS)

/// The `cassette` tool's own runs stay out of the suite's judgment: after a complete run of the
/// suite, a `record` and a `play` in the package leave `report` judging the suite's run (one
/// `cassette play` made it judge a partial run, and `prune` refused), their cassettes are no
/// orphans, and the ledger keeps none of their arguments (a token given to `record -H` was there
/// in plain text).
@Suite(.timingIsolated) struct ToolRunsTests {
    @Test func recordAndPlayChangeNoJudgmentAndKeepNoArguments() throws {
        try withScratchTape { scratch in
            let package = scratch.url.appendingPathComponent("App")
            let cassettes = package.appendingPathComponent("Cassettes")
            try FileManager.default.createDirectory(at: cassettes, withIntermediateDirectories: true)
            try Data("// swift-tools-version:6.0\n".utf8).write(to: package.appendingPathComponent("Package.swift"))
            let used = cassettes.appendingPathComponent("used.json")
            try LinkedCassettesTests.cassette(["/a", "/b"]).write(to: used)
            let ledger = Ledger.defaultFolder(packageRoot: package)
            try LinkedCassettesTests.writeLedger(ledger, uses: [(used, [])])

            let token = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
            let recorded = cassettes.appendingPathComponent("tool.json").path
            let environment = ["CI": "", "CASSETTE_RECORD_MODE": "", "CASSETTE_LEDGER": ""]
            let record = try ChildProcess.run(
                "cassette", ["record", "--cassette", recorded, "-H", "Authorization: Bearer \(token)", scratch.url("/echo")],
                environment: environment)
            #expect(record.status == 0, "\(record.output)")
            let play = try ChildProcess.run("cassette", ["play", "--cassette", recorded, scratch.url("/echo")], environment: environment)
            #expect(play.status == 0, "\(play.output)")

            let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [cassettes])
            #expect(report.run == "run-a")
            #expect(report.partial == nil)
            #expect(report.orphans == [])
            let runs = try FileManager.default.contentsOfDirectory(atPath: ledger.path).sorted()
            #expect(runs.count == 3 && runs.first == "run-a" && runs.dropFirst().allSatisfy { $0.hasPrefix("tool-") }, "\(runs)")
            let files = FileManager.default.enumerator(atPath: ledger.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".jsonl") {
                let text = String(decoding: try Data(contentsOf: ledger.appendingPathComponent(file)), as: UTF8.self)
                #expect(!text.contains(token), "\(file)")
                #expect(!text.contains("Authorization"), "\(file)")
            }
        }
    }
}
#endif
