import Foundation

/// The requests a tape could not answer, saved as a cassette beside its own (`feed.json` →
/// `feed.misses.json`): each missed request, with the error its client got, followed by the
/// recorded interactions closest to it, whole, with what differs on each kept as notes in the
/// file's metadata (`"misses"`). It is data, like every cassette: an editor shows it, a missed
/// request can be copied from it into the cassette, and `cassette view feed.misses.json` shows it
/// as a page, each note beside its row. Written at eject when ``Tape/Options/writesMisses`` or
/// `CASSETTE_WRITE_MISSES=1` asks for it.
///
/// ```json
/// "metadata": { "misses": [
///   { "interaction": 0, "note": "miss 1: no recorded interaction matches this request (record mode none)" },
///   { "interaction": 1, "note": "differs: query parameter \"fields\": recorded \"name\", requested \"email\"" } ] }
/// ```
package enum MissesFile {
    /// The environment variable that turns the file on for every tape (`1`).
    static let environmentVariable = "CASSETTE_WRITE_MISSES"
    /// Its former name, when the misses were written as a page; still read (CHANGELOG).
    static let formerEnvironmentVariable = "CASSETTE_REPORT_HTML"
    /// The metadata member holding the notes.
    package static let metadataKey = "misses"

    /// A note on one row of the file: the interaction it is about (numbered from 0) and what it says.
    package struct Note: Equatable, Sendable {
        package var interaction: Int
        package var text: String
    }

    /// Whether `environment` asks for the file.
    static func isWanted(in environment: [String: String]) -> Bool {
        EnvironmentSwitch.isOn(environmentVariable, in: environment) == true
            || EnvironmentSwitch.isOn(formerEnvironmentVariable, in: environment) == true
    }

    /// Where the misses of `cassette` go.
    static func file(for cassette: URL) -> URL {
        cassette.deletingPathExtension().appendingPathExtension("misses.json")
    }

    /// The misses as a cassette: each missed request, with the error its client got, then its
    /// closest recordings as `recorded` finds them by number (from 1), with the notes.
    static func document(
        _ misses: [UnmatchedRequest], mode: RecordMode, recorded: (Int) -> Interaction?
    ) -> CassetteDocument {
        var rows: [Interaction] = []
        var notes: [Note] = []
        func note(_ row: Int, _ text: String) { notes.append(Note(interaction: row, text: text)) }
        for (number, miss) in misses.enumerated() {
            let row = rows.count
            rows.append(Interaction(request: miss.request, error: .init(code: .init(rawValue: RequestFailure.unmatchedCode.rawValue))))
            note(row, "miss \(number + 1): no recorded interaction matches this request (record mode \(mode))")
            if miss.usedUp > 0 { note(row, "it matches \(miss.usedUp) recorded interaction(s) that already answered") }
            for candidate in miss.candidates {
                guard let interaction = recorded(candidate.number) else { continue }
                let shown = rows.count
                rows.append(interaction)
                let summary = candidate.differences.isEmpty ? "the same request" : "\(candidate.differences.count) difference(s)"
                let used = candidate.alreadyUsed ? ", already used" : ""
                note(row, "closest: recorded #\(candidate.number) (row \(shown)), \(summary)\(used)")
                note(shown, "recorded #\(candidate.number), closest to miss \(number + 1)\(candidate.alreadyUsed ? " (already used)" : "")")
                for difference in candidate.differences { note(shown, "differs: \(difference)") }
            }
        }
        var document = CassetteDocument(interactions: rows)
        document.metadata[metadataKey] = .array(
            notes.map { .object(["interaction": .integer($0.interaction), "note": .string($0.text)]) })
        return document
    }

    /// The notes of a misses file, in order; empty for a cassette that is not one.
    package static func notes(in document: CassetteDocument) -> [Note] {
        guard case .array(let entries)? = document.metadata[metadataKey] else { return [] }
        return entries.compactMap { entry in
            guard case .object(let members) = entry, let row = members["interaction"]?.integerValue,
                let text = members["note"]?.stringValue
            else { return nil }
            return Note(interaction: row, text: text)
        }
    }

    /// Writes the misses of `cassette` beside it; returns the file.
    static func write(_ document: CassetteDocument, cassette: URL) throws(CassetteError) -> URL {
        let file = file(for: cassette)
        try CassetteFile.write(document, to: file)
        return file
    }
}
