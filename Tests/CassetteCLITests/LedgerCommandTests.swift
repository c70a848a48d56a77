import Cassette
import CassetteFormats
import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteCLI

/// `cassette report` and `cassette prune` over a ledger written here as test processes write it.
@Suite struct LedgerCommandTests {
    static let now = Date()

    /// A run of two processes over `Cassettes/Feed`: `loads.json` (3 interactions, #2 and #3
    /// unused), `profile.json` (replayed, recorded 200 days ago) and the orphan `old.json`; the
    /// folder `Cassettes/Slow` no test used.
    static func plant(in root: URL, filter: String? = nil) throws -> (ledger: URL, cassettes: URL) {
        let cassettes = root.appendingPathComponent("Cassettes")
        let feed = cassettes.appendingPathComponent("Feed")
        try FileManager.default.createDirectory(at: feed, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: cassettes.appendingPathComponent("Slow"), withIntermediateDirectories: true)
        func interaction(_ path: String, daysAgo: Double) -> Interaction {
            var interaction = Interaction(
                request: .init(url: "https://api.example.com" + path), response: .init(status: 200, body: .init(text: path)))
            interaction.recordedAt = now.addingTimeInterval(-daysAgo * 86_400)
            return interaction
        }
        let loads = feed.appendingPathComponent("loads.json")
        let profile = feed.appendingPathComponent("profile.json")
        try JSONCassetteCodec.encode(CassetteDocument(interactions: ["/feed", "/feed/1", "/feed/2"].map { interaction($0, daysAgo: 5) }))
            .write(to: loads)
        try JSONCassetteCodec.encode(CassetteDocument(interactions: [interaction("/me", daysAgo: 200)])).write(to: profile)
        try JSONCassetteCodec.encode(CassetteDocument(interactions: [interaction("/gone", daysAgo: 5)]))
            .write(to: feed.appendingPathComponent("old.json"))
        try JSONCassetteCodec.encode(CassetteDocument(interactions: [interaction("/slow", daysAgo: 5)]))
            .write(to: cassettes.appendingPathComponent("Slow/big.json"))

        let ledger = root.appendingPathComponent("ledger")
        let run = ledger.appendingPathComponent("swift-test-1-2")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
        func tape(_ file: URL, test: String, replayed: [Int], unused: [Int], count: Int, oldest: Double) throws -> LedgerRecord {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            return .tape(
                .init(
                    cassette: file.path, test: test, mode: "none", opened: now, interactions: count, replayed: replayed,
                    oldestReplayed: now.addingTimeInterval(-oldest * 86_400), unused: unused,
                    unusedShown: unused.map { "#\($0) GET https://api.example.com/feed/\($0 - 1)" },
                    fileSize: (attributes[.size] as? NSNumber)?.intValue, fileModified: attributes[.modificationDate] as? Date))
        }
        let processes: [[LedgerRecord]] = [
            [
                .process(
                    .init(pid: 11, started: now, arguments: [], runnerArguments: filter.map { ["--filter", $0] } ?? [], filter: filter)),
                try tape(loads, test: "App.FeedTests/loads()", replayed: [1], unused: [2, 3], count: 3, oldest: 5),
                .end(.init(ended: now)),
            ],
            [
                .process(
                    .init(pid: 12, started: now, arguments: ["--testing-library", "swift-testing"], runnerArguments: [], filter: nil)),
                try tape(profile, test: "App.ProfileTests/shows()", replayed: [1], unused: [], count: 1, oldest: 200),
                .end(.init(ended: now)),
            ],
        ]
        for (index, records) in processes.enumerated() {
            try Data(records.map(\.line).joined()).write(to: run.appendingPathComponent("\(11 + index).jsonl"))
        }
        return (ledger, cassettes)
    }

    @Test func reportNamesEachFindingAndItsPlace() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (ledger, cassettes) = try Self.plant(in: scratch)
        let result = Captured.run(["report", "--ledger", ledger.path, cassettes.path])
        #expect(result.status == 0)
        let feed = cassettes.appendingPathComponent("Feed").path
        #expect(
            result.out == """
                run swift-test-1-2: the whole suite
                4 cassettes: 2 replayed, 0 recorded into, 0 misses, 1 orphan, 2 unused interactions, 1 stale
                orphans (no test opened them):
                  \(feed)/old.json
                unused interactions:
                  \(feed)/loads.json:
                    #2 GET https://api.example.com/feed/1
                    #3 GET https://api.example.com/feed/2
                stale (replayed interactions older than the limit):
                  \(feed)/profile.json: replays an interaction recorded 200 days ago (limit 90); refresh: CASSETTE_RECORD_MODE=all swift test --filter 'App.ProfileTests/shows'
                not judged (the run opened no cassette there):
                  \(cassettes.path)/Slow/

                """)
        #expect(result.error == "")

        // A higher limit: nothing stale. JSON for tools.
        let json = Captured.run(["report", "--ledger", ledger.path, "--stale-after", "365", "--json", cassettes.path])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        #expect(object["orphans"] as? [String] == ["\(feed)/old.json"])
        #expect(object["stale"] as? [Any] != nil && (object["stale"] as? [Any])?.isEmpty == true)
        let unused = try #require((object["unused"] as? [[String: Any]])?.first)
        #expect(unused["numbers"] as? [Int] == [2, 3])
        #expect(object["partial"] is NSNull)
    }

    @Test func pruneShowsThePlanAndAppliesItOnlyWhenAsked() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (ledger, cassettes) = try Self.plant(in: scratch)
        let feed = cassettes.appendingPathComponent("Feed")
        let plan = Captured.run(["prune", "--ledger", ledger.path, "--orphans", "--unused-interactions", cassettes.path])
        #expect(plan.status == 0)
        #expect(
            plan.out == """
                remove from \(feed.path)/loads.json: #2 GET https://api.example.com/feed/1, #3 GET https://api.example.com/feed/2
                remove \(feed.path)/old.json (orphan: no test opened it)
                (a plan only: nothing was changed; add --apply to carry it out)

                """)
        #expect(FileManager.default.fileExists(atPath: feed.appendingPathComponent("old.json").path))

        let applied = Captured.run(["prune", "--ledger", ledger.path, "--orphans", "--apply", cassettes.path])
        #expect(applied.status == 0)
        #expect(applied.out.hasSuffix("pruned 1 of 1 files\n"))
        #expect(!FileManager.default.fileExists(atPath: feed.appendingPathComponent("old.json").path))
        #expect(try JSONCassetteCodec.decode(Data(contentsOf: feed.appendingPathComponent("loads.json"))).interactions.count == 3)
        #expect(FileManager.default.fileExists(atPath: cassettes.appendingPathComponent("Slow/big.json").path))

        // Edited since the run: its unused interactions are left alone.
        try Data(contentsOf: feed.appendingPathComponent("loads.json")).write(to: feed.appendingPathComponent("loads.json"))
        let loads = feed.appendingPathComponent("loads.json")
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: loads.path)
        let edited = Captured.run(["prune", "--ledger", ledger.path, "--unused-interactions", "--apply", cassettes.path])
        #expect(edited.status == 0)
        #expect(edited.out.hasPrefix("leave \(loads.path): changed since the run; run the tests again to prune it\n"))
        #expect(try JSONCassetteCodec.decode(Data(contentsOf: loads)).interactions.count == 3)
    }

    @Test func pruneRefusesAFilteredRunAndChangesNothing() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (ledger, cassettes) = try Self.plant(in: scratch, filter: "--filter Feed")
        let refused = Captured.run(["prune", "--ledger", ledger.path, "--orphans", "--apply", cassettes.path])
        #expect(refused.status == 1)
        #expect(
            refused.error == "error: the ledger's last run (swift-test-1-2) did not cover the whole suite: process 11 ran only some "
                + "tests (--filter Feed). Nothing was changed. Run the whole suite (swift test, without --filter or --skip), then prune.\n")
        #expect(FileManager.default.fileExists(atPath: cassettes.appendingPathComponent("Feed/old.json").path))
        let report = Captured.run(["report", "--ledger", ledger.path, cassettes.path])
        #expect(report.out.hasPrefix("run swift-test-1-2: partial — process 11 ran only some tests (--filter Feed)\n"))
        #expect(report.out.contains("orphans: not judged (the run was partial)\n"))
    }

    /// A suite split in two shards, each with its own ledger: judged together with the suite's
    /// test list, given as repeated --ledger or as a folder of shard ledgers.
    @Test func shardsAreJudgedTogether() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (ledger, cassettes) = try Self.plant(in: scratch, filter: "FeedTests")
        // The two processes of the run, as two shards' ledgers.
        let shards = scratch.appendingPathComponent("shards")
        for (index, pid) in [11, 12].enumerated() {
            let run = shards.appendingPathComponent("\(index + 1)/swift-test-\(index + 1)")
            try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
            var lines = try String(contentsOf: ledger.appendingPathComponent("swift-test-1-2/\(pid).jsonl"), encoding: .utf8)
            if pid == 12 {
                lines = lines.replacingOccurrences(of: #""runnerArguments":[]"#, with: #""runnerArguments":["--filter","ProfileTests"]"#)
            }
            try Data(lines.utf8).write(to: run.appendingPathComponent("\(pid).jsonl"))
        }
        let list = scratch.appendingPathComponent("tests.txt")
        try Data("App.FeedTests/loads()\nApp.ProfileTests/shows()\n".utf8).write(to: list)
        let first = shards.appendingPathComponent("1").path
        let second = shards.appendingPathComponent("2").path
        let repeated = Captured.run(["report", "--ledger", first, "--ledger", second, "--tests", list.path, cassettes.path])
        #expect(repeated.status == 0, "\(repeated.error)")
        #expect(repeated.out.hasPrefix("run swift-test-1 + swift-test-2: the whole suite\n"), "\(repeated.out)")
        #expect(repeated.out.contains("orphans (no test opened them):\n  \(cassettes.appendingPathComponent("Feed/old.json").path)\n"))
        let folder = Captured.run(["report", "--ledger", shards.path, "--tests", list.path, cassettes.path])
        #expect(folder.out == repeated.out)

        let missing = Captured.run(["prune", "--ledger", first, "--tests", list.path, "--orphans", "--apply", cassettes.path])
        #expect(missing.status == 1)
        #expect(
            missing.error
                == "error: the ledger's last run (swift-test-1) did not cover the whole suite: no shard ran 1 of the suite's 2 tests: "
                + "App.ProfileTests/shows() (the ledgers hold 1 run; a shard whose tests open no tape with CASSETTE_LEDGER leaves no ledger, "
                + "so its tests count as not run). Nothing was changed. Run the whole suite (swift test, without --filter or --skip), then prune.\n"
        )
        #expect(FileManager.default.fileExists(atPath: cassettes.appendingPathComponent("Feed/old.json").path))
        let pruned = Captured.run(["prune", "--ledger", shards.path, "--tests", list.path, "--orphans", "--apply", cassettes.path])
        #expect(pruned.status == 0, "\(pruned.error)")
        #expect(!FileManager.default.fileExists(atPath: cassettes.appendingPathComponent("Feed/old.json").path))

        try Data("Building for debugging...\n".utf8).write(to: list)
        let wrongList = Captured.run(["report", "--ledger", shards.path, "--tests", list.path, cassettes.path])
        #expect(wrongList.status == 1)
        #expect(
            wrongList.error
                == "error: \(list.path):1: \"Building for debugging...\" is not a test as `swift test list` prints it (Module.Suite/test); "
                + "make the file with: swift test list > tests.txt\n")
    }

    @Test func wrongCommandLinesAndAnEmptyLedger() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        #expect(Captured.run(["prune", "--ledger", scratch.path, scratch.path]).status == 2)
        #expect(Captured.run(["report", "--ledger", scratch.path]).status == 2)
        #expect(Captured.run(["report", "--stale-after", "soon", "--ledger", scratch.path, scratch.path]).status == 2)
        let empty = Captured.run(["report", "--ledger", scratch.path, scratch.path])
        #expect(empty.status == 1)
        #expect(
            empty.error
                == "error: the ledger \(scratch.path) holds no run: run the tests first (swift test), or name the ledger with --ledger or CASSETTE_LEDGER\n"
        )
        #expect(Captured.run(["report", "--help"]).out.hasPrefix("USAGE: cassette report [--ledger DIR]"))
        #expect(Captured.run(["prune", "--help"]).out.hasPrefix("USAGE: cassette prune [--ledger DIR]"))
    }
}
