import Cassette
import Foundation

/// What `cassette prune` removes: orphaned cassettes and interactions no test used, as a
/// ``SuiteReport`` of a whole-suite run proves them — and nothing else. ``apply()`` carries it out.
///
/// Never touched: a cassette the run did not open (unless it is an orphan in a folder the run
/// visited), a cassette changed since the run (edited, re-recorded: the ledger's numbers may no
/// longer name the same interactions), and anything at all after a partial run.
///
/// ```swift
/// let report = try SuiteReport.make(ledger: ledger, cassettes: [cassettes])
/// let plan = try PrunePlan(report: report, orphans: true, unusedInteractions: true)
/// print(plan.description)   // what would be removed
/// try plan.apply()
/// ```
package struct PrunePlan: Sendable, Equatable, CustomStringConvertible {
    /// One change to one file.
    package enum Step: Sendable, Equatable {
        /// Remove the cassette file.
        case removeCassette(URL)
        /// Remove these interactions (1-based numbers, and as shown) from the cassette.
        case removeInteractions(URL, numbers: [Int], shown: [String])
    }

    /// Why a plan cannot be made.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// Why, and what to do instead.
        package var description: String
    }

    /// The changes, in file order.
    package var steps: [Step]
    /// What was left alone, and why.
    package var leftAlone: [String]

    /// The plan for `report`.
    ///
    /// - Parameter inside: the folders the command was given. A file whose real place (every
    ///   symbolic link on the way followed) is outside all of them is left alone, with why: prune
    ///   never deletes or rewrites through a link that leads out of them. Empty: no such check.
    /// - Throws: ``Refusal`` when the run did not cover the whole suite, or neither kind was asked.
    package init(report: SuiteReport, orphans: Bool, unusedInteractions: Bool, inside folders: [URL] = []) throws(Refusal) {
        guard orphans || unusedInteractions else {
            throw Refusal(description: "nothing to prune: ask for --orphans, --unused-interactions, or both")
        }
        if let partial = report.partial {
            throw Refusal(
                description: "the ledger's last run (\(report.run)) did not cover the whole suite: \(partial). "
                    + "Nothing was changed. Run the whole suite (swift test, without --filter or --skip), then prune.")
        }
        steps = []
        leftAlone = []
        if orphans { steps += report.orphans.map { .removeCassette($0) } }
        if unusedInteractions {
            for unused in report.unused {
                if unused.changedSinceRun {
                    leftAlone.append("\(ShownPath.of(unused.cassette)): changed since the run; run the tests again to prune it")
                } else {
                    steps.append(.removeInteractions(unused.cassette, numbers: unused.numbers, shown: unused.interactions))
                }
            }
        }
        if !folders.isEmpty {
            let roots = folders.map { RealPath.of($0.path) }
            steps.removeAll { step in
                let file = Self.file(of: step)
                let real = RealPath.of(file.path)
                guard !roots.contains(where: { ExactPath(real).isInside(ExactPath($0)) }) else { return false }
                leftAlone.append(
                    "\(ShownPath.of(file)): its real place, \(real), is outside the folders given (\(roots.joined(separator: ", "))); "
                        + "prune never deletes or rewrites through a link that leads out of them")
                return true
            }
        }
        steps.sort { Self.file(of: $0).path < Self.file(of: $1).path }
    }

    private static func file(of step: Step) -> URL {
        switch step {
        case .removeCassette(let file), .removeInteractions(let file, _, _): return file
        }
    }

    /// The plan as `cassette prune` prints it.
    package var description: String {
        var lines: [String] = []
        for step in steps {
            switch step {
            case .removeCassette(let file):
                lines.append("remove \(ShownPath.of(file)) (orphan: no test opened it)")
            case .removeInteractions(let file, _, let shown):
                lines.append("remove from \(ShownPath.of(file)): " + shown.joined(separator: ", "))
            }
        }
        lines += leftAlone.map { "leave \($0)" }
        return lines.isEmpty ? "nothing to prune" : lines.joined(separator: "\n")
    }

    /// Carries out the plan, one file at a time, each atomically (a cassette is written to a
    /// temporary file renamed over it, under the folder's lock, as tapes save). A file that fails
    /// is left as it was and the others go on.
    ///
    /// - Returns: what went wrong, one line per file; empty when everything was done.
    @discardableResult
    package func apply() -> [String] {
        var failures: [String] = []
        for step in steps {
            switch step {
            case .removeCassette(let file):
                do throws(CassetteError) {
                    try CassetteFile.remove(file)
                } catch {
                    failures.append("\(ShownPath.of(file)): not removed (\(error))")
                }
            case .removeInteractions(let file, let numbers, _):
                do throws(CassetteError) {
                    try CassetteFile.rewrite(file) { (document: inout CassetteDocument) throws(CassetteError) in
                        let removed = Set(numbers.map { $0 - 1 })
                        guard removed.allSatisfy({ document.interactions.indices.contains($0) }) else {
                            throw CassetteError.saveFailed(
                                file: file.path, reason: "it has fewer interactions than the ledger saw; run the tests again")
                        }
                        document.interactions = document.interactions.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
                    }
                } catch {
                    failures.append("\(ShownPath.of(file)): not pruned (\(error))")
                }
            }
        }
        return failures
    }
}
