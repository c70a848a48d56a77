import Foundation

/// The requests a tape could not answer, as a page beside its cassette (`feed.json` →
/// `feed.misses.html`): each missed request next to the recordings closest to it, with what
/// differs on each — the same page as `cassette view`. Written at eject when
/// ``Tape/Options/writesMissReportPage`` or `CASSETTE_REPORT_HTML=1` asks for it.
enum MissReportPage {
    /// The environment variable that turns the page on for every tape (`1`).
    static let environmentVariable = "CASSETTE_REPORT_HTML"

    /// Where the page of `cassette` goes.
    static func file(for cassette: URL) -> URL {
        cassette.deletingPathExtension().appendingPathExtension("misses.html")
    }

    /// Writes the page of `misses` for `cassette`; returns its file.
    static func write(_ misses: [UnmatchedRequest], cassette: URL, mode: RecordMode) throws -> URL {
        var rows: [Interaction] = []
        var notes: [CassetteFormatError.Problem] = []
        func note(_ row: Int, _ message: String) {
            notes.append(CassetteFormatError.Problem(path: JSONPath.root.appending("interactions").appending(row), message: message))
        }
        for (number, miss) in misses.enumerated() {
            let row = rows.count
            rows.append(Interaction(request: miss.request))
            note(row, "miss \(number + 1): no recorded interaction matches this request (record mode \(mode))")
            if miss.usedUp > 0 { note(row, "it matches \(miss.usedUp) recorded interaction(s) that already answered") }
            for candidate in miss.candidates {
                let shown = rows.count
                rows.append(Interaction(request: candidate.request))
                let summary = candidate.differences.isEmpty ? "the same request" : "\(candidate.differences.count) difference(s)"
                note(
                    row, "closest: recorded #\(candidate.number) (row \(shown)), \(summary)\(candidate.alreadyUsed ? ", already used" : "")"
                )
                note(shown, "recorded #\(candidate.number), closest to miss \(number + 1)\(candidate.alreadyUsed ? " (already used)" : "")")
                for difference in candidate.differences { note(shown, "differs: \(difference)") }
            }
        }
        let page = CassetteViewPage(sources: [
            CassetteViewPage.Source(
                file: cassette.path + " — \(misses.count) miss\(misses.count == 1 ? "" : "es")", format: "miss report",
                document: CassetteDocument(interactions: rows), warnings: notes, label: "")
        ])
        let file = file(for: cassette)
        try Data(page.html().utf8).write(to: file, options: .atomic)
        return file
    }
}
