import Cassette
import CassetteTools
import Foundation

/// `cassette prune`: removes what the last whole-suite run proved unused (``PrunePlan``).
enum PruneCommand {
    static let usage = """
        USAGE: cassette prune [--ledger DIR]... [--tests FILE] (--orphans | --unused-interactions)... [--apply] PATH...

        Removes, from the cassette folders PATH, what the suite ledger's last run proves unused:
        --orphans, cassette files no test opened (in folders where the run opened others);
        --unused-interactions, interactions no request used in any test that opened the cassette.
        Without --apply it prints the plan and changes nothing.

        Refused after a partial run: the last run must be the whole suite (swift test without
        --filter or --skip, every test process ended; see 'cassette report'), or, for a suite split
        over machines, the shards' last runs together (every --ledger, and --tests listing the
        suite: every test must have run in some shard). A cassette the run
        did not open is never changed, nor one changed since the run. Each file is rewritten
        atomically, under its folder's lock, as tapes save.

        OPTIONS:
        \(LedgerOption.usage)
          --orphans              Remove orphaned cassettes.
          --unused-interactions  Remove unused interactions.
          --apply                Carry the plan out (default: only print it).

        EXIT STATUS: 0 done (or planned), 1 refused (a partial run, no run) or a file could not
        be changed, 2 the command line was wrong.
        """

    static func run(_ arguments: [String], output: ConsoleOutput, environment: [String: String]) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(
            arguments, command: "prune", usage: usage, options: ["--ledger": "ledger", "--tests": "tests"],
            flags: ["--orphans": "orphans", "--unused-interactions": "unused", "--apply": "apply"], output: output)
        {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        guard !list.operands.isEmpty else { return output.usageError("'cassette prune' needs a cassette folder", command: "prune") }
        guard list.flags.contains("orphans") || list.flags.contains("unused") else {
            return output.usageError("'cassette prune' needs --orphans, --unused-interactions, or both", command: "prune")
        }
        let plan: PrunePlan
        do {
            let report = try LedgerOption.report(list, environment: environment).get()
            for warning in report.warnings { output.errorLine("warning: " + warning) }
            plan = try PrunePlan(
                report: report, orphans: list.flags.contains("orphans"), unusedInteractions: list.flags.contains("unused"),
                inside: list.operands.map { URL(fileURLWithPath: $0) })
        } catch {
            output.errorLine("error: \(error)")
            return ExitCode.failure
        }
        output.line(plan.description)
        guard list.flags.contains("apply") else {
            if !plan.steps.isEmpty { output.line("(a plan only: nothing was changed; add --apply to carry it out)") }
            return ExitCode.success
        }
        let failures = plan.apply()
        for failure in failures { output.errorLine("error: " + failure) }
        output.line("pruned \(plan.steps.count - failures.count) of \(plan.steps.count) files")
        return failures.isEmpty ? ExitCode.success : ExitCode.failure
    }
}
