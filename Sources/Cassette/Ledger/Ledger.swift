import Foundation

/// The suite ledger: what every tape of a test run did, written as each tape is ejected, and
/// read by ``SuiteReport`` (`cassette report`) and `PrunePlan` (`cassette prune`) to find
/// orphaned cassettes, unused interactions and stale recordings.
///
/// Where it is: the folder `CASSETTE_LEDGER` names (relative to the current directory; `off`
/// turns the ledger off), else `.build/cassette-ledger` in the package whose `Package.swift` is
/// above the test file (or the cassette). A tape that has neither writes no ledger.
///
/// Inside, one folder per run (see ``SuiteReport`` for what a run is) holding one file per
/// test process, `PID.jsonl`; the ten newest runs are kept.
package struct Ledger: Sendable, Equatable {
    /// The ledger's folder.
    package var folder: URL

    /// The ledger in `folder`.
    package init(folder: URL) {
        self.folder = folder
    }

    /// `CASSETTE_LEDGER`.
    package static let environmentVariable = "CASSETTE_LEDGER"
    /// `CASSETTE_SHARD`: the name of the shard a test process runs in, when a suite is split over
    /// several machines (`1`, `linux-2`); its ledger records say so.
    package static let shardVariable = "CASSETTE_SHARD"
    /// How many runs the ledger keeps: this many test runs, and as many runs of the tool.
    static let keptRuns = 10

    /// Set by the `cassette` tool for its own tapes (`play`, `record`, `serve`): their records go
    /// to a run of the tool's (`tool-PID-TICKS`), which keeps no command line, is never the run
    /// `report` and `prune` judge, and whose uses of cassettes still count — a cassette only a
    /// `serve` during UI tests opened is no orphan. Such a tape also never creates its new cassette
    /// empty (``SavePolicy``).
    package static let toolRunVariable = "CASSETTE_TOOL_RUN"

    /// The default ledger of the package at `packageRoot`: `.build/cassette-ledger`.
    package static func defaultFolder(packageRoot: URL) -> URL {
        packageRoot.appendingPathComponent(".build/cassette-ledger", isDirectory: true)
    }

    /// Where a tape on `cassette`, opened by a test in `testFile`, writes: nil when the ledger
    /// is off or there is no package above either.
    static func folder(for cassette: URL, testFile: String?, environment: [String: String]) -> URL? {
        if let given = environment[environmentVariable] {
            if ["", "off", "0", "false", "no"].contains(given.lowercased()) { return nil }
            let expanded = given.hasPrefix("~") ? (given as NSString).expandingTildeInPath : given
            return expanded.hasPrefix("/")
                ? URL(fileURLWithPath: expanded, isDirectory: true)
                : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(expanded, isDirectory: true)
        }
        let start = testFile ?? cassette.path
        return PackageRoots.root(above: start).map(defaultFolder(packageRoot:))
    }

    /// A run as the ledger holds it.
    package struct Run: Sendable {
        /// The run's folder name: `swift-test-PID-TICKS`, `process-…`, or `CASSETTE_RUN_ID`.
        package var id: String
        /// When its first process started.
        package var started: Date?
        /// Why the run does not cover the whole suite (a filter, a process cut short), or nil.
        package var partial: String?
        /// Files that were skipped, and why (a process killed while writing leaves a line cut short).
        package var warnings: [String]
        /// What each tape did.
        package var tapes: [LedgerRecord.Tape]
        /// How many test processes wrote to it.
        package var processes: Int
        /// The shards that wrote it (`CASSETTE_SHARD`), sorted; empty when none said.
        package var shards: [String] = []
        /// Which tests each of its processes ran.
        package var selections: [TestSelection] = []
        /// Why it is partial because its processes ran only some tests (a filter): what a test
        /// list judges when shards are taken together.
        package var selected: [String] = []
        /// Why it is partial otherwise (a process cut short, an unreadable file, a live run).
        package var incomplete: [String] = []
        /// The cassettes the `cassette` tool's kept runs opened (``Ledger/toolRunVariable``): never
        /// orphans, though the tool's runs are not judged.
        package var toolOpened: [String] = []

        /// Whether the run covers the whole suite: only then may a cassette nobody opened be an orphan.
        package var isComplete: Bool { partial == nil }
    }

    /// What went wrong reading a ledger.
    package struct ReadError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What went wrong, where, and what to do.
        package var description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// The test run whose first process started last, with the cassettes the tool's kept runs
    /// opened (``Run/toolOpened``).
    ///
    /// - Throws: ``ReadError`` when the folder holds no test run.
    package func lastRun() throws -> Run {
        let all = runFolders()
        let runs = all.filter { !$0.lastPathComponent.hasPrefix(TestRun.toolPrefix) }
        guard !runs.isEmpty else {
            throw ReadError(
                description:
                    "the ledger \(folder.path) holds no run: run the tests first (swift test), or name the ledger with --ledger or CASSETTE_LEDGER"
            )
        }
        var newest: Run?
        for runFolder in runs {
            let run = read(runFolder)
            if newest == nil || (run.started ?? .distantPast) > (newest?.started ?? .distantPast) { newest = run }
        }
        guard var newest else { throw ReadError(description: "the ledger \(folder.path) holds no run") }
        for tool in all where tool.lastPathComponent.hasPrefix(TestRun.toolPrefix) {
            newest.toolOpened += read(tool).tapes.flatMap { [$0.cassette] + $0.beneath }
        }
        return newest
    }

    /// Reads the run in `runFolder`: every process file; one that is malformed is skipped with
    /// a warning naming it and makes the run partial (the cassettes its tapes opened are unknown).
    func read(_ runFolder: URL) -> Run {
        var run = Run(id: runFolder.lastPathComponent, started: nil, partial: nil, warnings: [], tapes: [], processes: 0)
        let files = ((try? FileManager.default.contentsOfDirectory(at: runFolder, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "jsonl" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        var partial: [String] = []
        var selected: [String] = []
        var shards = Set<String>()
        for file in files {
            let records: [LedgerRecord]
            do {
                records = try LedgerRecord.records(in: try Data(contentsOf: file))
            } catch let error as LedgerFileError {
                run.warnings.append("\(file.path):\(error.line): skipped, not a ledger record (\(error.reason)); a test process cut short?")
                partial.append("\(file.lastPathComponent) is unreadable")
                continue
            } catch {
                run.warnings.append("\(file.path): skipped, cannot be read (\(CassetteFile.reason(error)))")
                partial.append("\(file.lastPathComponent) is unreadable")
                continue
            }
            run.processes += 1
            var ended = false
            var described = false
            for record in records {
                switch record {
                case .process(let process):
                    described = true
                    if run.started.map({ process.started < $0 }) ?? true { run.started = process.started }
                    if let filter = process.filter { selected.append("process \(process.pid) ran only some tests (\(filter))") }
                    if let shard = process.shard { shards.insert(shard) }
                    run.selections.append(TestSelection(arguments: process.arguments, runnerArguments: process.runnerArguments))
                case .tape(let tape):
                    run.tapes.append(tape)
                case .end:
                    ended = true
                }
            }
            if !ended { partial.append("process file \(file.lastPathComponent) has no end (the process was killed, or is still running)") }
            // Without its process record nothing says which tests the process ran: not a whole suite.
            if !described { partial.append("process file \(file.lastPathComponent) has no process record (which tests it ran is unknown)") }
        }
        if files.isEmpty { partial.append("no process wrote to it") }
        // A live run says nothing of what the cassettes are used for.
        let live = run.tapes.filter { $0.mode == LedgerRecord.liveMode }.count
        if live > 0 {
            partial.append(
                "\(live) of its tapes ran live (Tape.isLive or CASSETTE_LIVE), replaying and recording nothing, "
                    + "so it says nothing of what the cassettes are used for")
        }
        run.selected = selected
        run.incomplete = partial
        run.shards = shards.sorted()
        let reasons = selected + partial
        run.partial = reasons.isEmpty ? nil : reasons.joined(separator: "; ")
        return run
    }

    /// Whether the folder is a ledger: a run folder in it holds a process file (rather than, say,
    /// a folder of shards' ledgers).
    package var hasRuns: Bool {
        runFolders().contains { run in
            ((try? FileManager.default.contentsOfDirectory(atPath: run.path)) ?? []).contains { $0.hasSuffix(".jsonl") }
        }
    }

    /// The run folders, newest last by modification time.
    private func runFolders() -> [URL] {
        let keys: [URLResourceKey] = [.isDirectoryKey, .contentModificationDateKey]
        let entries = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: keys)) ?? []
        return entries.filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true }
            .map { ($0, (try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast) }
            .sorted { $0.1 < $1.1 }.map(\.0)
    }

    /// Removes all but the newest ``keptRuns`` test runs and as many of the tool's; never
    /// `current`. A burst of tool runs never pushes the suite's last run out.
    func removeOldRuns(keeping current: String) {
        let runs = runFolders().filter { $0.lastPathComponent != current }
        for tool in [true, false] {
            let kind = runs.filter { $0.lastPathComponent.hasPrefix(TestRun.toolPrefix) == tool }
            for old in kind.dropLast(max(0, Self.keptRuns - 1)) { try? FileManager.default.removeItem(at: old) }
        }
    }
}

/// The package roots above paths, remembered per folder: a tape is ejected many times in a run.
enum PackageRoots {
    private static let known = Locked<[Substring: URL?]>([:])

    /// The package root above `path`'s folder. An absolute path to a file is remembered by its
    /// folder, the bytes before its last `/` (`NSString`'s `deletingLastPathComponent` was nine
    /// tenths of this on each open); any other is looked for each time.
    static func root(above path: String) -> URL? {
        guard path.hasPrefix("/"), !path.hasSuffix("/"), let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else {
            return CassetteLocation.packageRoot(above: path)
        }
        let folder = path[..<slash]
        if let found = known.withLock({ $0[folder] }) { return found }
        let root = CassetteLocation.packageRoot(above: path)
        known.withLock { $0[folder] = .some(root) }
        return root
    }
}
