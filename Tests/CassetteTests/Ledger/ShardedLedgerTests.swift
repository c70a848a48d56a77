import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTools

/// A suite split over several machines: each shard's ledger covers part of the suite, and their
/// union, given the suite's test list, is judged as one whole run.
@Suite(.timingIsolated) struct ShardedLedgerTests {
    /// The suite's tests as `swift test list` prints them.
    static let tests = ["App.FeedTests/loads()", "App.FeedTests/reloads()", "App.ProfileTests/shows()"]

    #if os(Linux) || os(macOS)  // starts a process
    /// The suite of ``LedgerTests``, split in two shards by `--filter`, each into its own ledger.
    static func runShards(
        _ files: (loads: URL, profile: URL, orphan: URL, slow: URL), in folder: URL
    ) throws -> (first: URL, second: URL) {
        let processes = LedgerTests.suite(files)
        let first = folder.appendingPathComponent("shards/1")
        let second = folder.appendingPathComponent("shards/2")
        let one = try LedgerTests.runSuite(
            [processes[0]], ledger: first, run: "run-1", arguments: ["--filter", "FeedTests/loads"], environment: ["CASSETTE_SHARD": "1"])
        let two = try LedgerTests.runSuite(
            [processes[1]], ledger: second, run: "run-2", arguments: ["--filter", "FeedTests/reloads", "--filter", "ProfileTests"],
            environment: ["CASSETTE_SHARD": "2"])
        #expect((one + two).map(\.status) == [0, 0], "\((one + two).map(\.output))")
        return (first, second)
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    @Test func twoShardsTogetherPruneExactlyWhatTheWholeRunPrunes() throws {
        try withScratchTape { scratch in
            let files = try LedgerTests.plantCassettes(in: scratch.url)
            let cassettes = [scratch.url.appendingPathComponent("Cassettes")]
            let whole = scratch.url.appendingPathComponent("whole")
            _ = try LedgerTests.runSuite(LedgerTests.suite(files), ledger: whole, run: "run-w")
            let wholeReport = try SuiteReport.make(ledger: Ledger(folder: whole), cassettes: cassettes)
            let wholePlan = try PrunePlan(report: wholeReport, orphans: true, unusedInteractions: true)
            #expect(wholePlan.steps.count == 2)

            let shards = try Self.runShards(files, in: scratch.url)
            // Each shard alone is partial.
            let alone = try SuiteReport.make(ledger: Ledger(folder: shards.first), cassettes: cassettes)
            #expect(alone.partial?.contains("ran only some tests (--filter FeedTests/loads)") == true)

            let report = try SuiteReport.make(
                ledgers: [Ledger(folder: shards.first), Ledger(folder: shards.second)], cassettes: cassettes, tests: Self.tests)
            #expect(report.partial == nil)
            #expect(report.run == "run-1 + run-2")
            #expect(report.shards == ["1", "2"])
            #expect(report.orphans == wholeReport.orphans)
            #expect(report.unused == wholeReport.unused)
            #expect(report.stale.map(\.cassette) == wholeReport.stale.map(\.cassette))
            #expect(try PrunePlan(report: report, orphans: true, unusedInteractions: true) == wholePlan)
        }
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    @Test func withAShardMissingPruneRefusesAndNamesTheTestsNoShardRan() throws {
        try withScratchTape { scratch in
            let files = try LedgerTests.plantCassettes(in: scratch.url)
            let shards = try Self.runShards(files, in: scratch.url)
            let report = try SuiteReport.make(
                ledgers: [Ledger(folder: shards.first)], cassettes: [scratch.url.appendingPathComponent("Cassettes")], tests: Self.tests)
            #expect(
                report.partial
                    == "no shard ran 2 of the suite's 3 tests: App.FeedTests/reloads(), App.ProfileTests/shows() (the ledgers hold shard 1; "
                    + "a shard whose tests open no tape with CASSETTE_LEDGER leaves no ledger, so its tests count as not run)")
            #expect(report.orphans == [])
            do throws(PrunePlan.Refusal) {
                _ = try PrunePlan(report: report, orphans: true, unusedInteractions: true)
                Issue.record("prune was not refused")
            } catch {
                #expect(
                    error.description.contains("no shard ran 2 of the suite's 3 tests: App.FeedTests/reloads(), App.ProfileTests/shows()"))
            }
            // Without the test list, the shards are each partial, and the report says how to judge them together.
            let unlisted = try SuiteReport.make(
                ledgers: [Ledger(folder: shards.first), Ledger(folder: shards.second)],
                cassettes: [scratch.url.appendingPathComponent("Cassettes")], tests: nil)
            #expect(
                unlisted.partial?.hasSuffix(
                    "to judge shards together, give the suite's test list (swift test list > tests.txt; --tests tests.txt)") == true)
            #expect(FileManager.default.fileExists(atPath: files.orphan.path))
        }
    }
    #endif

    /// A shard that ran on another machine wrote its cassettes' paths under its own checkout: they
    /// are matched by their place in the package. Ledgers of two different packages are refused.
    @Test func shardsFromOtherFoldersAndOtherPackages() throws {
        try withScratchTape { scratch in
            let app = scratch.url.appendingPathComponent("App")
            let loads = app.appendingPathComponent("Cassettes/Feed/loads.json")
            try FileManager.default.createDirectory(at: loads.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("// swift-tools-version:6.0\n".utf8).write(to: app.appendingPathComponent("Package.swift"))
            try CassetteFile.write(
                CassetteDocument(interactions: [LedgerTests.interaction("/feed", recordedAt: LedgerTests.recent)]), to: loads)
            func ledger(_ name: String, root: String) throws -> Ledger {
                let folder = scratch.url.appendingPathComponent(name)
                let run = folder.appendingPathComponent("run")
                try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
                let records: [LedgerRecord] = [
                    .process(.init(pid: 7, started: Date(), arguments: [], runnerArguments: ["swift", "test"], filter: nil, shard: name)),
                    .tape(
                        .init(
                            cassette: root + "/Cassettes/Feed/loads.json", test: "FeedTests/loads()", mode: "none", opened: Date(),
                            interactions: 1, replayed: [1], root: root)),
                    .end(.init(ended: Date())),
                ]
                try records.reduce(Data()) { $0 + $1.line }.write(to: run.appendingPathComponent("7.jsonl"))
                return Ledger(folder: folder)
            }
            let elsewhere = try ledger("ci-1", root: "/builds/runner-4/App")
            let report = try SuiteReport.make(
                ledgers: [elsewhere], cassettes: [app.appendingPathComponent("Cassettes")], tests: ["App.FeedTests/loads()"])
            #expect(report.replayed == [loads.standardizedFileURL])
            #expect(report.orphans == [])
            #expect(report.partial == nil)

            let other = try ledger("ci-2", root: "/builds/runner-4/Other")
            #expect(throws: Ledger.ReadError.self) {
                try SuiteReport.make(ledgers: [elsewhere, other], cassettes: [app.appendingPathComponent("Cassettes")], tests: nil)
            }
            do {
                _ = try SuiteReport.make(ledgers: [elsewhere, other], cassettes: [app.appendingPathComponent("Cassettes")], tests: nil)
            } catch let error as Ledger.ReadError {
                #expect(
                    error.description
                        == "the ledgers come from different packages (App, Other): give the ledgers of the shards of one package's suite")
            }
        }
    }

    @Test func aTestListIsReadAndAWrongOneIsRefused() throws {
        #expect(
            try Ledger.testList("App.FeedTests/loads()\n\nApp.FeedTests/reloads()\n", file: "tests.txt") == [
                "App.FeedTests/loads()", "App.FeedTests/reloads()",
            ])
        #expect(
            throws: Ledger.ReadError(
                description:
                    "tests.txt:2: \"Building for debugging...\" is not a test as `swift test list` prints it (Module.Suite/test); make the file with: swift test list > tests.txt"
            )
        ) {
            try Ledger.testList("App.FeedTests/loads()\nBuilding for debugging...\n", file: "tests.txt")
        }
        #expect(throws: Ledger.ReadError(description: "tests.txt lists no test; make it with: swift test list > tests.txt")) {
            try Ledger.testList("\n", file: "tests.txt")
        }
        let selection = TestSelection(arguments: [], runnerArguments: ["swift", "test", "--filter", "FeedTests", "--skip", "reloads"])
        #expect(selection.selects("App.FeedTests/loads()"))
        #expect(!selection.selects("App.FeedTests/reloads()"))
        #expect(!selection.selects("App.ProfileTests/shows()"))
        #expect(TestSelection(arguments: ["-XCTest", "App.FeedTests/testLoads"], runnerArguments: nil).selects("App.FeedTests/testLoads"))
        #expect(TestSelection(arguments: ["--testing-library", "swift-testing"], runnerArguments: nil).filters == [])
    }

    /// 10,000 cassettes and 10 shard ledgers report in under 5 s (times the timing scale: a
    /// sanitizer's run took 5.7 s). Speed itself is the benchmark's (`report_10k`).
    @Test func tenThousandCassettesAndTenShardsReportQuickly() throws {
        try withScratchTape { scratch in
            let cassettes = scratch.url.appendingPathComponent("Cassettes")
            let body = Data(#"{ "version": 1, "interactions": [] }"#.utf8)
            var ledgers: [Ledger] = []
            for shard in 0..<10 {
                var lines = LedgerRecord.process(
                    .init(
                        pid: 1, started: Date(), arguments: [], runnerArguments: ["swift", "test", "--filter", "Suite\(shard)/"],
                        filter: "--filter Suite\(shard)/", shard: "\(shard)")
                ).line
                for folder in 0..<10 {
                    let directory = cassettes.appendingPathComponent("Suite\(shard)-\(folder)")
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                    for test in 0..<100 {
                        let file = directory.appendingPathComponent("test\(test).json")
                        try body.write(to: file)
                        lines +=
                            LedgerRecord.tape(
                                .init(
                                    cassette: file.path, test: "Suite\(shard)/test\(test)()", mode: "none", opened: Date(), interactions: 0)
                            ).line
                    }
                }
                lines += LedgerRecord.end(.init(ended: Date())).line
                let run = scratch.url.appendingPathComponent("ledgers/\(shard)/run")
                try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
                try lines.write(to: run.appendingPathComponent("1.jsonl"))
                ledgers.append(Ledger(folder: scratch.url.appendingPathComponent("ledgers/\(shard)")))
            }
            let tests = (0..<10).flatMap { shard in (0..<1000).map { "App.Suite\(shard)/test\($0)()" } }
            let start = Date()
            let report = try SuiteReport.make(ledgers: ledgers, cassettes: [cassettes], tests: tests)
            let seconds = Date().timeIntervalSince(start)
            #expect(report.cassetteCount == 10_000)
            #expect(report.partial == nil)
            #expect(report.orphans == [])
            #expect(seconds < 5 * TimingIsolation.scale, "took \(seconds) s")
        }
    }
}
