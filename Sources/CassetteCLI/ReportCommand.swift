import Cassette
import Foundation

/// `cassette report PATH…`: what the last test run did with the cassettes (``SuiteReport``).
enum ReportCommand {
    static let usage = """
        USAGE: cassette report [--ledger DIR]... [--tests FILE] [--stale-after DAYS] [--json] PATH...

        Reads the suite ledger of the last test run (every tape writes what it did there as it is
        ejected) together with the cassette folders PATH (or files), and prints: the cassettes
        replayed, recorded into, and missed in; orphans, cassette files no test opened; the
        interactions no request used, per cassette; stale cassettes, whose *replayed* interactions
        are older than the limit (an old interaction nobody replays does not count).

        Orphans are judged only after a run of the whole suite (swift test without --filter or
        --skip, every test process ended), and only in folders where the run opened a cassette: a
        folder it opened none in (a suite that did not run) is listed as not judged.

        OPTIONS:
        \(LedgerOption.usage)
          --stale-after DAYS The age that makes a replayed interaction stale, for tapes without a
                             Staleness of their own (default 90).
          --json             Print the report as JSON.

        EXIT STATUS: 0 the report was printed, 1 the ledger holds no run, 2 the command line was wrong.
        """

    static func run(_ arguments: [String], output: ConsoleOutput, environment: [String: String]) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(
            arguments, command: "report", usage: usage, options: ["--ledger": "ledger", "--tests": "tests", "--stale-after": "stale"],
            flags: ["--json": "json"], output: output)
        {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        guard !list.operands.isEmpty else { return output.usageError("'cassette report' needs a cassette folder", command: "report") }
        var maximumAge = SuiteReport.defaultMaximumAge
        if let days = list.values["stale"]?.last {
            guard let number = Double(days), number >= 0 else {
                return output.usageError("--stale-after takes a number of days, not '\(days)'", command: "report")
            }
            maximumAge = number * 86_400
        }
        let report: SuiteReport
        switch LedgerOption.report(list, maximumAge: maximumAge, environment: environment) {
        case .success(let made): report = made
        case .failure(let error):
            output.errorLine("error: \(error)")
            return ExitCode.failure
        }
        if list.flags.contains("json") {
            output.line(json(report))
        } else {
            for line in text(report) { output.line(line) }
        }
        for warning in report.warnings { output.errorLine("warning: " + warning) }
        return ExitCode.success
    }

    static func text(_ report: SuiteReport, now: Date = Date()) -> [String] {
        func count(_ number: Int, _ one: String, _ many: String) -> String { "\(number) " + (number == 1 ? one : many) }
        var lines = [
            "run \(report.run)" + (report.shards.isEmpty ? "" : " (shards \(report.shards.joined(separator: ", ")))") + ": "
                + (report.partial.map { "partial — \($0)" } ?? "the whole suite"),
            "\(count(report.cassetteCount, "cassette", "cassettes")): \(report.replayed.count) replayed, \(report.recorded.count) recorded into, "
                + "\(count(report.misses.count, "miss", "misses")), \(count(report.orphans.count, "orphan", "orphans")), "
                + "\(count(report.unusedCount, "unused interaction", "unused interactions")), \(report.stale.count) stale",
        ]
        if !report.misses.isEmpty {
            lines.append("misses:")
            lines += report.misses.map { "  \(ShownPath.of($0.cassette)): \($0.request)" + ($0.test.map { " (\($0))" } ?? "") }
        }
        if !report.orphans.isEmpty {
            lines.append("orphans (no test opened them):")
            lines += report.orphans.map { "  " + ShownPath.of($0) }
        } else if report.partial != nil {
            lines.append("orphans: not judged (the run was partial)")
        }
        if !report.unused.isEmpty {
            lines.append("unused interactions:")
            for unused in report.unused {
                lines.append("  \(ShownPath.of(unused.cassette))" + (unused.changedSinceRun ? " (changed since the run)" : "") + ":")
                lines += unused.interactions.map { "    " + $0 }
            }
        }
        if !report.stale.isEmpty {
            lines.append("stale (replayed interactions older than the limit):")
            for stale in report.stale {
                let days = Int(now.timeIntervalSince(stale.oldestReplayed) / 86_400)
                let limit = Int(stale.maximumAge / 86_400)
                let refresh = stale.refreshCommand.map { "; refresh: " + $0 } ?? ""
                lines.append(
                    "  \(ShownPath.of(stale.cassette)): replays an interaction recorded \(days) days ago (limit \(limit))\(refresh)")
            }
        }
        if !report.unvisitedFolders.isEmpty {
            lines.append("not judged (the run opened no cassette there):")
            lines += report.unvisitedFolders.map { "  " + ShownPath.of($0) + "/" }
        }
        return lines
    }

    static func json(_ report: SuiteReport) -> String {
        let object: JSONValue = [
            "run": JSONValue(report.run),
            "shards": JSONValue(report.shards),
            "partial": JSONValue(report.partial),
            "cassettes": JSONValue(report.cassetteCount),
            "replayed": JSONValue(report.replayed.map(\.path)),
            "recorded": JSONValue(report.recorded.map(\.path)),
            "misses": JSONValue(
                report.misses.map {
                    ["cassette": JSONValue($0.cassette.path), "request": JSONValue($0.request), "test": JSONValue($0.test)]
                }),
            "orphans": JSONValue(report.orphans.map(\.path)),
            "unused": JSONValue(
                report.unused.map {
                    [
                        "cassette": JSONValue($0.cassette.path), "interactions": JSONValue($0.interactions),
                        "numbers": JSONValue($0.numbers),
                        "changedSinceRun": JSONValue($0.changedSinceRun),
                    ]
                }),
            "stale": JSONValue(
                report.stale.map {
                    [
                        "cassette": JSONValue($0.cassette.path),
                        "oldestReplayed": JSONValue(ISO8601DateFormatter().string(from: $0.oldestReplayed)),
                        "maximumAgeDays": JSONValue($0.maximumAge / 86_400), "tests": JSONValue($0.tests),
                        "refresh": JSONValue($0.refreshCommand),
                    ]
                }),
            "unvisitedFolders": JSONValue(report.unvisitedFolders.map(\.path)),
            "warnings": JSONValue(report.warnings),
        ]
        return object.prettyPrinted
    }
}
