import Foundation

/// The line a test process prints as it exits when `CASSETTE_SUMMARY=1`:
///
/// ```
/// Cassette: 14 cassettes replayed, 1 recorded, 0 misses, 3 unused interactions, 2 orphans — cassette report for details
/// ```
///
/// Counted over the folders this process's tapes used, with what the whole run had written to
/// the ledger by then: a process that ends before the others of its run (`swift test` runs
/// XCTest, then Swift Testing) may count as orphans cassettes a later one opens. `cassette
/// report` after the run is the final word.
package enum RunSummary {
    package static let variable = "CASSETTE_SUMMARY"

    static func line(for tapes: [LedgerRecord.Tape], ledger: Ledger, run: TestRun, now: Date = Date()) -> String {
        let folders = Set(tapes.map { URL(fileURLWithPath: $0.cassette).deletingLastPathComponent().standardizedFileURL })
        var written = ledger.read(ledger.folder.appendingPathComponent(run.id, isDirectory: true))
        // Processes of the run still going have no end yet; only a filter stops orphans being counted.
        written.partial = run.filter.map { "only some tests ran (\($0))" }
        let report = SuiteReport.make(
            run: written, cassettes: folders.sorted { $0.path < $1.path }, maximumAge: SuiteReport.defaultMaximumAge, now: now)
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        let orphans = written.isComplete ? count(report.orphans.count, "orphan") : "orphans not counted (\(written.partial ?? ""))"
        return "Cassette: \(count(report.replayed.count, "cassette")) replayed, \(report.recorded.count) recorded, "
            + "\(report.misses.count == 1 ? "1 miss" : "\(report.misses.count) misses"), "
            + "\(count(report.unusedCount, "unused interaction")), \(orphans) — "
            + "cassette report --ledger \(ledger.folder.path) for details"
    }
}
