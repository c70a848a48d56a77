import Cassette
import Foundation

/// `cassette show PATH…`: one row per interaction, to see what cassettes hold at a glance.
enum ShowCommand {
    static let usage = """
        USAGE: cassette show PATH...

        Prints one row per interaction of each cassette (.json, .http or .har); a folder is searched
        as 'cassette lint' searches it. Each cassette is a section: its rows, then
        'N interactions in FILE (FORMAT)' and its metadata when it has some ('metadata: {JSON}'),
        a blank line between sections. The columns:

          #     its index, as in the paths of error messages (interactions[3])
          METHOD, URL
          STATUS  the response status, the transport error, or both ("200, then networkConnectionLost")
          BODY    the size of the response body in bytes
          TIMING  first byte / total, in milliseconds, as recorded ("-" when not recorded); a latency
                  written in the cassette, which replaces it on replay, first:
                  "latency fixed:2,2.5 (recorded 5 / 10 ms)"

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

    /// The rows, header first, columns padded to line up.
    static func table(_ document: CassetteDocument) -> [String] {
        var rows = [["#", "METHOD", "URL", "STATUS", "BODY", "TIMING"]]
        for (index, interaction) in document.interactions.enumerated() {
            rows.append([
                String(index), interaction.request.method, interaction.request.url, outcome(of: interaction),
                interaction.response.map { String($0.body.data.count) } ?? "-",
                timing(of: interaction),
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
    }

    /// The recorded timing, after the latency that replaces it on replay when the cassette sets one.
    private static func timing(of interaction: Interaction) -> String {
        let recorded = interaction.timing.map { "\(milliseconds($0.firstByte)) / \(milliseconds($0.duration)) ms" }
        guard let latency = interaction.latency else { return recorded ?? "-" }
        return "latency \(latency)" + (recorded.map { " (recorded \($0))" } ?? "")
    }

    private static func outcome(of interaction: Interaction) -> String {
        let error = interaction.error.map { error in
            (error.code.name ?? String(error.code.rawValue)) + (error.afterBytes.map { " after \($0) bytes" } ?? "")
        }
        switch (interaction.response, error) {
        case (let response?, let error?): return "\(response.status), then \(error)"
        case (let response?, nil): return String(response.status)
        case (nil, let error?): return error
        case (nil, nil): return "-"
        }
    }

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(Int((seconds * 1000).rounded()))
    }
}
