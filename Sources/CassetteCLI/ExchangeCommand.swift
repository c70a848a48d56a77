import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `cassette record` and `cassette play`: one request through the library's own pipeline
/// (a `URLSession` whose protocol is Cassette's), recorded into or replayed from a cassette.
///
/// `record` appends (`newEpisodes`: an already recorded request is replayed, not recorded twice)
/// unless `--mode`, `CASSETTE_RECORD_MODE` or `CI` says otherwise, in that order, as for a tape;
/// `play` never touches the network (`none`, whatever the environment says, `CASSETTE_LIVE`
/// included: the command's name is its mode) but for the requests the rules file ignores. `play`
/// replays with the latency of `--latency`, else `CASSETTE_LATENCY`.
struct ExchangeCommand {
    enum Kind: String {
        case record, play

        var mode: RecordMode { self == .record ? .newEpisodes : .none }
    }

    /// The modes `record --mode` takes: those that record.
    static let recordingModes: [RecordMode] = [.once, .newEpisodes, .all]

    static func usage(_ kind: Kind) -> String {
        let summary =
            kind == .record
            ? """
            Sends the request to the network through Cassette's recording pipeline, appends the
            interaction to the cassette (created if missing; a request it already holds is replayed,
            not recorded twice), and writes the response body to standard output.
            """
            : """
            Replays the request from the cassette through Cassette's playback pipeline, without
            touching the network, and writes the response body to standard output.
            """
        return """
            USAGE: cassette \(kind.rawValue) --cassette FILE [--folder DIR] [--method M] [--header "K: V"]... [--data BODY] [--include]\(kind == .record ? " [--mode MODE] [--save-connection-failures]" : " [--latency L] [--allow-repeated-replays] [--time recorded|shifted] [--verbose]") [--match-ignoring port|host]... [--rules FILE] URL

            \(summary)

            OPTIONS:
              --cassette FILE    The cassette file (.json); a relative path is in --folder.
              --folder DIR       Where a relative --cassette path is (default CASSETTE_FOLDER, else
                                 the current directory).
              -X, --method M     The request method; default GET, or POST with --data.
              -H, --header "K: V"
                                 A request header field; repeat for more.
              -d, --data BODY    The request body; @PATH reads it from a file.
              -i, --include      Print the status line and header fields before the body.
              --match-ignoring port|host
                                 Match a recorded request whatever its port (port), or its scheme,
                                 host and port (host): for a server on another port or host.
              --rules FILE       The project's rules (matching, redaction, latency, repeats; see
                                 TapeRules). Default: cassette-rules.json beside the cassette, when
                                 there is one. The options here win over it.\(kind == .record ? """

              --mode MODE        once, newEpisodes or all; default CASSETTE_RECORD_MODE, else none
                                 when CI is set, else newEpisodes. once: record only into a
                                 cassette that does not exist yet, else replay; newEpisodes: replay
                                 what the cassette holds, record the rest; all: record again and
                                 replace the cassette with this one interaction (when the answer is
                                 unchanged but for ignored changes (dates, ids, timing), the file is left byte-identical).
            """ : """

              --latency L        How the response is timed: recorded (as recorded), instant,
                                 scaled:FACTOR, fixed:FIRSTBYTE,DURATION, or speed:SPEED[,FIRSTBYTE].
                                 Default: CASSETTE_LATENCY, else instant.
              --allow-repeated-replays
                                 Answer with a recording that already answered (a tape's option of
                                 the same name). play never records, whatever the environment says.
            \(TimeOption.usage)
            """)

            REDACTION (as a tape's Redaction: what is removed before anything is saved or shown):
              --redact-header NAME      Also redact this header's value; repeat for more.
              --redact-query NAME       Also redact this query parameter.
              --redact-json-key NAME    Also redact this key anywhere in JSON bodies.
              --redact-json-path PATH   Also redact this place in JSON bodies: user.token, items[*].secret.
              --redact-field NAME       Also redact this form field.
              --no-default-redaction    Apply only the rules given here, not the default credential rules.
              A request is redacted the same way before it is matched, so give 'play' the rules
              'record' had.\(kind == .record ? """

              --save-connection-failures
                                 Save a request that cannot reach its server (refused, unknown
                                 host, offline) as a recorded error. Without it such a request
                                 fails as live but is not saved, with a warning on standard error.
            """ : "")

            \(CommandEnvironment.help)

            SIGINT or SIGTERM before the answer is complete cancels the request (nothing is recorded)
            and exits 1, saying so on standard error.

            EXIT STATUS: 0 success; 1 no recorded interaction matches, the cassette cannot be read or
            saved, or a signal stopped the command (the reason on standard error); 2 the command line
            was wrong; 3 the answer is a transport error (its URLError code and name on standard error).
            """
    }

    let kind: Kind
    var cassette: String?
    var method: String?
    var headers: [(String, String)] = []
    var data: Data?
    var include = false
    var savesConnectionFailures = false
    var mode: RecordMode?
    var latency: Latency?
    var matchIgnoring: [String] = []
    var rulesFile: String?
    var allowsRepeatedReplays = false
    var timeOption = TimeOption()
    var verbose = false
    var folder: String?
    var noDefaultRedaction = false
    var redactionRules: [(option: String, value: String)] = []
    var url: String?

    static func run(_ kind: Kind, _ arguments: [String], output: ConsoleOutput, environment: CommandEnvironment) -> Int32 {
        var command = ExchangeCommand(kind: kind)
        if let status = command.parse(arguments, output: output) { return status }
        return command.execute(output: output, environment: environment)
    }

    /// Reads the options; returns an exit status when the command must stop here.
    private mutating func parse(_ arguments: [String], output: ConsoleOutput) -> Int32? {
        let name = "cassette \(kind.rawValue)"
        func usageError(_ message: String) -> Int32 {
            output.errorLine("error: \(message). Run '\(name) --help'.")
            return ExitCode.usage
        }
        var index = 0
        func value(for option: String) -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help":
                output.line(Self.usage(kind))
                return ExitCode.success
            case "--cassette":
                guard let file = value(for: argument) else { return usageError("--cassette needs a file") }
                cassette = file
            case "-X", "--method":
                guard let method = value(for: argument), !method.isEmpty else { return usageError("\(argument) needs a method") }
                self.method = method
            case "-H", "--header":
                guard let header = value(for: argument) else { return usageError("\(argument) needs \"Name: value\"") }
                guard let field = ArgumentList.headerField(header), !field.name.isEmpty else {
                    return usageError("\"\(header)\" is not a header field; write it as \"Name: value\"")
                }
                headers.append(field)
            case "-d", "--data":
                guard let body = value(for: argument) else { return usageError("\(argument) needs a body") }
                if body.hasPrefix("@") {
                    let path = String(body.dropFirst())
                    guard let contents = FileManager.default.contents(atPath: path) else {
                        output.errorLine("error: cannot read the body file \(path)")
                        return ExitCode.failure
                    }
                    data = contents
                } else {
                    data = Data(body.utf8)
                }
            case "-i", "--include":
                include = true
            case "--save-connection-failures" where kind == .record:
                savesConnectionFailures = true
            case "--mode" where kind == .record:
                let modes = Self.recordingModes.map(\.rawValue).joined(separator: ", ")
                guard let text = value(for: argument) else { return usageError("--mode needs one of \(modes)") }
                guard let mode = RecordMode(rawValue: text), Self.recordingModes.contains(mode) else {
                    return usageError("--mode takes \(modes), not '\(text)'")
                }
                self.mode = mode
            case "--latency" where kind == .play:
                guard let text = value(for: argument) else { return usageError("--latency needs \(Latency.textForms)") }
                guard let latency = Latency(parsing: text) else { return usageError("--latency takes \(Latency.textForms), not '\(text)'") }
                self.latency = latency
            case "--allow-repeated-replays" where kind == .play, "--allow-playback-repeats" where kind == .play:
                allowsRepeatedReplays = true
            case "--folder":
                guard let folder = value(for: argument), !folder.isEmpty else { return usageError("--folder needs a folder") }
                self.folder = folder
            case "--match-ignoring":
                let rule = value(for: argument)
                guard let rule, MatchingOption.apply(rule, to: .default) != nil else { return usageError(MatchingOption.problem(rule)) }
                matchIgnoring.append(rule)
            case "--rules":
                guard let file = value(for: argument), !file.isEmpty else { return usageError("--rules needs a file") }
                rulesFile = file
            case "--redact-header", "--redact-query", "--redact-json-key", "--redact-json-path", "--redact-field":
                guard let rule = value(for: argument), !rule.isEmpty else { return usageError("\(argument) needs a name") }
                redactionRules.append((argument, rule))
            case "--no-default-redaction":
                noDefaultRedaction = true
            case "--verbose" where kind == .play:
                verbose = true
            case "--time" where kind == .play, "--time-json-path" where kind == .play:
                if let problem = timeOption.read(argument, value: { value(for: argument) }), !problem.isEmpty {
                    return usageError(problem)
                }
            default:
                if argument.hasPrefix("-"), argument != "-" {
                    return usageError(UsageProblem.unknownOption(argument, usage: Self.usage(kind), command: name))
                }
                guard url == nil else { return usageError("one URL only; found '\(url ?? "")' and '\(argument)'") }
                url = argument
            }
            index += 1
        }
        guard cassette != nil else { return usageError("'\(name)' needs --cassette FILE") }
        guard let url else { return usageError("'\(name)' needs a URL") }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return usageError("'\(url)' is not an http or https URL")
        }
        return nil
    }

    private func execute(output: ConsoleOutput, environment: CommandEnvironment) -> Int32 {
        guard let cassette, let url = url.flatMap(URL.init(string:)) else { return ExitCode.usage }
        var request = URLRequest(url: url)
        request.httpMethod = method ?? (data == nil ? "GET" : "POST")
        for (name, value) in headers { request.addValue(value, forHTTPHeaderField: name) }
        request.httpBody = data

        let tape: Tape
        let fileExisted: Bool
        do {
            let file = environment.file(cassette, folder: folder)
            fileExisted = FileManager.default.fileExists(atPath: file.path)
            let rules = try RulesOption.rules(given: rulesFile, folder: file.deletingLastPathComponent())
            var options = rules.applying(to: Tape.Options(savesConnectionFailures: savesConnectionFailures))
            options.redaction = redaction(over: noDefaultRedaction ? .none : rules.redaction ?? .default)
            if allowsRepeatedReplays { options.allowsRepeatedReplays = true }
            if let latency { options.latency = latency }
            options.time = timeOption.time
            options.adviceReader = .command(kind.rawValue)
            tape = try Tape(
                file: file, mode: kind == .play ? .none : try environment.mode(given: mode, fallback: kind.mode),
                matching: MatchingOption.apply(matchIgnoring, to: rules.matching), options: options,
                environment: kind == .play ? environment.forTape.filter { $0.key != LiveSwitch.environmentVariable } : environment.forTape)
        } catch {
            output.report(error)
            return ExitCode.failure
        }
        // A signal cancels the exchange; the tape is still ejected (what it holds is saved).
        let stoppedBy = Locked<String?>(nil)
        Termination.onSignal { signal in
            stoppedBy.withLock { $0 = signal }
            tape.cancelRequestsInFlight()
        }
        let result = Self.send(request, on: tape.session)
        let report: Tape.Report
        do {
            report = try tape.eject()
        } catch {
            output.errorLine("error: \(error)")
            return ExitCode.failure
        }
        if let signal = stoppedBy.withLock({ $0 }), result.error?.code == .cancelled {
            output.errorLine(
                "error: stopped by \(signal) before the answer was complete; "
                    + (kind == .record
                        ? (fileExisted
                            ? "nothing was recorded, the cassette is as it was" : "nothing was recorded, and no cassette was created")
                        : "nothing was printed"))
            return ExitCode.failure
        }
        if verbose {
            for moved in report.movedTimes { output.errorLine("moved: " + moved) }
            for warning in report.warnings { output.errorLine("warning: " + warning) }
        }
        if let unmatched = report.unmatched.first {
            output.errorLine("error: " + unmatched.description)
            return ExitCode.failure
        }
        if let error = result.error {
            let name = Interaction.TransportError(error).code.name ?? "unknown"
            output.errorLine("error: URLError \(error.code.rawValue) (\(name)): \(error.localizedDescription)")
            return ExitCode.couldNotCompare
        }
        guard let response = result.response else {
            output.errorLine("error: no response")
            return ExitCode.failure
        }
        if include {
            var head = "HTTP/1.1 \(response.statusCode) \(ReasonPhrase.of(response.statusCode))\r\n"
            let fields = response.allHeaderFields.map { ("\($0.key)", "\($0.value)") }.sorted { $0.0.lowercased() < $1.0.lowercased() }
            for (name, value) in fields { head += "\(name): \(value)\r\n" }
            output.bytes(Data((head + "\r\n").utf8))
        }
        output.bytes(result.body)
        return ExitCode.success
    }

    /// `base` with the rules of the `--redact-…` options added.
    private func redaction(over base: Redaction) -> Redaction {
        var redaction = base
        for (option, rule) in redactionRules {
            switch option {
            case "--redact-header": redaction.headers.append(rule)
            case "--redact-query": redaction.queryParameters.append(rule)
            case "--redact-json-key": redaction.jsonKeys.append(rule)
            case "--redact-json-path": redaction.jsonPaths.append(rule)
            default: redaction.formFields.append(rule)
            }
        }
        return redaction
    }

    /// Sends `request` and waits for the whole answer.
    private static func send(_ request: URLRequest, on session: URLSession) -> (response: HTTPURLResponse?, body: Data, error: URLError?) {
        let done = DispatchSemaphore(value: 0)
        let result = Locked((response: HTTPURLResponse?.none, body: Data(), error: URLError?.none))
        session.dataTask(with: request) { data, response, error in
            result.withLock { $0 = (response as? HTTPURLResponse, data ?? Data(), error.map(URLError.init(converting:))) }
            done.signal()
        }.resume()
        done.wait()
        return result.current
    }
}
