import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTools

/// `cassette prune` touches nothing outside the folders it was given, and judges nothing from a
/// ledger that cannot say the whole suite ran or that names a file that is not there.
@Suite struct PruneSafetyTests {
    static let cassette = Data(
        #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "https://api.example.com/a" }, "response": { "status": 200 } } ] }"#
            .utf8)

    /// Writes one process's ledger file into `ledger/run-a`: its process record (unless `described`
    /// is false), a tape record for each of `opened`, and its end.
    static func writeLedger(_ ledger: URL, opened: [URL], described: Bool = true) throws {
        let run = ledger.appendingPathComponent("run-a")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        let now = Date()
        var records: [LedgerRecord] = []
        if described {
            records.append(
                .process(.init(pid: 1, started: now, arguments: ["CassettePackageTests.xctest"], runnerArguments: nil, filter: nil)))
        }
        for file in opened {
            records.append(.tape(.init(cassette: file.standardizedFileURL.path, mode: "none", opened: now, interactions: 1, replayed: [1])))
        }
        records.append(.end(.init(ended: now)))
        var data = Data()
        for record in records {
            data += record.line
            if data.last != 0x0A { data.append(0x0A) }
        }
        try data.write(to: run.appendingPathComponent("1.jsonl"))
    }

    /// `Cassettes/Shared` is a link to a folder elsewhere: an orphan there is reported, and prune
    /// leaves it alone, saying why — it deleted `…/outside/precious.json`.
    /// `cassettes/Shared` is a link to `outside`, which holds `opened.json` (the suite's ledger
    /// says a test opened it) and `precious.json` (an orphan): the suite report over `cassettes`,
    /// prune's plan inside it, and the orphan's path through the link.
    static func orphanBehindALink(from cassettes: URL, to outside: URL, ledger: URL) throws -> (SuiteReport, PrunePlan, URL) {
        try Self.cassette.write(to: outside.appendingPathComponent("opened.json"))
        try Self.cassette.write(to: outside.appendingPathComponent("precious.json"))
        try FileManager.default.createSymbolicLink(at: cassettes.appendingPathComponent("Shared"), withDestinationURL: outside)
        try Self.writeLedger(ledger, opened: [cassettes.appendingPathComponent("Shared/opened.json")])
        let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [cassettes])
        let plan = try PrunePlan(report: report, orphans: true, unusedInteractions: true, inside: [cassettes])
        return (report, plan, cassettes.appendingPathComponent("Shared/precious.json").standardizedFileURL)
    }

    @Test func anOrphanBehindALinkOutOfTheFolderIsLeftAlone() throws {
        try withScratchTape { scratch in
            let outside = scratch.url.appendingPathComponent("outside")
            let cassettes = scratch.url.appendingPathComponent("Cassettes")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: cassettes, withIntermediateDirectories: true)
            let (report, plan, precious) = try Self.orphanBehindALink(
                from: cassettes, to: outside, ledger: scratch.url.appendingPathComponent("ledger"))
            #expect(report.partial == nil)
            #expect(report.orphans == [precious])
            #expect(plan.steps == [])
            #expect(
                plan.leftAlone == [
                    "\(precious.path): its real place, \(outside.appendingPathComponent("precious.json").resolvingSymlinksInPath().path), "
                        + "is outside the folders given (\(cassettes.resolvingSymlinksInPath().path)); "
                        + "prune never deletes or rewrites through a link that leads out of them"
                ])
            #expect(plan.apply() == [])
            #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent("precious.json").path))
        }
    }

    /// The same through a link to a sibling folder named as the cassettes' folder in the other
    /// Unicode normalization (`café` decomposed beside `café` composed): another folder on Linux,
    /// which `String.hasPrefix` took for the same one. Prune leaves the orphan there alone.
    @Test func anOrphanBehindALinkToASiblingInTheOtherNormalizationIsLeftAlone() throws {
        try withScratchTape { scratch in
            let cassettes = scratch.url.appendingPathComponent("caf\u{E9}")
            let outside = scratch.url.appendingPathComponent("cafe\u{301}")
            for place in [cassettes, outside] { try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true) }
            // Apple: APFS keeps one folder for both names, so there is no sibling to leave alone.
            #if canImport(FoundationNetworking)
            let (report, plan, precious) = try Self.orphanBehindALink(
                from: cassettes, to: outside, ledger: scratch.url.appendingPathComponent("ledger"))
            #expect(report.orphans == [precious])
            #expect(plan.steps == [])
            #expect(
                plan.leftAlone.count == 1 && plan.leftAlone.first?.contains("is outside the folders given") == true, "\(plan.leftAlone)")
            #expect(plan.apply() == [])
            #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent("precious.json").path))
            #endif
        }
    }

    /// A ledger with tape and end records but no process record cannot say which tests ran: partial,
    /// and prune refuses.
    @Test func aLedgerWithoutAProcessRecordIsPartial() throws {
        try withScratchTape { scratch in
            let cassettes = scratch.url.appendingPathComponent("Cassettes")
            try FileManager.default.createDirectory(at: cassettes, withIntermediateDirectories: true)
            try Self.cassette.write(to: cassettes.appendingPathComponent("used.json"))
            try Self.cassette.write(to: cassettes.appendingPathComponent("other.json"))
            let ledger = scratch.url.appendingPathComponent("ledger")
            try Self.writeLedger(ledger, opened: [cassettes.appendingPathComponent("used.json")], described: false)
            let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [cassettes])
            #expect(report.partial == "process file 1.jsonl has no process record (which tests it ran is unknown)")
            #expect(report.orphans == [])
            #expect(throws: PrunePlan.Refusal.self) { try PrunePlan(report: report, orphans: true, unusedInteractions: false) }
        }
    }

    /// A tape record naming a file that is not there makes no cassette of its folder an orphan.
    @Test func aMissingFileInTheLedgerOrphansNothing() throws {
        try withScratchTape { scratch in
            let cassettes = scratch.url.appendingPathComponent("Cassettes")
            try FileManager.default.createDirectory(at: cassettes.appendingPathComponent("Other"), withIntermediateDirectories: true)
            try Self.cassette.write(to: cassettes.appendingPathComponent("Other/kept.json"))
            let ledger = scratch.url.appendingPathComponent("ledger")
            try Self.writeLedger(ledger, opened: [cassettes.appendingPathComponent("Other/gone.json")])
            let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [cassettes])
            #expect(report.partial == nil)
            #expect(report.orphans == [])
            #expect(report.unvisitedFolders.map(\.lastPathComponent) == ["Other"])
        }
    }
}
