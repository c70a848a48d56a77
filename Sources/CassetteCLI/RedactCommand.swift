import Cassette
import Foundation

/// `cassette redact FILE...`: applies redaction rules to cassettes already recorded, in place.
enum RedactCommand {
    static let usage = """
        USAGE: cassette redact FILE... [--header NAME]... [--query NAME]... [--json-path PATH]...

        Removes secrets from cassettes recorded before a redaction rule existed, with the rules a
        tape applies when it records: the default rules (the credentials in Authorization,
        Proxy-Authorization, Cookie and Set-Cookie) and those given here. Each value removed
        becomes [REDACTED], and every other copy of it in the interaction (an echo in a body, a
        URL, another header) is removed too. Files are rewritten in place, atomically, in their
        own format (.json, .http or .har), and only when something changed. A folder is searched
        for cassettes.

        A test that replays a redacted cassette must redact its live requests the same way
        (Tape.Options(redaction:)) for them to match.

        OPTIONS:
          --header NAME      Also redact this header's value (any case); repeat for more.
          --query NAME       Also redact this query parameter, in request and response URLs.
          --json-path PATH   Also redact this place in JSON bodies: user.token, items[*].secret.
          --no-defaults      Apply only the rules given here, not the default header rules.

        OUTPUT: one line per cassette: 'FILE: redacted N of M interactions' or 'FILE: nothing to redact'.

        EXIT STATUS: 0 done, 1 a cassette cannot be read or written (the reason on standard error;
        the file is left as it was), 2 the command line was wrong.
        """

    static func run(_ arguments: [String], output: ConsoleOutput) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(
            arguments, command: "redact", usage: usage,
            options: ["--header": "header", "--query": "query", "--json-path": "json-path"],
            flags: ["--no-defaults": "no-defaults"], output: output)
        {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        guard !list.operands.isEmpty else {
            return output.usageError("'cassette redact' needs at least one cassette file", command: "redact")
        }
        var redaction = list.flags.contains("no-defaults") ? Redaction.none : Redaction.default
        redaction.headers += list.values["header"] ?? []
        redaction.queryParameters += list.values["query"] ?? []
        redaction.jsonPaths += list.values["json-path"] ?? []

        var failed = false
        for operand in list.operands {
            let files: [String]
            switch CassetteFiles.find(at: operand) {
            case .success(let found): files = found
            case .failure(let problem):
                output.errorLine("\(operand): error: \(problem.message)")
                failed = true
                continue
            }
            for file in files where !redact(file, with: redaction, output: output) { failed = true }
        }
        return failed ? ExitCode.failure : ExitCode.success
    }

    /// Redacts one file; false when it could not be read or written. The file is read again and
    /// written under its folder's lock, as every writer does, so a change made meanwhile is kept.
    private static func redact(_ file: String, with redaction: Redaction, output: ConsoleOutput) -> Bool {
        if case .failure(let error) = CassetteFiles.read(file) {
            output.errorLine(error.description)
            return false
        }
        var changed = 0
        var total = 0
        do {
            try CassetteFile.rewrite(URL(fileURLWithPath: file)) { (document: inout CassetteDocument) throws(CassetteError) in
                let before = document.interactions
                document.interactions = try redaction.redacting(before)
                changed = zip(before, document.interactions).filter { $0 != $1 }.count
                total = before.count
            }
        } catch {
            output.errorLine("error: \(error)")
            return false
        }
        guard changed > 0 else {
            output.line("\(file): nothing to redact")
            return true
        }
        output.line("\(file): redacted \(changed) of \(total) interactions")
        return true
    }
}
