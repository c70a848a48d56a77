import Cassette
import CassetteTools
import Foundation

/// `cassette check --live PATH…`: drift between cassettes and the live API (``LiveCheck``).
enum CheckCommand {
    static let usage = """
        USAGE: cassette check --live [--json] [--dry-run] [--update] [--all-methods] [--values] [--secret NAME=ENV_VAR]... PATH...

        Sends each recorded request of the cassettes (files, or folders of them; .json, .http, .har)
        to the live server again and compares the live answer with the recorded one: the status; the
        header fields that change what a client does (Content-Type, Location, Cache-Control,
        Content-Encoding, the names Set-Cookie sets); the body — JSON by structure (a member added
        or removed, a type changed, the shape of array elements), other bodies by size. What
        re-recording ignores (dates, request ids) and redacted values are never drift. Redirects
        are not followed: a recording is one hop.

        OPTIONS:
          --live             Send the requests (the only check there is; required).
          --dry-run          Print what would be sent and what would be skipped; send nothing.
          --all-methods      Send every method. Default: only GET, HEAD and OPTIONS.
          --values           Compare JSON values and body bytes too, not only structure and size.
          --secret NAME=ENV_VAR
                             Put the value of the environment variable ENV_VAR where the recorded
                             request holds the placeholder NAME ([REDACTED-1], <API_TOKEN>). A request
                             that still holds a redacted value is skipped. Values are never printed.
          --update           Record the drifted interactions again, each in place in its cassette:
                             its response, timing and recordedAt change; its request and every
                             other interaction keep their bytes. The redaction rules of
                             cassette-rules.json beside the cassette apply, and --secret values are
                             written back as their placeholders. Exit 0 once all are rewritten.
          --json             Print the findings as JSON: [{"cassette", "index", "request", "outcome",
                             "changes" | "reason"}].

        EXIT STATUS: 0 no drift (or, with --update, every drifted interaction recorded again), 1
        drift, 2 the command line was wrong, 3 a live server could not be reached (and nothing
        drifted) or a cassette cannot be read.
        """

    static func run(_ arguments: [String], output: ConsoleOutput, environment: [String: String]) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(
            arguments, command: "check", usage: usage, options: ["--secret": "secret"],
            flags: [
                "--live": "live", "--json": "json", "--dry-run": "dry", "--all-methods": "all", "--values": "values", "--update": "update",
            ],
            output: output)
        {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        guard list.flags.contains("live") else { return output.usageError("'cassette check' needs --live", command: "check") }
        guard !list.operands.isEmpty else { return output.usageError("'cassette check' needs a cassette or a folder", command: "check") }
        var secrets: [String: String] = [:]
        for pair in list.values["secret"] ?? [] {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                return output.usageError("--secret takes NAME=ENV_VAR, not '\(pair)'", command: "check")
            }
            guard let value = environment[parts[1]] else {
                return output.usageError("--secret \(parts[0]): the environment has no \(parts[1])", command: "check")
            }
            secrets[parts[0]] = value
        }
        var files: [URL] = []
        for path in list.operands {
            switch CassetteFiles.find(at: path) {
            case .success(let found): files += found.map { URL(fileURLWithPath: $0) }
            case .failure(let problem):
                output.errorLine("\(path): error: \(problem.message)")
                return ExitCode.couldNotCompare
            }
        }
        let options = LiveCheck.Options(allMethods: list.flags.contains("all"), values: list.flags.contains("values"), secrets: secrets)
        let findings: [LiveCheck.Finding]
        do {
            if list.flags.contains("dry") {
                findings = try LiveCheck.plan(files, options: options)
            } else {
                findings = try LiveCheck.runBlocking(files, options: options)
            }
        } catch {
            output.report(error)
            return ExitCode.couldNotCompare
        }
        if list.flags.contains("json") {
            output.line(json(findings))
        } else {
            for line in text(findings, dryRun: list.flags.contains("dry")) { output.line(line) }
        }
        if list.flags.contains("update"), !list.flags.contains("dry"), findings.contains(where: \.drifted) {
            do {
                for update in try LiveCheck.update(findings, options: options) {
                    output.errorLine(
                        "updated \(ShownPath.of(update.cassette)): "
                            + update.interactions.map { "interactions[\($0)]" }.joined(separator: ", "))
                }
            } catch {
                output.errorLine("error: \(error)")
                return ExitCode.failure
            }
            return findings.contains { if case .unreachable = $0.outcome { true } else { false } }
                ? ExitCode.couldNotCompare : ExitCode.success
        }
        if findings.contains(where: \.drifted) { return ExitCode.failure }
        return findings.contains { if case .unreachable = $0.outcome { true } else { false } } ? ExitCode.couldNotCompare : ExitCode.success
    }

    static func text(_ findings: [LiveCheck.Finding], dryRun: Bool) -> [String] {
        var lines: [String] = []
        var current: URL?
        for finding in findings {
            if finding.cassette != current {
                current = finding.cassette
                lines.append(ShownPath.of(finding.cassette))
            }
            if dryRun, case .unchanged = finding.outcome {
                lines.append("  interactions[\(finding.index)] \(finding.request): would be sent")
            } else {
                lines.append(contentsOf: finding.description.split(separator: "\n").map { "  " + $0 })
            }
        }
        func count(_ test: (LiveCheck.Finding.Outcome) -> Bool) -> Int { findings.filter { test($0.outcome) }.count }
        let drifted = count { if case .drifted = $0 { true } else { false } }
        let same = count { $0 == .unchanged }
        let skipped = count { if case .skipped = $0 { true } else { false } }
        let unreachable = count { if case .unreachable = $0 { true } else { false } }
        lines.append(
            dryRun
                ? "\(same) would be sent, \(skipped) skipped"
                : "\(drifted) drifted, \(same) unchanged, \(skipped) skipped, \(unreachable) unreachable")
        return lines
    }

    static func json(_ findings: [LiveCheck.Finding]) -> String {
        let objects = findings.map { finding -> JSONValue in
            var members: [(String, JSONValue)] = [
                ("cassette", JSONValue(finding.cassette.path)), ("index", JSONValue(finding.index)),
                ("request", JSONValue(finding.request)),
            ]
            switch finding.outcome {
            case .unchanged: members.append(("outcome", "unchanged"))
            case .drifted(let changes): members += [("outcome", "drifted"), ("changes", JSONValue(changes))]
            case .skipped(let why): members += [("outcome", "skipped"), ("reason", JSONValue(why))]
            case .unreachable(let why): members += [("outcome", "unreachable"), ("reason", JSONValue(why))]
            }
            return .object(members.map { JSONMember(key: $0.0, value: JSONNode($0.1)) })
        }
        return JSONValue(objects).prettyPrinted
    }
}
