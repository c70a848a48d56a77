import Cassette
import Foundation

/// The `cassette` command: reads the subcommand and hands the rest of the arguments to it.
enum CassetteTool {
    static let usage = """
        USAGE: cassette <command> [options] [arguments]

        Cassette records the HTTP traffic of code under test and replays it offline.
        This tool works with cassette files.

        COMMANDS:
          lint            Check cassettes (files, or folders of them) and report every problem.
          show            One row per interaction: method, URL, status or error, body size, timing.
          view            One self-contained HTML page: the request list, each interaction's detail
                          and a timing waterfall.
          convert         Rewrite a cassette in another format (.json, .http, .har), losslessly.
          fault           Turn one interaction into a fault (a 503, a timeout, a connection lost
                          part-way, a stream cut after N events), keeping the rest of the file.
          check --live    Send the recorded requests again and report how the live API drifted.
          diff            What changed between two cassettes (or since a commit): interactions
                          added, removed and changed, JSON bodies path by path.
          report          What the last test run did with the cassettes (from the suite ledger):
                          orphans, unused interactions, stale recordings, misses.
          prune           Remove orphaned cassettes and unused interactions a whole-suite run proves.
          redact          Remove secrets from recorded cassettes, in place.
          check-secrets   Find secret-shaped values (tokens, keys, passwords); exit 1 when any.
          record          Send a request live and append it to a cassette; print the body.
          play            Replay a request from a cassette, offline; print the body.
          serve           Serve a cassette over HTTP (and record through it as a reverse proxy),
                          for clients outside URLSession: apps under UI test, curl, other languages.
          help [COMMAND]  Show this help, or a command's help.

        Run 'cassette COMMAND --help' (or 'cassette help COMMAND') for a command's arguments and options.

        A cassette's format follows its extension: .json (Cassette's JSON, the default), .http
        (HTTP messages) or .har (HAR 1.2).

        OPTIONS:
          -h, --help      Show this help.
          --version       Show the version.

        \(ExitCode.table)
        """

    /// The commands, as `cassette --help` lists them.
    static let commands = [
        "record", "play", "lint", "show", "view", "diff", "convert", "fault", "redact", "check-secrets", "check", "report",
        "prune", "serve",
    ]

    /// What an unknown command gets: the closest command, when one is close.
    static func unknownCommand(_ command: String) -> String {
        let guess = NearestWord.closest(to: command, in: commands).map { " (did you mean '\($0)'?)" } ?? ""
        return "error: unknown command '\(command)'\(guess). Run 'cassette --help' for the list of commands."
    }

    /// Runs the tool with `arguments` (without the program name) and returns the exit status;
    /// `serve`, `record` and `play` read `environment` as a tape does (``CommandEnvironment``).
    static func run(
        _ arguments: [String], output: ConsoleOutput, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Int32 {
        let environment = CommandEnvironment(variables: environment)
        guard let command = arguments.first else {
            output.errorLine(usage)
            return ExitCode.usage
        }
        if let refusal = PluginAccess.refusal(of: arguments, environment: environment.variables) {
            output.errorLine(refusal)
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "-h", "--help":
            output.line(usage)
            return ExitCode.success
        case "help":
            switch rest.first {
            case nil: output.line(usage)
            case "lint": output.line(LintCommand.usage)
            case "show": output.line(ShowCommand.usage)
            case "convert": output.line(ConvertCommand.usage)
            case "fault": output.line(FaultCommand.usage)
            case "diff": output.line(DiffCommand.usage)
            case "check": output.line(CheckCommand.usage)
            case "view": output.line(ViewCommand.usage)
            case "report": output.line(ReportCommand.usage)
            case "prune": output.line(PruneCommand.usage)
            case "redact": output.line(RedactCommand.usage)
            case "check-secrets": output.line(CheckSecretsCommand.usage)
            case "record": output.line(ExchangeCommand.usage(.record))
            case "play": output.line(ExchangeCommand.usage(.play))
            case "serve": output.line(ServeCommand.usage)
            case let other?:
                output.errorLine(unknownCommand(other))
                return ExitCode.usage
            }
            return ExitCode.success
        case "--version":
            output.line(CassetteVersion.current)
            return ExitCode.success
        case "lint":
            return LintCommand.run(rest, output: output)
        case "show":
            return ShowCommand.run(rest, output: output)
        case "convert":
            return ConvertCommand.run(rest, output: output)
        case "fault":
            return FaultCommand.run(rest, output: output, environment: environment)
        case "diff":
            return DiffCommand.run(rest, output: output)
        case "check":
            return CheckCommand.run(rest, output: output, environment: environment.variables)
        case "view":
            return ViewCommand.run(rest, output: output, environment: environment.variables)
        case "report":
            return ReportCommand.run(rest, output: output, environment: environment.variables)
        case "prune":
            return PruneCommand.run(rest, output: output, environment: environment.variables)
        case "redact":
            return RedactCommand.run(rest, output: output)
        case "check-secrets":
            return CheckSecretsCommand.run(rest, output: output)
        case "record":
            return ExchangeCommand.run(.record, rest, output: output, environment: environment)
        case "play":
            return ExchangeCommand.run(.play, rest, output: output, environment: environment)
        case "serve":
            return ServeCommand.run(rest, output: output, environment: environment)
        default:
            output.errorLine(unknownCommand(command))
            return ExitCode.usage
        }
    }
}
