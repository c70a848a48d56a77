import Cassette
import CassetteServer
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `cassette serve`: an HTTP/1.1 server answering from a cassette (``TapeServer``), for clients
/// outside a test's `URLSession`: a launched app, curl, another language's client.
struct ServeCommand {
    static let usage = """
        USAGE: cassette serve (--cassette FILE | --folder DIR [--cassette NAME]) [--host H] [--port N] [--upstream URL]
                              [--mode M] [--latency L] [--allow-repeated-replays] [--match-ignoring port|host]... [--rules FILE]
                              [--unmatched-status N] [--max-connections N] [--strict] [--time recorded|shifted] [--verbose]
                              [--admin-token TOKEN] [--admin-prefix PATH] [--no-admin]

        Serves the cassette over HTTP/1.1 with the library's matching, recorded order, latency and
        faults. Prints "listening on http://ADDRESS:PORT" as its first line and serves until SIGINT or
        SIGTERM — taken at any moment after the process starts, even before that line — then stops
        accepting, cuts the exchanges still open (not recorded), saves what it recorded, prints its
        report to standard error ("stopped by SIGTERM; 2 replayed, 0 recorded, 0 unmatched") and exits.

        OPTIONS:
          --cassette FILE    The cassette (.json, .http or .har). Relative: in CASSETTE_FOLDER when
                             set, else in the current directory. With --folder, the first to load.
                             Given more than once: the first is served (and recorded into), the
                             others answer, in order, what it has no recording for (replay only).
          --folder DIR       Serve the cassettes of DIR one at a time, for a whole UI-test run: each
                             test loads its own (POST /__cassette/load, below). Without --cassette,
                             requests get 503 until the first load. Default, when --cassette is not
                             given either: CASSETTE_FOLDER.
          --host H           The address to listen on: IPv4 or IPv6 (default 127.0.0.1; ::1), 0.0.0.0
                             or :: for every interface, or a host name resolved once (localhost).
                             The first line names the address bound, as numbers.
          --port N           The port (default 0: a free one, printed on the first line).
          --upstream URL     Where requests go: /path is URL/path. In a recording mode, what the
                             cassette cannot answer is forwarded there, answered live and recorded
                             (a recording reverse proxy). WebSocket upgrades go to the same origin
                             (ws:// for http://); ws:// and wss:// URLs work too. wss:// cannot be
                             recorded (the server has no TLS client): record from a ws:// server.
                             Without it, requests are matched ignoring scheme, host and port.
                             A client may also use the server as its HTTP proxy for http:// URLs:
                             absolute-form requests (curl -x) and CONNECT tunnels (AsyncHTTPClient,
                             curl --proxytunnel) keep their own URL. A tunnel that would carry TLS
                             is refused with 501 and why.
          --mode M           none, once, newEpisodes or all, as a tape's record mode. Default:
                             CASSETTE_RECORD_MODE, else none when CI is set, else once. once records
                             only when the cassette does not exist yet (needs --upstream).
          --latency L        recorded, instant, scaled:FACTOR, fixed:FIRSTBYTE,DURATION or
                             speed:SPEED[,FIRSTBYTE]. Default: CASSETTE_LATENCY, else instant.
          --allow-repeated-replays
                             When every recording matching a request has answered, answer with the
                             last of them again (a UI test reloading a screen) instead of a miss.
                             (--allow-playback-repeats is the same.)
        \(TimeOption.usage)
          --match-ignoring port|host
                             Match a recorded request whatever its port, or its scheme, host and port.
          --rules FILE       The project's rules (matching, redaction, latency, repeats; see
                             TapeRules). Default: cassette-rules.json in --folder, or beside the
                             cassette, when there is one. The options here win over it.
          --unmatched-status N
                             The status of a request the cassette cannot answer (default 500); its
                             body is the miss report, and it carries "X-Cassette-Unmatched: true".
          --max-connections N
                             Connections served at once (default 256); more get 503.
          --strict           Exit 1 when any request found no match.
          --admin-token TOKEN
                             Every admin request must carry it in X-Cassette-Admin-Token, and may
                             then come from anywhere. Without it, only clients on this machine.
          --admin-prefix PATH
                             Where the admin interface is (default /__cassette/).
          --no-admin         No admin interface: every path is matched against the cassette.

        ADMIN INTERFACE (never matched nor recorded; 403 and no change for a client not admitted):
          POST /__cassette/load   {"cassette": "NAME"}: eject the loaded cassette (saved) and load
                                  NAME from --folder (with or without its extension; never outside
                                  the folder). Answers {"loaded": FILE, "previous": REPORT}.
                                  {"cassettes": ["NAME", "BENEATH", ...]}: the first is loaded, the
                                  others answer, in order, what it has no recording for.
          POST /__cassette/eject  Eject the loaded cassette (saved); answers its report.
          GET  /__cassette/report What the loaded cassette did so far: replayed, recorded, unmatched
                                  (with the miss reports), unusedInteractions.

        On the wire: a recorded timedOut is no answer until the client gives up; networkConnectionLost
        closes the connection mid-body; cannotConnectToHost and other connection failures reset it.
        Bodies go out decoded (a recorded Content-Encoding is left out).

        \(CommandEnvironment.help)

        EXIT STATUS: 0 after a signal; 1 the cassette cannot be read or saved, the server cannot
        start, or (--strict) a request found no match; 2 the command line was wrong.
        """

    var cassette: String? { cassettes.first }
    /// Every `--cassette`, in order: the first is served, the others lie beneath it.
    var cassettes: [String] = []
    var host = "127.0.0.1"
    var port = 0
    var upstream: URL?
    var mode: RecordMode?
    var latency: Latency?
    var matchIgnoring: [String] = []
    var rulesFile: String?
    var unmatchedStatus = 500
    var maxConnections = 256
    var strict = false
    var allowsRepeatedReplays = false
    var folder: String?
    var admin = true
    var adminPrefix = "/__cassette/"
    var adminToken: String?
    var timeOption = TimeOption()
    var verbose = false

    static func run(_ arguments: [String], output: ConsoleOutput, environment: CommandEnvironment) -> Int32 {
        var command = ServeCommand()
        if let status = command.parse(arguments, output: output) { return status }
        let served = ReleaseWatch()
        let status = command.execute(output: output, environment: environment, watching: served)
        // The process exits next: first let the server's last threads let go of it, so that the
        // cassette is freed rather than still held (a leak to LeakSanitizer) at exit.
        served.waitUntilReleased(timeout: 2)
        return status
    }

    /// Holds the server weakly, to see it freed.
    final class ReleaseWatch: @unchecked Sendable {
        weak var server: TapeServer?

        func waitUntilReleased(timeout: TimeInterval) {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while server != nil, Date() < deadline { usleep(5_000) }
        }
    }

    private mutating func parse(_ arguments: [String], output: ConsoleOutput) -> Int32? {
        func usageError(_ message: String) -> Int32 {
            output.errorLine("error: \(message). Run 'cassette serve --help'.")
            return ExitCode.usage
        }
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        func number(_ option: String, in range: ClosedRange<Int>) -> Int? {
            guard let text = value(), let number = Int(text), range.contains(number) else { return nil }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help":
                output.line(Self.usage)
                return ExitCode.success
            case "--cassette":
                guard let file = value() else { return usageError("--cassette needs a file") }
                cassettes.append(file)
            case "--host":
                guard let host = value(), !host.isEmpty else { return usageError("--host needs an address") }
                self.host = host
            case "--port":
                guard let port = number(argument, in: 0...65_535) else { return usageError("--port needs a number from 0 to 65535") }
                self.port = port
            case "--upstream":
                guard let text = value(), let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                    ["http", "https", "ws", "wss"].contains(scheme), url.host != nil
                else {
                    return usageError("--upstream needs an http, https, ws or wss URL, such as https://api.example.com")
                }
                upstream = url
            case "--mode":
                let modes = RecordMode.allCases.map(\.rawValue).joined(separator: ", ")
                guard let text = value(), let mode = RecordMode(rawValue: text) else { return usageError("--mode takes \(modes)") }
                self.mode = mode
            case "--latency":
                guard let text = value(), let latency = Latency(parsing: text) else {
                    return usageError("--latency takes \(Latency.textForms)")
                }
                self.latency = latency
            case "--match-ignoring":
                let rule = value()
                guard let rule, MatchingOption.apply(rule, to: .default) != nil else { return usageError(MatchingOption.problem(rule)) }
                matchIgnoring.append(rule)
            case "--rules":
                guard let file = value(), !file.isEmpty else { return usageError("--rules needs a file") }
                rulesFile = file
            case "--unmatched-status":
                guard let status = number(argument, in: 500...599) else {
                    return usageError("--unmatched-status needs a status from 500 to 599")
                }
                unmatchedStatus = status
            case "--max-connections":
                guard let count = number(argument, in: 1...10_000) else {
                    return usageError("--max-connections needs a number from 1 to 10000")
                }
                maxConnections = count
            case "--strict":
                strict = true
            case "--allow-repeated-replays", "--allow-playback-repeats":
                allowsRepeatedReplays = true
            case "--folder":
                guard let folder = value(), !folder.isEmpty else { return usageError("--folder needs a folder") }
                self.folder = folder
            case "--no-admin":
                admin = false
            case "--admin-prefix":
                guard let prefix = value(), prefix.hasPrefix("/"), prefix.count > 1 else {
                    return usageError("--admin-prefix needs a path such as /__cassette/")
                }
                adminPrefix = prefix
            case "--time", "--time-json-path":
                if let problem = timeOption.read(argument, value: value), !problem.isEmpty { return usageError(problem) }
            case "--verbose":
                verbose = true
            case "--admin-token":
                guard let token = value(), !token.isEmpty else { return usageError("--admin-token needs a token") }
                adminToken = token
            default:
                guard argument.hasPrefix("-") else { return usageError("unknown argument '\(argument)' for 'cassette serve'") }
                return usageError(UsageProblem.unknownOption(argument, usage: Self.usage, command: "cassette serve"))
            }
            index += 1
        }
        return nil
    }

    private func execute(output: ConsoleOutput, environment: CommandEnvironment, watching watch: ReleaseWatch) -> Int32 {
        let misses = Locked(0)
        let server: TapeServer
        do {
            let shelfFolder = folder ?? (cassette == nil ? environment.folder : nil)
            let rules = try RulesOption.rules(
                given: rulesFile,
                folder: shelfFolder.map { URL(fileURLWithPath: $0) }
                    ?? environment.file(cassette ?? ".", folder: nil).deletingLastPathComponent())
            var options = rules.applying(to: Tape.Options())
            if allowsRepeatedReplays { options.allowsRepeatedReplays = true }
            if let latency { options.latency = latency }
            options.time = timeOption.time
            options.adviceReader = .command("serve")
            // A server stopped before any client came is no test that bypassed its session.
            options.expectsRequests = false
            let recordMode = try environment.mode(given: mode, fallback: .once)
            let matching = MatchingOption.apply(matchIgnoring, to: rules.matching)
            let tapeMatching = upstream == nil ? matching.ignoringHost() : matching
            let serving = TapeServer.Options(
                host: host, port: port, upstream: upstream, unmatchedStatus: unmatchedStatus, maxConnections: maxConnections,
                onUnmatched: { miss in
                    misses.withLock { $0 += 1 }
                    // As it happens; the server runs in its own process.
                    FileHandle.standardError.write(Data(("error: " + miss.description + "\n").utf8))
                },
                admin: admin ? TapeServer.Admin(prefix: adminPrefix, token: adminToken) : nil)
            if let shelf = shelfFolder {
                // A server for a whole run: cassettes of the folder, loaded by name.
                server = try TapeServer(
                    folder: shelf, mode: recordMode, matching: tapeMatching, tapeOptions: options, environment: environment.forTape,
                    options: serving)
                if let cassette { try server.load(cassette, beneath: Array(cassettes.dropFirst())) }
            } else if let cassette {
                options.underlyingCassettes = cassettes.dropFirst().map { environment.file($0, folder: nil) }
                let tape = try Tape(
                    file: environment.file(cassette, folder: nil), mode: recordMode, matching: tapeMatching, options: options,
                    environment: environment.forTape)
                server = try tape.serve(serving)
            } else {
                return output.usageError("'cassette serve' needs --cassette FILE or --folder DIR", command: "serve")
            }
        } catch {
            output.report(error)
            return ExitCode.failure
        }
        watch.server = server
        let everyInterface = ["0.0.0.0", "::", "[::]"].contains(host)
        output.line("listening on \(server.baseURL.absoluteString)" + (everyInterface ? " (every interface, \(host))" : ""))
        // Held since the process started (main.swift): a signal sent before this line was
        // printed is already pending, and wait() returns at once.
        let signal = Termination.wait()

        let report: Tape.Report?
        do {
            report = try server.eject()
            server.stop()
        } catch {
            server.stop()
            output.errorLine("error: \(error)")
            return ExitCode.failure
        }
        if verbose { for moved in report?.movedTimes ?? [] { output.errorLine("moved: " + moved) } }
        for warning in report?.warnings ?? [] { output.errorLine("warning: " + warning) }
        if let report {
            output.errorLine(
                "cassette serve: stopped by \(signal); \(report.replayed) replayed, \(report.recorded) recorded, \(report.unmatched.count) unmatched"
                    + (report.saved ? "; saved \(ShownPath.of(report.file))" : ""))
        } else {
            output.errorLine("cassette serve: stopped by \(signal); no cassette loaded")
        }
        return strict && misses.withLock({ $0 }) > 0 ? ExitCode.failure : ExitCode.success
    }
}
