import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTools

/// A cassette's identity is its real file: a link inside the folders is a use of its target, so
/// `report` never calls a file a test opened through a link an orphan, and two tests using one file
/// by two names never make each other's interactions unused.
@Suite struct LinkedCassettesTests {
    /// A cassette of GET requests to `paths`.
    static func cassette(_ paths: [String]) -> Data {
        let interactions = paths.map {
            #"{ "request": { "method": "GET", "url": "https://api.example.com\#($0)" }, "response": { "status": 200 } }"#
        }
        return Data(#"{ "version": 1, "interactions": [ \#(interactions.joined(separator: ", ")) ] }"#.utf8)
    }

    /// Writes one complete run: a process record, a tape record per use, the end.
    static func writeLedger(_ ledger: URL, uses: [(file: URL, unused: [Int])]) throws {
        let run = ledger.appendingPathComponent("run-a")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        let now = Date()
        var records: [LedgerRecord] = [
            .process(.init(pid: 1, started: now, arguments: ["CassettePackageTests.xctest"], runnerArguments: nil, filter: nil))
        ]
        for use in uses {
            let facts = FileFacts(use.file)
            records.append(
                .tape(
                    .init(
                        cassette: use.file.path, mode: "none", opened: now, interactions: 2,
                        replayed: [1, 2].filter { !use.unused.contains($0) }, unused: use.unused,
                        unusedShown: use.unused.map { "#\($0)" }, fileSize: facts.size, fileModified: facts.modified)))
        }
        records.append(.end(.init(ended: now)))
        try Data(records.map { $0.line + (($0.line.last == 0x0A) ? Data() : Data([0x0A])) }.joined()).write(
            to: run.appendingPathComponent("1.jsonl"))
    }

    /// `Login/success.json -> ../Shared/login.json`; one test opens the link, another
    /// `Shared/profile.json`: nothing is an orphan, and prune plans nothing (it deleted
    /// `Shared/login.json`, and the next run failed).
    @Test func aFileOpenedThroughALinkIsNoOrphan() throws {
        try withScratchTape { scratch in
            let cassettes = scratch.url.appendingPathComponent("Cassettes")
            let shared = cassettes.appendingPathComponent("Shared")
            let login = cassettes.appendingPathComponent("Login")
            try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: login, withIntermediateDirectories: true)
            try Self.cassette(["/login", "/x"]).write(to: shared.appendingPathComponent("login.json"))
            try Self.cassette(["/profile", "/y"]).write(to: shared.appendingPathComponent("profile.json"))
            try FileManager.default.createSymbolicLink(
                atPath: login.appendingPathComponent("success.json").path, withDestinationPath: "../Shared/login.json")
            let ledger = scratch.url.appendingPathComponent("ledger")
            try Self.writeLedger(
                ledger, uses: [(login.appendingPathComponent("success.json"), []), (shared.appendingPathComponent("profile.json"), [])])

            let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [cassettes])
            #expect(report.partial == nil)
            #expect(report.orphans == [])
            let plan = try PrunePlan(report: report, orphans: true, unusedInteractions: true, inside: [cassettes])
            #expect(plan.steps == [])
            #expect(plan.apply() == [])
            #expect(FileManager.default.fileExists(atPath: shared.appendingPathComponent("login.json").path))
        }
    }

    /// Two tests use one file, one through the link and one by its own path, each replaying a
    /// different interaction: neither is unused (the file ended with `"interactions": []`).
    @Test func twoNamesOfOneFileShareTheirUses() throws {
        try withScratchTape { scratch in
            let cassettes = scratch.url.appendingPathComponent("Cassettes")
            try FileManager.default.createDirectory(at: cassettes, withIntermediateDirectories: true)
            let real = cassettes.appendingPathComponent("login.json")
            try Self.cassette(["/first", "/second"]).write(to: real)
            let link = cassettes.appendingPathComponent("alias.json")
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "login.json")
            let ledger = scratch.url.appendingPathComponent("ledger")
            try Self.writeLedger(ledger, uses: [(link, [2]), (real, [1])])

            let report = try SuiteReport.make(ledger: Ledger(folder: ledger), cassettes: [cassettes])
            #expect(report.unused == [])
            #expect(report.orphans == [])
            let plan = try PrunePlan(report: report, orphans: true, unusedInteractions: true, inside: [cassettes])
            #expect(plan.steps == [])
            #expect(try CassetteFile.read(real).interactions.count == 2)
        }
    }
}
