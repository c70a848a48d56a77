import Cassette
import Foundation

/// `cassette lint [--fix] PATH...`: checks cassettes and prints every problem, one line each.
enum LintCommand {
    static let usage = """
        USAGE: cassette lint [--fix] PATH...

        Checks cassette files and reports every problem: syntax, unknown or misspelt fields, wrong
        types, values out of range. The format follows the extension: .json (and any other), .http
        (HTTP messages) or .har (HAR 1.2). A folder is searched recursively for *.json, *.http and
        *.har files (folders whose names start with '.' are skipped); a file named explicitly is
        always checked. A folder's cassette-rules.json is checked as the rules file it is (TapeRules),
        not as a cassette.

        OUTPUT (standard output), one line per problem:
          FILE:LINE:COLUMN: error: PATH: MESSAGE        when the place in the file is known
          FILE: error: MESSAGE                          otherwise
        and one per warning (valid, but probably not meant: a Content-Length the body does not keep):
          FILE:LINE:COLUMN: warning: PATH: MESSAGE      the place of the header's value
        then a summary: 'N cassettes, M interactions, K errors' (and ', W warnings', ', F fixed').

        --fix  First fixes what is mechanical, in place and atomically, changing only the bytes of
               each fix (member order, spacing and everything else stay as written), one line each:
                 FILE:LINE:COLUMN: fixed: WHAT
               A Content-Length that disagrees with its body becomes the body's size; a misspelt error
               code with exactly one close match becomes that match. What needs a person stays an
               error; a file with a syntax error is not changed.

        EXIT STATUS: 0 every cassette is valid, 1 a problem was found, 2 the command line was wrong.
        """

    static func run(_ arguments: [String], output: ConsoleOutput) -> Int32 {
        var paths: [String] = []
        var fixes = false
        var optionsEnded = false
        for argument in arguments {
            if !optionsEnded, argument.hasPrefix("-") {
                switch argument {
                case "-h", "--help":
                    output.line(usage)
                    return ExitCode.success
                case "--":
                    optionsEnded = true
                case "--fix":
                    fixes = true
                default:
                    output.errorLine(
                        "error: \(UsageProblem.unknownOption(argument, usage: usage, command: "cassette lint")). Run 'cassette lint --help'."
                    )
                    return ExitCode.usage
                }
            } else {
                paths.append(argument)
            }
        }
        guard !paths.isEmpty else {
            output.errorLine("error: 'cassette lint' needs at least one file or folder.\n\n\(usage)")
            return ExitCode.usage
        }

        var cassettes = 0
        var interactions = 0
        var errors = 0
        var warnings = 0
        var fixed = 0
        for path in paths {
            let found: CassetteStore.Found
            switch CassetteFiles.scan(path) {
            case .success(let scanned):
                found = scanned
            case .failure(let problem):
                output.line("\(path): error: \(problem.message)")
                errors += 1
                continue
            }
            for file in found.rules {
                do {
                    _ = try TapeRules(contentsOf: URL(fileURLWithPath: file))
                } catch let error as CassetteFormatError {
                    for problem in error.problems { output.line(problem.diagnostic(file: file)) }
                    errors += error.problems.count
                } catch {
                    output.line("\(file): error: \(error)")
                    errors += 1
                }
            }
            for file in found.all {
                cassettes += 1
                if fixes { fixed += fix(file, output: output) }
                switch CassetteFiles.read(file) {
                case .success(let document):
                    interactions += document.interactions.count
                    guard !document.warnings().isEmpty else { continue }
                    let data = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                    for warning in document.warnings(locatedIn: data, format: CassetteFormat(path: file)) {
                        output.line(warning.diagnostic(file: file, severity: "warning"))
                        warnings += 1
                    }
                case .failure(let error):
                    for problem in error.problems { output.line(problem.diagnostic(file: file)) }
                    errors += error.problems.count
                }
            }
        }
        output.line(
            "\(count(cassettes, "cassette")), \(count(interactions, "interaction")), \(count(errors, "error"))"
                + (warnings > 0 ? ", \(count(warnings, "warning"))" : "") + (fixed > 0 ? ", \(fixed) fixed" : ""))
        return errors == 0 ? ExitCode.success : ExitCode.failure
    }

    /// Applies ``LintFixes`` to `file`: the errors first, then the warnings of the file those fixes
    /// let be read. Each fix is printed; the file is rewritten only when something changes, as
    /// every writer rewrites one (``CassetteFile/update(_:_:)``: under its folder's lock, read
    /// again there, through a link, keeping its mode). Returns how many fixes were made.
    private static func fix(_ file: String, output: ConsoleOutput) -> Int {
        let format = CassetteFormat(path: file)
        var made: [String] = []
        do {
            try CassetteFile.update(URL(fileURLWithPath: file)) { (current: Data?) throws(CassetteError) -> Data? in
                guard var data = current else { return nil }
                for _ in 0..<2 {
                    let problems: [CassetteFormatError.Problem]
                    do throws(CassetteFormatError) {
                        problems = try format.decode(data, file: file).warnings(locatedIn: data, format: format)
                    } catch {
                        problems = error.problems
                    }
                    let fixer = LintFixes(data: data, format: format)
                    let found = fixer.fixes(for: problems)
                    guard !found.isEmpty else { break }
                    data = fixer.applying(found)
                    made += found.map { "\(file):\($0.line):\($0.column): fixed: \($0.summary)" }
                }
                return made.isEmpty ? nil : data
            }
        } catch {
            output.line("\(file): error: cannot write the fixes: \(error)")
            return 0
        }
        for line in made { output.line(line) }
        return made.count
    }

    private static func count(_ n: Int, _ noun: String) -> String {
        "\(n) \(noun)\(n == 1 ? "" : "s")"
    }
}
