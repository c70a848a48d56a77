import Cassette
import CassetteTools
import Foundation

/// `cassette show PATH…`: one row per interaction, to see what cassettes hold at a glance.
enum ShowCommand {
    static let usage = """
        USAGE: cassette show PATH...

        Prints one row per interaction of each cassette (.json, .http or .har); a folder is searched
        as 'cassette lint' searches it. Each cassette is a section: its rows, then
        'N interactions in FILE (FORMAT)' and its metadata when it has some ('metadata: {JSON}'),
        a blank line between sections. The columns:

          #     its number, from 1, as 'cassette report', 'cassette prune', 'cassette fault' and a
                miss's report number it (#4 is interactions[3] in the paths of error messages)
          METHOD, URL
          STATUS  the response status, the transport error, or both ("200, then networkConnectionLost")
          BODY    the size of the response body in bytes
          TIMING  first byte / total, in milliseconds, as recorded ("-" when not recorded); a latency
                  written in the cassette, which replaces it on replay, first:
                  "latency fixed:2,2.5 (recorded 5 / 10 ms)"
          NOTES   only when an interaction has one: its scenario mark ('scenario "status 503"') and the
                  authentication challenges it answered ('challenge HTTPBasic realm "api" (401): useCredential')

        EXIT STATUS: 0 every cassette was shown, 1 one cannot be read (the reason on standard error;
        the others are still shown), 2 the command line was wrong.
        """

    static func run(_ arguments: [String], output: ConsoleOutput) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(arguments, command: "show", usage: usage, output: output) {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        guard !list.operands.isEmpty else {
            return output.usageError("'cassette show' needs at least one cassette file or folder", command: "show")
        }
        var status = ExitCode.success
        var sections = 0
        for path in list.operands {
            switch CassetteFiles.find(at: path) {
            case .failure(let problem):
                output.errorLine("\(path): error: \(problem.message)")
                status = ExitCode.failure
            case .success(let files):
                for file in files {
                    switch CassetteFiles.read(file) {
                    case .failure(let error):
                        output.errorLine(error.description)
                        status = ExitCode.failure
                    case .success(let document):
                        if sections > 0 { output.line("") }
                        sections += 1
                        for line in table(document) { output.line(line) }
                        let count = document.interactions.count
                        output.line("\(count) interaction\(count == 1 ? "" : "s") in \(file) (\(CassetteFormat(path: file)))")
                        if !document.metadata.isEmpty { output.line("metadata: \(MetadataValue.object(document.metadata))") }
                    }
                }
            }
        }
        return status
    }

    /// The rows, header first, columns padded to line up; a NOTES column when an interaction has
    /// a scenario mark or answered a challenge.
    static func table(_ document: CassetteDocument) -> [String] {
        let notes = document.interactions.map { InteractionSummary.notes(of: $0).joined(separator: "; ") }
        let noted = notes.contains { !$0.isEmpty }
        var rows = [["#", "METHOD", "URL", "STATUS", "BODY", "TIMING"] + (noted ? ["NOTES"] : [])]
        for (index, interaction) in document.interactions.enumerated() {
            rows.append(
                [
                    String(InteractionSummary.number(ofIndex: index)), interaction.request.method, interaction.request.url,
                    InteractionSummary.outcome(of: interaction), interaction.response.map { String($0.body.data.count) } ?? "-",
                    InteractionSummary.timing(of: interaction),
                ] + (noted ? [notes[index]] : []))
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
    }
}

extension String {
    /// Without the spaces a padded last cell leaves at the end of the line.
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = Substring(self)
        while text.hasSuffix(" ") { text = text.dropLast() }
        return String(text)
    }
}
