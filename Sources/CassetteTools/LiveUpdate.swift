import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension LiveCheck {
    /// What ``update(_:options:)`` rewrote in one cassette.
    package struct Update: Sendable, Equatable {
        /// The cassette file.
        package var cassette: URL
        /// The interactions recorded again (0-based, as ``Finding/index``).
        package var interactions: [Int]
    }

    /// What went wrong recording a drifted interaction again.
    package struct UpdateError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What happened, to which cassette, and what to do.
        package var description: String
    }

    /// Records again, from the live server, only the interactions `findings` say drifted, and
    /// writes each into its cassette in place of the old one: its response (or error), timing and
    /// `recordedAt` change; its request — placeholders included — and every other interaction
    /// keep their bytes. The new response goes through the recording pipeline of a tape: the
    /// redaction rules of `cassette-rules.json` beside the cassette (the defaults without one)
    /// apply, and the values of ``Options/secrets`` are written back as their placeholders. Each
    /// cassette is rewritten atomically, under its folder's lock.
    ///
    /// ```swift
    /// let findings = try await LiveCheck.run([cassettes])
    /// let updates = try LiveCheck.update(findings)   // blocks while it records
    /// ```
    ///
    /// Blocks its thread while the requests are sent; call it from a thread that may block (not
    /// from a Swift concurrency task without `Task.detached` and care).
    ///
    /// - Throws: ``UpdateError`` when an interaction cannot be recorded again or its cassette
    ///   changed since the check; `CassetteFormatError` or ``CassetteError`` when a cassette cannot
    ///   be read or written. Cassettes before the one that failed are already updated.
    package static func update(_ findings: [Finding], options: Options = Options()) throws -> [Update] {
        let drifted = Dictionary(grouping: findings.filter(\.drifted), by: \.cassette)
        var updates: [Update] = []
        for cassette in drifted.keys.sorted(by: { $0.path < $1.path }) {
            let indices = (drifted[cassette] ?? []).map(\.index).sorted()
            let original = try CassetteFile.read(cassette).interactions
            guard indices.allSatisfy(original.indices.contains) else {
                throw UpdateError(description: "\(ShownPath.of(cassette)): changed since it was checked; check it again, then update")
            }
            let again = try recordAgain(indices.map { original[$0] }, beside: cassette, options: options)
            try CassetteFile.rewrite(cassette) { (document: inout CassetteDocument) throws(CassetteError) in
                guard document.interactions.map(\.request) == original.map(\.request) else {
                    throw CassetteError.saveFailed(file: cassette.path, reason: "it changed while it was recorded again; check it again")
                }
                for (index, recorded) in zip(indices, again) {
                    document.interactions[index].response = recorded.response
                    document.interactions[index].error = recorded.error
                    document.interactions[index].timing = recorded.timing
                    document.interactions[index].recordedAt = recorded.recordedAt
                }
            }
            updates.append(Update(cassette: cassette, interactions: indices))
        }
        return updates
    }

    /// `interactions` sent again, one after another, through a tape recording into a scratch
    /// cassette with the rules of `cassette`'s folder; what it recorded, in order.
    private static func recordAgain(_ interactions: [Interaction], beside cassette: URL, options: Options) throws -> [Interaction] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("cassette-update-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var tapeOptions = try TapeRules.inFolder(cassette.deletingLastPathComponent())?.applying(to: Tape.Options()) ?? Tape.Options()
        for (placeholder, value) in options.secrets.sorted(by: { $0.key < $1.key }) {
            tapeOptions.redaction = tapeOptions.redaction.replacing(value, with: placeholder)
        }
        // The scratch cassette is the tool's own: no line announces it (`cassette check` says what it updated).
        let tape = try Tape(file: scratch, mode: .all, options: tapeOptions, environment: ["CASSETTE_SUMMARY": "0"])
        let configuration = configuration(options)
        tape.configure(configuration)
        let session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        for interaction in interactions {
            guard case .success(let request) = request(for: interaction, options: options) else {
                throw UpdateError(description: "\(ShownPath.of(cassette)): \(shown(interaction)) cannot be sent again")
            }
            _ = send(request, on: session)
        }
        let report = try tape.eject()
        let recorded = report.saved ? try CassetteFile.read(scratch).interactions : []
        guard recorded.count == interactions.count else {
            throw UpdateError(
                description:
                    "\(ShownPath.of(cassette)): recorded \(recorded.count) of the \(interactions.count) drifted interactions again "
                    + "(\(report.warnings.joined(separator: "; "))); nothing was written to it")
        }
        return recorded
    }
}
