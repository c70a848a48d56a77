import Cassette
import Foundation

/// `cassette view FILE…`: the cassettes as one self-contained HTML page (``CassetteViewPage``).
enum ViewCommand {
    static let usage = """
        USAGE: cassette view FILE... [-o OUT.html] [--open]

        Writes one self-contained HTML page (no network, no external files; it opens from file://)
        showing the cassettes (.json, .http or .har): the list of interactions (filter it by text and
        status class, sort it by any column), the detail of one (header fields, bodies shown by
        what they are: JSON folded by level, form fields and multipart parts as tables, text, images,
        binary as hex; redacted values marked; streamed pieces with their times; redirect hops
        linked), a timing waterfall, and each cassette's facts with what 'cassette lint' warns of.
        The page's fragment keeps its state: OUT.html#filter=users&status=4&sort=-duration&detail=3.

        OPTIONS:
          -o, --output OUT   Where to write the page. Default: cassette-view.html.
          --open             Open it in the default browser afterwards (xdg-open or open).

        EXIT STATUS: 0 written, 1 a cassette cannot be read (with the same located error as 'cassette
        lint') or the page cannot be written, 2 the command line was wrong.
        """

    static func run(_ arguments: [String], output: ConsoleOutput) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(
            arguments, command: "view", usage: usage, options: ["-o": "output", "--output": "output"], flags: ["--open": "open"],
            output: output)
        {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        guard !list.operands.isEmpty else { return output.usageError("'cassette view' needs at least one cassette", command: "view") }
        var sources: [CassetteViewPage.Source] = []
        for file in list.operands {
            switch CassetteFiles.read(file) {
            case .failure(let error):
                output.errorLine(error.description)
                return ExitCode.failure
            case .success(let document):
                sources.append(
                    CassetteViewPage.Source(
                        file: file, format: "\(CassetteFormat(path: file))", document: document, warnings: document.warnings()))
            }
        }
        let destination = list.values["output"]?.last ?? "cassette-view.html"
        let page = CassetteViewPage(sources: sources).html()
        do {
            try Data(page.utf8).write(to: URL(fileURLWithPath: destination), options: .atomic)
        } catch {
            output.errorLine("error: cannot write \(destination): \(error.localizedDescription)")
            return ExitCode.failure
        }
        let count = sources.reduce(0) { $0 + $1.document.interactions.count }
        output.line("wrote \(destination) (\(count) interaction\(count == 1 ? "" : "s"))")
        if list.flags.contains("open") { open(destination, output: output) }
        return ExitCode.success
    }

    /// Opens `file` in the default browser, if this machine has a way to.
    private static func open(_ file: String, output: ConsoleOutput) {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        output.errorLine("warning: cannot open \(file) on this platform")
        #else
        let opener = Process()
        opener.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        #if os(macOS)
        opener.arguments = ["open", file]
        #else
        opener.arguments = ["xdg-open", file]
        #endif
        do {
            try opener.run()
        } catch {
            output.errorLine("warning: could not open \(file): \(error.localizedDescription)")
        }
        #endif
    }
}
