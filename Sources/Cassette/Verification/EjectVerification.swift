import Foundation

/// What ejecting a tape tells the test, each thing said once: requests that found no match (always
/// failures), unused interactions (per ``UnusedInteractions``), a stale cassette (per
/// ``Staleness``).
///
/// A test that already failed for its own reason is not drowned: an unmatched request whose
/// report is already in the test's error is not repeated, and unused interactions are not
/// reported when the test threw or requests found no match (the unmatched report lists the
/// closest recordings already).
package struct EjectVerification: Equatable {
    package var failures: [String] = []
    package var warnings: [String] = []
}

extension EjectVerification {
    /// - Parameters:
    ///   - report: what the tape did.
    ///   - unusedInteractions: the tape's policy.
    ///   - bodyError: what the test threw, if it did.
    init(_ report: Tape.Report, unusedInteractions: UnusedInteractions, bodyError: (any Error)?) {
        let alreadySaid = bodyError.map { "\($0)\n" + ($0 as NSError).localizedDescription } ?? ""
        failures += report.unmatched.filter { !alreadySaid.contains($0) }
        if let stale = report.stale {
            if stale.fails { failures.append(stale.message) } else { warnings.append(stale.message) }
        }
        guard bodyError == nil, report.unmatched.isEmpty, !report.unusedInteractions.isEmpty, unusedInteractions != .ignore else { return }
        let count = report.unusedInteractions.count
        let message = "cassette \(report.file.path): \(count) recorded interaction\(count == 1 ? "" : "s") answered no request:\n"
            + report.unusedInteractions.map { "  " + $0 }.joined(separator: "\n")
            + "\nRemove \(count == 1 ? "it" : "them") from the cassette if the code under test no longer sends \(count == 1 ? "this request" : "these requests"), "
            + "or open the tape with Tape.Options(unusedInteractions: .ignore)."
        if unusedInteractions == .fail { failures.append(message) } else { warnings.append(message) }
    }
}
