import Foundation

/// What ejecting a tape tells the test, each thing said once: requests that found no match (always
/// failures), unused interactions (per ``UnusedInteractions``), a stale cassette (per
/// ``Staleness``), a recording that no request reached (a warning).
///
/// A test that already failed for its own reason is not drowned: an unmatched request whose
/// report is already in the test's error is not repeated, and unused interactions are not
/// reported when the test threw or requests found no match (the unmatched report lists the
/// closest recordings already).
package struct EjectVerification: Equatable {
    package var failures: [VerificationFinding] = []
    package var warnings: [VerificationFinding] = []
    /// What the test carries as attachments (``Tape/Report/evidence``).
    package var evidence: [Evidence] = []
}

extension EjectVerification {
    /// - Parameters:
    ///   - report: what the tape did.
    ///   - unusedInteractions: the tape's policy.
    ///   - bodyError: what the test threw, if it did.
    init(_ report: Tape.Report, unusedInteractions: UnusedInteractions, bodyError: (any Error)?) {
        evidence = report.evidence
        let alreadySaid = bodyError.map { "\($0)\n" + ($0 as NSError).localizedDescription } ?? ""
        failures += report.unmatched.filter { !alreadySaid.contains($0.description) }.map(VerificationFinding.unmatched)
        warnings += report.bypassed
        if let stale = report.stale {
            let finding = VerificationFinding.stale(cassette: report.file, message: stale.message)
            if stale.fails { failures.append(finding) } else { warnings.append(finding) }
        }
        guard bodyError == nil, report.unmatched.isEmpty, !report.unusedInteractions.isEmpty, unusedInteractions != .ignore else { return }
        let finding = VerificationFinding.unusedInteractions(cassette: report.file, interactions: report.unusedInteractions)
        if unusedInteractions == .fail { failures.append(finding) } else { warnings.append(finding) }
    }
}
