import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTools

/// The suite ledger, written by test processes running at once (each with tapes in parallel),
/// read back by ``SuiteReport`` and acted on by ``PrunePlan``. The test processes are
/// `CassetteLedgerCheck` children that exit as a test process does.
@Suite(.timingIsolated) struct LedgerTests {
    static let now = Date()
    static let recent = now.addingTimeInterval(-5 * 86_400)
    static let old = now.addingTimeInterval(-200 * 86_400)

    static func interaction(_ path: String, recordedAt: Date) -> Interaction {
        var interaction = Interaction(
            request: .init(url: "https://api.example.com" + path),
            response: .init(status: 200, headers: ["Content-Type": "application/json"], body: .init(text: #"{"path":"\#(path)"}"#)))
        interaction.recordedAt = recordedAt
        return interaction
    }

    /// `Cassettes/Feed/loads.json` (3 interactions), `Cassettes/Feed/profile.json` (2, recorded
    /// 200 days ago), the planted orphan `Cassettes/Feed/old.json`, and `Cassettes/Slow/big.json`
    /// in a folder no test of the run uses.
    static func plantCassettes(in root: URL) throws -> (loads: URL, profile: URL, orphan: URL, slow: URL) {
        let feed = root.appendingPathComponent("Cassettes/Feed")
        let slow = root.appendingPathComponent("Cassettes/Slow")
        try FileManager.default.createDirectory(at: feed, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: slow, withIntermediateDirectories: true)
        let files = (
            loads: feed.appendingPathComponent("loads.json"), profile: feed.appendingPathComponent("profile.json"),
            orphan: feed.appendingPathComponent("old.json"), slow: slow.appendingPathComponent("big.json")
        )
        try CassetteFile.write(
            CassetteDocument(interactions: ["/feed", "/feed/1", "/feed/2"].map { interaction($0, recordedAt: recent) }), to: files.loads)
        try CassetteFile.write(
            CassetteDocument(interactions: ["/me", "/me/avatar"].map { interaction($0, recordedAt: old) }), to: files.profile)
        try CassetteFile.write(CassetteDocument(interactions: [interaction("/gone", recordedAt: recent)]), to: files.orphan)
        try CassetteFile.write(CassetteDocument(interactions: [interaction("/slow", recordedAt: recent)]), to: files.slow)
        return files
    }

    struct Planned: Encodable {
        var cassette: String
        var test: String
        var requests: [String]
    }

    #if os(Linux) || os(macOS)  // starts a process
    /// Runs the test processes at once, each opening its tapes in parallel; their outputs.
    static func runSuite(
        _ processes: [[Planned]], ledger: URL, run: String, arguments: [String] = [], environment: [String: String] = [:]
    ) throws -> [(status: Int32, output: String)] {
        var running: [SpawnedProcess] = []
        for tapes in processes {
            let process = try SpawnedProcess(
                executable: ChildProcess.url(of: "CassetteLedgerCheck").path, arguments,
                environment: ChildProcess.environment(
                    [
                        "CASSETTE_LEDGER": ledger.path, "CASSETTE_RUN_ID": run,
                        "LEDGER_CHECK_TAPES": String(decoding: try JSONEncoder().encode(tapes), as: UTF8.self),
                    ].merging(environment) { $1 }), mergingErrors: true)
            running.append(process)
        }
        return running.map { process in
            let (status, output, _) = process.finish()
            return (status, String(decoding: output, as: UTF8.self))
        }
    }
    #endif

    /// Two test processes at once: the first opens `loads` for one test (asking only for
    /// `/feed`), the second opens `loads` for another test and `profile` — each process its tapes
    /// in parallel.
    static func suite(_ files: (loads: URL, profile: URL, orphan: URL, slow: URL)) -> [[Planned]] {
        let api = "https://api.example.com"
        return [
            [Planned(cassette: files.loads.path, test: "FeedTests/loads()", requests: [api + "/feed"])],
            [
                Planned(cassette: files.loads.path, test: "FeedTests/reloads()", requests: [api + "/feed"]),
                Planned(cassette: files.profile.path, test: "ProfileTests/shows()", requests: [api + "/me", api + "/me/avatar"]),
            ],
        ]
    }

    #if os(Linux) || os(macOS)  // starts a process
    @Test func aRunOfParallelProcessesFindsTheOrphanTheUnusedInteractionsAndTheStaleCassetteExactly() throws {
        try withScratchTape { scratch in
            let files = try Self.plantCassettes(in: scratch.url)
            let ledger = scratch.url.appendingPathComponent("ledger")
            let results = try Self.runSuite(Self.suite(files), ledger: ledger, run: "run-a")
            #expect(results.map(\.status) == [0, 0], "\(results.map(\.output))")
            #expect(results.map { $0.output.contains("FAILED") } == [false, false], "\(results.map(\.output))")

            // One file per process, each whole.
            let processFiles = try FileManager.default.contentsOfDirectory(atPath: ledger.appendingPathComponent("run-a").path)
            #expect(processFiles.count == 2)
            #expect(processFiles.allSatisfy { $0.hasSuffix(".jsonl") })

            let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [scratch.url.appendingPathComponent("Cassettes")])
            #expect(report.run == "run-a")
            #expect(report.partial == nil)
            #expect(report.warnings == [])
            #expect(report.cassetteCount == 4)
            #expect(report.orphans == [files.orphan.standardizedFileURL])
            #expect(report.unvisitedFolders.map(\.lastPathComponent) == ["Slow"])
            #expect(report.replayed == [files.loads.standardizedFileURL, files.profile.standardizedFileURL])
            #expect(report.recorded == [])
            #expect(report.misses == [])
            #expect(
                report.unused == [
                    SuiteReport.Unused(
                        cassette: files.loads.standardizedFileURL,
                        interactions: ["#2 GET https://api.example.com/feed/1", "#3 GET https://api.example.com/feed/2"], numbers: [2, 3],
                        changedSinceRun: false)
                ])
            #expect(report.unusedCount == 2)
            #expect(report.stale.map(\.cassette) == [files.profile.standardizedFileURL])
            #expect(report.stale.first?.tests == ["ProfileTests/shows()"])
            #expect(report.stale.first.map { abs($0.oldestReplayed.timeIntervalSince(Self.old)) < 0.01 } == true)

            // Pruned: the orphan goes, the two interactions go, the rest keeps its bytes.
            let keptBefore = try CassetteFile.read(files.loads).interactions[0]
            let plan = try PrunePlan(report: report, orphans: true, unusedInteractions: true)
            #expect(
                plan.steps == [
                    .removeInteractions(
                        files.loads.standardizedFileURL, numbers: [2, 3],
                        shown: ["#2 GET https://api.example.com/feed/1", "#3 GET https://api.example.com/feed/2"]),
                    .removeCassette(files.orphan.standardizedFileURL),
                ])
            #expect(plan.apply() == [])
            #expect(!FileManager.default.fileExists(atPath: files.orphan.path))
            #expect(try CassetteFile.read(files.loads).interactions == [keptBefore])
            #expect(FileManager.default.fileExists(atPath: files.slow.path))

            // The suite passes again, and there is nothing left to prune.
            let again = try Self.runSuite(Self.suite(files), ledger: ledger, run: "run-b")
            #expect(again.map(\.status) == [0, 0], "\(again.map(\.output))")
            #expect(again.map { $0.output.contains("FAILED") } == [false, false], "\(again.map(\.output))")
            let second = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [scratch.url.appendingPathComponent("Cassettes")])
            #expect(second.run == "run-b")
            #expect(second.orphans == [])
            #expect(second.unused == [])
            #expect(try PrunePlan(report: second, orphans: true, unusedInteractions: true).steps == [])
        }
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    /// `CASSETTE_SUMMARY=1`: one line as the test process exits.
    @Test func theSummaryLineAtTheEndOfATestProcess() throws {
        try withScratchTape { scratch in
            let files = try Self.plantCassettes(in: scratch.url)
            let ledger = scratch.url.appendingPathComponent("ledger")
            let process = Array(Self.suite(files).joined())
            let withSummary = try Self.runSuite([process], ledger: ledger, run: "run-s", environment: ["CASSETTE_SUMMARY": "1"])
            #expect(withSummary.map(\.status) == [0])
            // As Strings: Swift 6.2 type-checks `[Substring] == [a String sum]` inside `#expect` to an
            // `==` that finds equal lines unequal.
            let lines: [String] =
                withSummary.first?.output.split(separator: "\n").filter { $0.hasPrefix("Cassette:") }.map(String.init) ?? []
            #expect(
                lines == [
                    "Cassette: 2 cassettes replayed, 0 recorded, 0 misses, 2 unused interactions, 1 orphan — "
                        + "cassette report --ledger \(ledger.path) for details"
                ])
            let without = try Self.runSuite([process], ledger: ledger, run: "run-t")
            #expect(without.first?.output.contains("Cassette:") == false)
        }
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    @Test func aFilteredRunIsPartialAndPruneRefusesIt() throws {
        try withScratchTape { scratch in
            let files = try Self.plantCassettes(in: scratch.url)
            let ledger = scratch.url.appendingPathComponent("ledger")
            let results = try Self.runSuite(Self.suite(files), ledger: ledger, run: "run-f", arguments: ["--filter", "Feed"])
            #expect(results.map(\.status) == [0, 0], "\(results.map(\.output))")
            let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [scratch.url.appendingPathComponent("Cassettes")])
            let partial = try #require(report.partial)
            #expect(partial.contains("ran only some tests (--filter Feed)"))
            #expect(report.orphans == [])
            #expect(throws: PrunePlan.Refusal.self) { try PrunePlan(report: report, orphans: true, unusedInteractions: false) }
            do throws(PrunePlan.Refusal) {
                _ = try PrunePlan(report: report, orphans: true, unusedInteractions: false)
            } catch {
                #expect(
                    error.description.hasPrefix("the ledger's last run (run-f) did not cover the whole suite: process "))
                #expect(
                    error.description.hasSuffix(
                        "Nothing was changed. Run the whole suite (swift test, without --filter or --skip), then prune."))
            }
            #expect(FileManager.default.fileExists(atPath: files.orphan.path))
        }
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    /// A live run (`CASSETTE_LIVE`) says nothing of what the cassettes are used for: the ledger
    /// marks its tapes live, the report says so and judges no orphan or unused interaction, and
    /// prune refuses it.
    @Test func aLiveRunIsMarkedAndJudgesNothing() throws {
        try withScratchTape { scratch in
            let files = try Self.plantCassettes(in: scratch.url)
            let ledger = scratch.url.appendingPathComponent("ledger")
            let plan = Self.suite(files).map { tapes in tapes.map { Planned(cassette: $0.cassette, test: $0.test, requests: []) } }
            let results = try Self.runSuite(plan, ledger: ledger, run: "run-live", environment: ["CASSETTE_LIVE": "1"])
            #expect(results.map(\.status) == [0, 0], "\(results.map(\.output))")
            let run = try Ledger(folder: ledger).lastRun()
            #expect(run.tapes.map(\.mode) == ["live", "live", "live"])
            let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [scratch.url.appendingPathComponent("Cassettes")])
            #expect(
                report.partial
                    == "3 of its tapes ran live (Tape.isLive or CASSETTE_LIVE), replaying and recording nothing, "
                    + "so it says nothing of what the cassettes are used for")
            #expect(report.orphans == [])
            #expect(report.unused.isEmpty)
            #expect(throws: PrunePlan.Refusal.self) { try PrunePlan(report: report, orphans: true, unusedInteractions: true) }
            #expect(FileManager.default.fileExists(atPath: files.orphan.path))
        }
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    /// A process killed while writing leaves a line cut short: the file is skipped with a warning
    /// naming it and the line, the run is partial, and no cassette looks orphaned.
    @Test func aLedgerFileCutShortIsSkippedNamedAndMakesNothingAnOrphan() throws {
        try withScratchTape { scratch in
            let files = try Self.plantCassettes(in: scratch.url)
            let ledger = scratch.url.appendingPathComponent("ledger")
            _ = try Self.runSuite(Self.suite(files), ledger: ledger, run: "run-k")
            let run = ledger.appendingPathComponent("run-k")
            let killed = run.appendingPathComponent("999999.jsonl")
            let started = LedgerRecord.process(.init(pid: 999_999, started: Date(), arguments: [], runnerArguments: nil, filter: nil)).line
            try (started + Data(#"{"tape":{"cassette":"\#(files.orphan.path)","mo"#.utf8)).write(to: killed)
            let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [scratch.url.appendingPathComponent("Cassettes")])
            #expect(report.warnings.count == 1)
            #expect(report.warnings.first?.hasPrefix("\(killed.path):2: skipped, not a ledger record (") == true)
            #expect(report.partial?.contains("999999.jsonl is unreadable") == true)
            #expect(report.orphans == [])
            // What the whole files say still counts.
            #expect(report.unusedCount == 2)
        }
    }
    #endif

    @Test func aProcessWithoutItsEndMakesTheRunPartial() throws {
        try withScratchTape { scratch in
            let ledger = scratch.url.appendingPathComponent("ledger")
            let run = ledger.appendingPathComponent("run-x")
            try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
            let process = LedgerRecord.process(.init(pid: 42, started: Date(), arguments: [], runnerArguments: nil, filter: nil))
            try process.line.write(to: run.appendingPathComponent("42.jsonl"))
            let read = Ledger(folder: ledger).read(run)
            #expect(read.partial == "process file 42.jsonl has no end (the process was killed, or is still running)")
            #expect(read.processes == 1)
        }
    }

    @Test func anEmptyLedgerSaysSo() throws {
        try withScratchTape { scratch in
            #expect(throws: Ledger.ReadError.self) { try Ledger(folder: scratch.url.appendingPathComponent("none")).lastRun() }
        }
    }

    /// The run and whether it is the whole suite, from the command lines `swift test` uses
    /// (measured on this toolchain: XCTest processes of `--parallel` name their test, Swift
    /// Testing's get `--filter` from `swift test --filter`).
    @Test func whatMakesARunPartial() {
        #expect(TestRun.selection(inRunner: ["--parallel"]) == nil)
        #expect(TestRun.selection(inRunner: ["--filter", "Feed"]) == "--filter Feed")
        #expect(TestRun.selection(inRunner: ["--skip=Slow"]) == "--skip=Slow")
        #expect(TestRun.selection(inTestBinary: ["--testing-library", "swift-testing"]) == nil)
        #expect(TestRun.selection(inTestBinary: ["--filter", "other", "--testing-library", "swift-testing"]) == "--filter other")
        #expect(TestRun.selection(inTestBinary: ["PTests.X/testA"]) == "PTests.X/testA")
        #expect(TestRun.selection(inTestBinary: ["-XCTest", "All"]) == nil)
        #expect(TestRun.selection(inTestBinary: ["-XCTest", "PTests.X/testA"]) == "-XCTest PTests.X/testA")
    }
}
