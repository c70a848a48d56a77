import Cassette
import CassetteTools
import Foundation

/// `cassette diff OLD NEW`, or `cassette diff --git REV FILE`: what re-recording changed, as
/// interactions added, removed and changed (``CassetteDiff``).
enum DiffCommand {
    static let usage = """
        USAGE: cassette diff OLD NEW [--json] [--html OUT.html] [--match-ignoring port|host]... [--rules FILE]
               cassette diff --git REV FILE [--json] …

        Compares two cassettes (any formats: .json, .http, .har) interaction by interaction.
        Interactions are paired by request, as a tape matches them, so a reordered file is not a
        change; what only NEW has is added, what only OLD has is removed. A pair is changed when its
        status, error, final URL, header fields or body differ, apart from what re-recording ignores
        (Date, Age, Expires, Last-Modified, request and trace ids, timing within its tolerance).
        JSON bodies are compared by structure: a member added or removed, a value changed, a type
        changed, each at its path ($.user.email); key order is not a change. Other bodies are
        compared by size and hash.

        OPTIONS:
          --git REV          Compare FILE as committed at REV (git show REV:FILE) with FILE as it is.
          --html OUT.html    Also write the changes as cassette view's page: each changed pair side by
                             side with its changes highlighted, then what was added and removed.
          --json             Print the result as JSON: {"changed": [{"old", "new", "request",
                             "changes": [{"field", "old", "new"}]}], "added": [{"index", "request"}],
                             "removed": […], "unchanged": N}.
          --match-ignoring port|host
                             Pair requests whatever their port, or their scheme, host and port.
          --rules FILE       Pair requests with the matching rules of a rules file (TapeRules).
                             Default: cassette-rules.json beside NEW, when there is one.

        EXIT STATUS: 0 no change, 1 changes, 2 the command line was wrong, 3 a cassette cannot be
        read (with the same located error as 'cassette lint').
        """

    static func run(_ arguments: [String], output: ConsoleOutput) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(
            arguments, command: "diff", usage: usage,
            options: ["--git": "git", "--match-ignoring": "match", "--rules": "rules", "--html": "html"], flags: ["--json": "json"],
            output: output)
        {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        let revision = list.values["git"]?.last
        let files = list.operands
        guard revision == nil ? files.count == 2 : files.count == 1 else {
            return output.usageError(
                revision == nil ? "'cassette diff' takes two cassettes, OLD and NEW" : "'cassette diff --git REV' takes one cassette",
                command: "diff")
        }
        for value in list.values["match"] ?? [] where MatchingOption.apply(value, to: .default) == nil {
            return output.usageError(MatchingOption.problem(value), command: "diff")
        }
        let newFile = files[files.count - 1]
        let old: CassetteDocument
        let new: CassetteDocument
        switch (revision.map { committed(newFile, at: $0) } ?? CassetteFiles.read(files[0]), CassetteFiles.read(newFile)) {
        case (.failure(let error), _), (_, .failure(let error)):
            output.errorLine(error.description)
            return ExitCode.couldNotCompare
        case (.success(let a), .success(let b)):
            (old, new) = (a, b)
        }
        let matching: RequestMatching
        do {
            let rules = try RulesOption.rules(
                given: list.values["rules"]?.last, folder: URL(fileURLWithPath: newFile).deletingLastPathComponent())
            matching = MatchingOption.apply(list.values["match"] ?? [], to: rules.matching)
        } catch {
            output.report(error)
            return ExitCode.couldNotCompare
        }
        let diff = CassetteDiff(old: old.interactions, new: new.interactions, matching: matching)
        if let destination = list.values["html"]?.last {
            let title = "\(revision.map { "\($0):\(newFile)" } ?? files[0]) → \(newFile)"
            let html = page(diff, old: old.interactions, new: new.interactions, title: title).html()
            do {
                try Data(html.utf8).write(to: URL(fileURLWithPath: destination), options: .atomic)
            } catch {
                output.errorLine("error: cannot write \(destination): \(error.localizedDescription)")
                return ExitCode.couldNotCompare
            }
            output.errorLine("wrote \(destination)")
        }
        if list.flags.contains("json") {
            output.line(json(diff))
        } else {
            for line in text(diff) { output.line(line) }
        }
        return diff.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// `file` as committed at `revision`, read in the format its extension names.
    private static func committed(_ file: String, at revision: String) -> Result<CassetteDocument, CassetteFormatError> {
        let url = URL(fileURLWithPath: file)
        let shown = "\(revision):\(file)"
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        return .failure(problem(shown, "cannot run git on this platform: compare two files instead"))
        #else
        let git: (status: Int32, output: Data, errors: Data)
        do {
            git = try SpawnedProcess.run(
                executable: "/usr/bin/env", ["git", "show", "\(revision):./\(url.lastPathComponent)"],
                directory: url.deletingLastPathComponent().path)
        } catch {
            return .failure(problem(shown, "cannot run git: \(error)"))
        }
        let data = git.output
        guard git.status == 0 else {
            let message = String(decoding: git.errors, as: UTF8.self)
            return .failure(problem(shown, "git show failed: \(message.trimmingCharacters(in: .whitespacesAndNewlines))"))
        }
        return Result { () throws(CassetteFormatError) in try CassetteFormat(path: file).decode(data, file: shown) }
        #endif
    }

    private static func problem(_ file: String, _ message: String) -> CassetteFormatError {
        CassetteFormatError(file: file, problems: [.init(path: nil, message: message)])
    }

    /// The changes as `cassette view`'s page: each changed pair (old, then new, shown side by side),
    /// then the added and the removed interactions, each with what it is.
    static func page(_ diff: CassetteDiff, old: [Interaction], new: [Interaction], title: String) -> CassetteViewPage {
        var rows: [Interaction] = []
        var notes: [CassetteFormatError.Problem] = []
        var pairs: [Int: Int] = [:]
        func note(_ row: Int, _ message: String) {
            notes.append(CassetteFormatError.Problem(path: JSONPath.root.appending("interactions").appending(row), message: message))
        }
        for changed in diff.changed {
            let before = rows.count
            rows.append(old[changed.old])
            rows.append(new[changed.new])
            (pairs[before], pairs[before + 1]) = (before + 1, before)
            note(before, "old: interactions[\(changed.old)]")
            for change in changed.changes { note(before + 1, "changed: \(change)") }
        }
        for added in diff.added {
            note(rows.count, "added: interactions[\(added.index)] of the new cassette")
            rows.append(new[added.index])
        }
        for removed in diff.removed {
            note(rows.count, "removed: interactions[\(removed.index)] of the old cassette")
            rows.append(old[removed.index])
        }
        var source = CassetteViewPage.Source(
            file:
                "\(title): \(diff.changed.count) changed, \(diff.added.count) added, \(diff.removed.count) removed, \(diff.unchanged) unchanged",
            format: "diff", document: CassetteDocument(interactions: rows), warnings: notes, label: "")
        source.pairs = pairs
        return CassetteViewPage(sources: [source])
    }

    /// The result for a terminal or a CI log.
    static func text(_ diff: CassetteDiff) -> [String] {
        var lines: [String] = []
        for changed in diff.changed {
            let places = changed.old == changed.new ? "interactions[\(changed.new)]" : "interactions[\(changed.old)] → [\(changed.new)]"
            lines.append("changed  \(places)  \(changed.request)")
            for change in changed.changes { lines.append("    \(change)") }
        }
        for added in diff.added { lines.append("added    interactions[\(added.index)]  \(added.request)") }
        for removed in diff.removed { lines.append("removed  interactions[\(removed.index)]  \(removed.request)") }
        lines.append(
            "\(diff.changed.count) changed, \(diff.added.count) added, \(diff.removed.count) removed, \(diff.unchanged) unchanged")
        return lines
    }

    /// The result as JSON.
    static func json(_ diff: CassetteDiff) -> String {
        func single(_ item: CassetteDiff.Single) -> JSONValue { ["index": JSONValue(item.index), "request": JSONValue(item.request)] }
        let object: JSONValue = [
            "changed": JSONValue(
                diff.changed.map { changed -> JSONValue in
                    [
                        "old": JSONValue(changed.old), "new": JSONValue(changed.new), "request": JSONValue(changed.request),
                        "changes": JSONValue(
                            changed.changes.map { change -> JSONValue in
                                ["field": JSONValue(change.field), "old": JSONValue(change.old), "new": JSONValue(change.new)]
                            }),
                    ]
                }),
            "added": JSONValue(diff.added.map(single)), "removed": JSONValue(diff.removed.map(single)),
            "unchanged": JSONValue(diff.unchanged),
        ]
        return object.prettyPrinted
    }
}
