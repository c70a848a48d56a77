import Cassette
import Foundation

/// `cassette check-secrets PATH...`: fails when a cassette (or any file named) holds something
/// that looks like a secret. For CI and pre-commit hooks.
enum CheckSecretsCommand {
    static let usage = """
        USAGE: cassette check-secrets PATH...

        Looks for secret-shaped values and exits 1 when it finds any: bearer tokens and Basic
        credentials, JWTs, AWS, Google, GitHub, Slack and Stripe keys, private keys, and long random
        strings in auth-like fields (X-Api-Key, access_token, password, a session cookie…).
        [REDACTED] and placeholders like <TOKEN> are not secrets.

        Cassettes (.json, .http, .har) are checked field by field: headers, cookies, query
        parameters, JSON and form fields, text bodies. Any other file is checked line by line. A
        folder is searched for every file in it and below (hidden files and folders, .build and
        binary files aside): 'cassette check-secrets Cassettes Sources Tests Package.swift'.

        OUTPUT (standard output), one line per finding, the value shortened:
          FILE:LINE:COLUMN: secret: KIND in PLACE: "abcd…" (N characters)
        then 'N secrets in M files' or 'no secrets in M files'.

        EXIT STATUS: 0 nothing found, 1 a secret was found or a file cannot be read,
        2 the command line was wrong.
        """

    static func run(_ arguments: [String], output: ConsoleOutput) -> Int32 {
        let list: ArgumentList
        switch ArgumentList.read(arguments, command: "check-secrets", usage: usage, output: output) {
        case .run(let parsed): list = parsed
        case .exit(let status): return status
        }
        guard !list.operands.isEmpty else {
            return output.usageError("'cassette check-secrets' needs at least one file or folder", command: "check-secrets")
        }
        let scanner: SecretScanner
        do {
            scanner = try SecretScanner()
        } catch {
            output.errorLine("error: a secret pattern does not compile: \(error)")
            return ExitCode.failure
        }
        var files = 0
        var secrets = 0
        var failed = false
        var checked: Set<String> = []
        for operand in list.operands {
            switch Self.files(at: operand) {
            case .failure(let problem):
                output.errorLine("\(operand): error: \(problem.message)")
                failed = true
            case .success(let found):
                // A file named again, or inside a folder named too, is checked once.
                for file in found where checked.insert(URL(fileURLWithPath: file).standardizedFileURL.path).inserted {
                    files += 1
                    guard let findings = check(file, with: scanner, output: output) else {
                        failed = true
                        continue
                    }
                    secrets += findings
                }
            }
        }
        output.line(
            secrets == 0
                ? "no secrets in \(files) file\(files == 1 ? "" : "s")"
                : "\(secrets) secret\(secrets == 1 ? "" : "s") in \(files) file\(files == 1 ? "" : "s")")
        return secrets > 0 || failed ? ExitCode.failure : ExitCode.success
    }

    /// The files to check at `path`: the file itself, or every file of a folder and its subfolders
    /// as ``CassetteStore/scan(_:others:)`` walks them (hidden ones — `.git`, `.build` — aside),
    /// binary files aside, in path order.
    static func files(at path: String) -> Result<[String], CassetteFiles.NotFound> {
        guard let found = CassetteStore.scan(path, others: true) else {
            return .failure(CassetteFiles.NotFound(message: "no such file or folder"))
        }
        let text = found.others.filter { !isBinary(URL(fileURLWithPath: $0)) }
        let files = (found.all + found.rules + found.evidence + text).sorted()
        guard !files.isEmpty else { return .failure(CassetteFiles.NotFound(message: "no files to check in this folder")) }
        return .success(files)
    }

    /// Whether `file` looks binary: a NUL byte in its first 8 KB.
    private static func isBinary(_ file: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 8192))?.contains(0) ?? false
    }

    /// Prints the findings in `file` and returns how many; nil when it cannot be read.
    private static func check(_ file: String, with scanner: SecretScanner, output: ConsoleOutput) -> Int? {
        guard let data = FileManager.default.contents(atPath: file) else {
            output.errorLine("\(file): error: cannot read the file")
            return nil
        }
        let text = String(decoding: data, as: UTF8.self)
        var findings: [SecretScanner.Finding]
        let isRules = (file as NSString).lastPathComponent == TapeRules.fileName
        if CassetteFormat(fileExtension: CassetteFormat.pathExtension(of: file)) != nil, !isRules {
            switch CassetteFiles.read(file) {
            case .success(let document):
                findings = scanner.findings(in: document)
            case .failure(let error):
                output.errorLine("\(file): note: not a valid cassette (\(error.problems.first?.description ?? "")); checked line by line")
                findings = scanner.findings(inText: text)
            }
        } else {
            findings = scanner.findings(inText: text)
        }
        // In the order they stand in the file (a finding whose value cannot be found there last).
        // A value found in several places is placed at its first occurrence, its second, and so on.
        var seen: [String: Int] = [:]
        let lines = findings.contains { $0.line != nil } ? text.split(separator: "\n", omittingEmptySubsequences: false) : []
        let positioned = findings.map { finding in
            // Found on a line of a file read line by line: that line, the value's first place on it.
            if let line = finding.line, lines.indices.contains(line - 1),
                let column = Self.position(of: finding.value, in: String(lines[line - 1]), occurrence: 0)?.column
            {
                return (finding: finding, position: (line: line, column: column) as (line: Int, column: Int)?)
            }
            defer { seen[finding.value, default: 0] += 1 }
            return (finding: finding, position: position(of: finding.value, in: text, occurrence: seen[finding.value] ?? 0))
        }
        let placed = positioned.enumerated().sorted { a, b in
            switch (a.element.position, b.element.position) {
            case (let x?, let y?): return (x.line, x.column, a.offset) < (y.line, y.column, b.offset)
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return a.offset < b.offset
            }
        }.map(\.element)
        for (finding, position) in placed {
            let location = position.map { "\(file):\($0.line):\($0.column)" } ?? file
            let shown = String(finding.value.prefix(4)) + "…"
            // The place says no more than the line and column do for a file read line by line.
            let place = finding.line != nil && position != nil ? "" : " in \(finding.place)"
            output.line("\(location): secret: \(finding.kind)\(place): \"\(shown)\" (\(finding.value.count) characters)")
        }
        return findings.count
    }

    /// The 1-based line and column of occurrence `occurrence` (from 0) of `value` in `text`, or of
    /// its last when there are fewer.
    private static func position(of value: String, in text: String, occurrence: Int) -> (line: Int, column: Int)? {
        guard var range = text.range(of: value) else { return nil }
        for _ in 0..<occurrence {
            guard let next = text.range(of: value, range: range.upperBound..<text.endIndex) else { break }
            range = next
        }
        let before = text[..<range.lowerBound]
        let line = before.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
        let lineStart = before.lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
        return (line, text[lineStart..<range.lowerBound].unicodeScalars.count + 1)
    }
}
