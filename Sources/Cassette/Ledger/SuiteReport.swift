import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a test run did with the cassettes of some folders, from the ledger (``Ledger``): which
/// were replayed, recorded or missed; **orphans**, cassette files no tape opened; interactions
/// no request used; **stale** cassettes, by the age of the interactions the tests actually
/// replayed. What `cassette report` prints (the command is its interface; `--json` for scripts).
///
/// Orphans are judged only when the run covered the whole suite (``Ledger/Run/isComplete``),
/// and only in folders where the run opened at least one cassette: a suite that did not run at
/// all (skipped, or its platform's tests) leaves its folder unvisited, listed in
/// ``unvisitedFolders`` and never called orphaned. A single test skipped inside a suite that ran
/// cannot be seen from the ledger: its cassette is reported as an orphan (`PrunePlan` says so
/// before removing anything).
///
/// ```swift
/// let report = try SuiteReport.make(ledger: Ledger(folder: ledgerURL), cassettes: [cassettesURL])
/// for orphan in report.orphans { print(orphan.path) }
/// ```
package struct SuiteReport: Sendable, Equatable {
    /// A cassette with some of its interactions unused by every tape that opened it.
    package struct Unused: Sendable, Equatable {
        /// The cassette file.
        package var cassette: URL
        /// Each as `#3 GET https://…`.
        package var interactions: [String]
        /// Their numbers (1-based) in the file.
        package var numbers: [Int]
        /// Whether the file changed after the run (edited, re-recorded): then the numbers may
        /// no longer name those interactions, and `PrunePlan` leaves it alone.
        package var changedSinceRun: Bool
    }

    /// A cassette whose replayed interactions are older than the limit.
    package struct Stale: Sendable, Equatable {
        /// The cassette file.
        package var cassette: URL
        /// The oldest `recordedAt` among the interactions the run replayed.
        package var oldestReplayed: Date
        /// The limit it is over, in seconds: the tape's ``Staleness`` when it had one, else the report's.
        package var maximumAge: TimeInterval
        /// The tests that replayed it, to re-record with `CASSETTE_RECORD_MODE=all swift test --filter …`.
        package var tests: [String]

        /// The command that records it again, when the ledger knows its tests:
        /// `CASSETTE_RECORD_MODE=all swift test --filter 'App.FeedTests/loads'`.
        package var refreshCommand: String? {
            tests.isEmpty
                ? nil : "CASSETTE_RECORD_MODE=all swift test --filter '\(tests.map(Staleness.filter(for:)).joined(separator: "|"))'"
        }
    }

    /// A request no recording answered.
    package struct Miss: Sendable, Equatable {
        /// The cassette the tape had.
        package var cassette: URL
        /// The request, as `GET https://…`.
        package var request: String
        /// The test that sent it, when the ledger knows.
        package var test: String?
    }

    /// The run the report is about (the runs of the shards, joined by ` + `).
    package var run: String
    /// The shards whose runs it joins (`CASSETTE_SHARD`); empty for one run, or shards that did not say.
    package var shards: [String] = []
    /// Why the run does not cover the whole suite (then ``orphans`` is empty), or nil.
    package var partial: String?
    /// Ledger files skipped, and why.
    package var warnings: [String]
    /// Every cassette file found under the folders given.
    package var cassetteCount: Int
    /// Cassettes a tape replayed from during the run.
    package var replayed: [URL]
    /// Cassettes a tape recorded into.
    package var recorded: [URL]
    /// Requests no recording answered.
    package var misses: [Miss]
    /// Cassette files no tape opened, in folders the run visited.
    package var orphans: [URL]
    /// Folders with cassettes of which the run opened none: not judged.
    package var unvisitedFolders: [URL]
    /// Cassettes with interactions no test used.
    package var unused: [Unused]
    /// Cassettes whose replayed interactions are older than the limit.
    package var stale: [Stale]

    /// The number of unused interactions over all cassettes.
    package var unusedCount: Int { unused.reduce(0) { $0 + $1.numbers.count } }

    /// The default limit of ``stale``: 90 days.
    package static let defaultMaximumAge: TimeInterval = 90 * 86_400

    /// The report of the ledger's last run over the cassettes under `cassettes` (files or
    /// folders, searched recursively for `.json`, `.http` and `.har` files).
    ///
    /// - Parameters:
    ///   - ledger: the ledger the test run wrote.
    ///   - cassettes: the cassette folders (or files) to judge.
    ///   - maximumAge: the age beyond which replayed interactions make a cassette stale, when its
    ///     tape had no ``Staleness`` of its own.
    ///   - now: the time ages are counted to.
    /// - Throws: ``Ledger/ReadError`` when the ledger holds no run.
    package static func make(
        ledger: Ledger, cassettes: [URL], maximumAge: TimeInterval = defaultMaximumAge, now: Date = Date()
    ) throws -> SuiteReport {
        make(run: try ledger.lastRun(), cassettes: cassettes, maximumAge: maximumAge, now: now)
    }

    /// The report of a suite split over several machines: the union of the last run of each
    /// shard's ledger (each shard uploads its ledger folder; one job reads them all).
    ///
    /// - Parameters:
    ///   - ledgers: each shard's ledger (`CASSETTE_SHARD` names the shard in its records).
    ///   - cassettes: the cassette folders (or files) to judge, here.
    ///   - tests: the suite's tests, as `swift test list` prints them (`App.FeedTests/loads()`): the union
    ///     covers the whole suite — and orphans are judged, prune may proceed — when every one of
    ///     them ran in some shard. Nil: shards that ran only some tests leave the union partial.
    ///   - maximumAge: as ``make(ledger:cassettes:maximumAge:now:)``.
    ///   - now: the time ages are counted to.
    /// - Throws: ``Ledger/ReadError`` when a ledger holds no run, or the ledgers come from different packages.
    package static func make(
        ledgers: [Ledger], cassettes: [URL], tests: [String]?, maximumAge: TimeInterval = defaultMaximumAge, now: Date = Date()
    ) throws -> SuiteReport {
        var runs: [Ledger.Run] = []
        for ledger in ledgers { runs.append(try ledger.lastRun()) }
        let root = cassettes.first.flatMap { CassetteLocation.packageRoot(above: $0.appendingPathComponent("cassette.json").path) }
        let run = try Ledger.Run.union(runs, tests: tests, root: root)
        var report = make(run: run, cassettes: cassettes, maximumAge: maximumAge, now: now)
        report.shards = run.shards
        return report
    }

    /// A cassette's identity: its real path (``RealPath``), so that a file opened through a link
    /// and by its own path is one cassette, used by both.
    static func identity(_ path: String, cache: inout RealPath.Cache) -> String {
        cache.of(RealPath.standardized(path))
    }

    static func make(run: Ledger.Run, cassettes roots: [URL], maximumAge: TimeInterval, now: Date) -> SuiteReport {
        let files = CassetteStore.find(under: roots)
        // Paths as strings, computed once: `URL.path` decodes the URL at every call.
        let paths = files.map(\.path)
        var realPaths = RealPath.Cache()
        var resolved: [ExactPath: ExactPath] = [:]
        // Each path resolved once, whether listed or in the ledger (nearly always both).
        func remembered(_ path: String) -> ExactPath {
            let key = ExactPath(path)
            if let known = resolved[key] { return known }
            let found = ExactPath(Self.identity(path, cache: &realPaths))
            resolved[key] = found
            return found
        }
        let identities = paths.map(remembered)
        let known = Set(identities)
        var byCassette: [ExactPath: [LedgerRecord.Tape]] = [:]
        var opened = Set<ExactPath>()
        for tape in run.tapes {
            let path = remembered(tape.cassette)
            for beneath in tape.beneath { opened.insert(remembered(beneath)) }
            opened.insert(path)
            guard known.contains(path) else { continue }
            byCassette[path, default: []].append(tape)
        }
        // Folders where a tape opened an existing cassette, by any of its names: a ledger line
        // naming a file that is not there (deleted since, or written by hand) makes no folder's
        // cassettes orphans.
        let visited = Set(
            zip(paths, identities).filter { opened.contains($0.1) }.map { ExactPath(($0.0 as NSString).deletingLastPathComponent) })
        // The tool's uses (a `serve` during UI tests) keep a cassette from being an orphan, and
        // are judged no further: they make no folder visited.
        for path in run.toolOpened { opened.insert(remembered(path)) }
        var report = SuiteReport(
            run: run.id, partial: run.partial, warnings: run.warnings, cassetteCount: files.count, replayed: [], recorded: [],
            misses: [], orphans: [], unvisitedFolders: [], unused: [], stale: [])
        var unvisited = Set<ExactPath>()
        for (file, (path, identity)) in zip(files, zip(paths, identities)) where !opened.contains(identity) {
            let folder = ExactPath((path as NSString).deletingLastPathComponent)
            if !visited.contains(folder) {
                unvisited.insert(folder)
            } else if run.isComplete {
                report.orphans.append(file)
            }
        }
        report.unvisitedFolders = unvisited.sorted().map { URL(fileURLWithPath: $0.path, isDirectory: true) }
        for key in byCassette.keys.sorted() {
            guard let tapes = byCassette[key] else { continue }
            let cassette = URL(fileURLWithPath: key.path)
            if tapes.contains(where: { !$0.replayed.isEmpty }) { report.replayed.append(cassette) }
            if tapes.contains(where: { $0.recorded > 0 }) { report.recorded.append(cassette) }
            for tape in tapes {
                report.misses += tape.misses.map { Miss(cassette: cassette, request: $0, test: tape.test) }
            }
            // Unused: by every tape that replayed from it (a tape recording everything anew replays nothing).
            let replaying = tapes.filter { $0.mode != RecordMode.all.rawValue && $0.mode != LedgerRecord.liveMode }
            if let first = replaying.first {
                var numbers = Set(first.unused)
                for tape in replaying.dropFirst() { numbers.formIntersection(tape.unused) }
                if !numbers.isEmpty {
                    let shown = Dictionary(zip(first.unused, first.unusedShown), uniquingKeysWith: { a, _ in a })
                    let sorted = numbers.sorted()
                    report.unused.append(
                        Unused(
                            cassette: cassette, interactions: sorted.map { shown[$0] ?? "#\($0)" }, numbers: sorted,
                            changedSinceRun: changed(cassette, since: tapes.last)))
                }
            }
            let oldest = tapes.compactMap(\.oldestReplayed).min()
            let limit = tapes.compactMap(\.maximumAge).min() ?? maximumAge
            if let oldest, now.timeIntervalSince(oldest) > limit {
                report.stale.append(
                    Stale(
                        cassette: cassette, oldestReplayed: oldest, maximumAge: limit,
                        tests: Array(Set(tapes.filter { !$0.replayed.isEmpty }.compactMap(\.test))).sorted()))
            }
        }
        return report
    }

    /// Whether `cassette` is no longer as the last tape left it.
    static func changed(_ cassette: URL, since tape: LedgerRecord.Tape?) -> Bool {
        guard let tape, let size = tape.fileSize, let modified = tape.fileModified else { return true }
        let now = FileFacts(cassette)
        return now.size != size || now.modified.map { abs($0.timeIntervalSince(modified)) > 0.002 } ?? true
    }
}

/// A file's size and modification time, as the ledger keeps them.
struct FileFacts: Sendable, Equatable {
    var size: Int?
    var modified: Date?

    /// Read with `stat` (Foundation's attributes also look up the owner's name: ten times the cost
    /// for every tape ejected).
    init(_ file: URL) {
        var info = stat()
        guard stat(file.path, &info) == 0 else { return }
        size = Int(info.st_size)
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        modified = Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }
}
