import Cassette
import CassetteTools
import Foundation

/// `cassette view PATH…`: the cassettes as one self-contained HTML page (``CassetteViewPage``).
enum ViewCommand {
    static let usage = """
        USAGE: cassette view PATH... [-o OUT.html] [--open]

        Writes one self-contained HTML page (no network, no external files; it opens from file://)
        showing the cassettes (.json, .http or .har; a folder is searched as 'cassette lint' searches
        it, and every cassette found is on the one page, each under its file's name): the list of interactions (filter it by text and
        status class, sort it by any column), the detail of one (header fields, bodies shown by
        what they are: JSON folded by level, form fields and multipart parts as tables, text, images,
        binary as hex; redacted values marked; streamed pieces with their times; redirect hops
        linked), a timing waterfall, and each cassette's facts with what 'cassette lint' warns of.
        The page's fragment keeps its state: OUT.html#filter=users&status=4&sort=-duration&detail=3.
        A tape's misses (feed.misses.json, CASSETTE_WRITE_MISSES=1) are shown with their notes: each
        missed request next to its closest recordings and what differs.

        OPTIONS:
          -o, --output OUT   Where to write the page. Default: cassette-view.html.
          --open             Open it in the default browser afterwards (xdg-open or open, found on
                             PATH); where there is none, or it fails, a note says where the page is.

        EXIT STATUS: 0 written, 1 a cassette cannot be read (with the same located error as 'cassette
        lint') or the page cannot be written, 2 the command line was wrong.
        """

    static func run(_ arguments: [String], output: ConsoleOutput, environment: [String: String]) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(
            arguments, command: "view", usage: usage, options: ["-o": "output", "--output": "output"], flags: ["--open": "open"],
            output: output)
        {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        guard !list.operands.isEmpty else { return output.usageError("'cassette view' needs at least one cassette", command: "view") }
        var files: [String] = []
        for path in list.operands {
            switch CassetteFiles.find(at: path) {
            case .failure(let problem):
                output.errorLine("\(path): error: \(problem.message)")
                return ExitCode.failure
            case .success(let found):
                files += found
            }
        }
        var sources: [CassetteViewPage.Source] = []
        for file in files {
            switch CassetteFiles.read(file) {
            case .failure(let error):
                output.errorLine(error.description)
                return ExitCode.failure
            case .success(let document):
                sources.append(
                    CassetteViewPage.Source(file: file, format: "\(CassetteFormat(path: file))", reading: document))
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
        if list.flags.contains("open") { open(destination, output: output, environment: environment) }
        return ExitCode.success
    }

    /// Opens `file` in the default browser with the platform's opener (`open` on macOS, `xdg-open`
    /// elsewhere) found on `PATH`; where there is none, or it fails, a note says where the page is.
    /// The opener's own output is not shown: on a machine without a browser, `xdg-open` prints a
    /// line for each way it tried.
    private static func open(_ file: String, output: ConsoleOutput, environment: [String: String]) {
        let instead = "open \(file) in a browser"
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        output.errorLine("note: cannot open a page on this platform; \(instead)")
        #else
        #if os(macOS)
        let name = "open"
        #else
        let name = "xdg-open"
        #endif
        guard let opener = executable(named: name, searchPath: environment["PATH"] ?? "") else {
            output.errorLine("note: no \(name) on PATH to open the page; \(instead)")
            return
        }
        let process: SpawnedProcess
        do {
            process = try SpawnedProcess(executable: opener.path, [file], discardingOutput: true)
        } catch {
            output.errorLine("note: \(name) could not be started (\(error)); \(instead)")
            return
        }
        // An opener that hands the page to a browser exits at once; one still running after a few
        // seconds is the browser itself, left to run.
        let deadline = Date().addingTimeInterval(5)
        var status = process.exitStatusIfEnded()
        while status == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            status = process.exitStatusIfEnded()
        }
        if let status, status != 0 {
            output.errorLine("note: \(name) could not open the page (exit status \(status)); \(instead)")
        }
        #endif
    }

    /// The executable file `name` in the first folder of `searchPath` (`PATH`) that has one.
    static func executable(named name: String, searchPath: String) -> URL? {
        for folder in searchPath.split(separator: ":") where !folder.isEmpty {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }
}
