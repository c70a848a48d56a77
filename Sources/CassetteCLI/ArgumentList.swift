import Cassette

/// The arguments of a subcommand after its name: options that take a value (repeatable), flags,
/// and operands (files). `--name=value` and `--name value` both work; `--` ends the options.
struct ArgumentList {
    /// Values of each option, by its canonical name, in the order given.
    var values: [String: [String]] = [:]
    /// The flags given, by canonical name.
    var flags: Set<String> = []
    /// Everything else, in order.
    var operands: [String] = []

    /// The arguments read against the options and flags a command knows (each spelling mapped to
    /// a canonical name: `["-H": "header", "--header": "header"]`), or the message for a wrong
    /// command line.
    static func parse(_ arguments: [String], options: [String: String], flags: [String: String]) -> Result<ArgumentList, UsageProblem> {
        var list = ArgumentList()
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard !optionsEnded, argument.hasPrefix("-"), argument != "-" else {
                list.operands.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            if let flag = flags[argument] {
                list.flags.insert(flag)
            } else if let option = options[parts[0]] {
                if parts.count == 2 {
                    list.values[option, default: []].append(parts[1])
                } else if index < arguments.count {
                    list.values[option, default: []].append(arguments[index])
                    index += 1
                } else {
                    return .failure(UsageProblem(message: "option '\(parts[0])' needs a value"))
                }
            } else {
                return .failure(UsageProblem(message: UsageProblem.unknownOption(parts[0], known: Array(options.keys) + Array(flags.keys))))
            }
        }
        return .success(list)
    }
}

extension ArgumentList {
    /// What a command does after reading its command line.
    enum Outcome {
        /// Run with these arguments.
        case run(ArgumentList)
        /// Stop with this status: `--help` printed the usage (0), or the command line was wrong (2).
        case exit(Int32)
    }

    /// The arguments of `cassette COMMAND`, with `-h`/`--help` handled: the usage on standard output,
    /// or a wrong command line reported on standard error.
    static func read(
        _ arguments: [String], command: String, usage: String, options: [String: String] = [:],
        flags: [String: String] = [:], output: ConsoleOutput
    ) -> Outcome {
        switch parse(arguments, options: options, flags: flags.merging(["-h": "help", "--help": "help"]) { $1 }) {
        case .failure(let problem):
            return .exit(output.usageError(problem.message, command: command))
        case .success(let list) where list.flags.contains("help"):
            output.line(usage)
            return .exit(ExitCode.success)
        case .success(let list):
            return .run(list)
        }
    }
}

extension ArgumentList {
    /// A header field given as `Name: value` (`-H`, `--header`): the name as written before the
    /// first colon, the value after it without surrounding spaces; nil without a colon.
    static func headerField(_ text: String) -> (name: String, value: String)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
}

/// What is wrong with a command line, said as "error: MESSAGE. Run 'cassette COMMAND --help'."
struct UsageProblem: Error {
    var message: String

    /// "unknown option '--fx' (did you mean '--fix'?)": the closest of `known` (or of the options a
    /// command's usage text names, each `--word` in it), when one is close.
    static func unknownOption(_ option: String, known: [String] = [], usage: String = "", command: String? = nil) -> String {
        // Every `--word` of the usage text (no Regex: the tool's module compiles for iOS 15 too).
        let named = usage.split { !($0.isLetter || $0.isNumber || $0 == "-") }.filter { $0.hasPrefix("--") && $0.count > 2 }.map(
            String.init)
        let candidates = Set(known + named + ["--help"]).sorted()
        let guess = NearestWord.closest(to: option, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
        return "unknown option '\(option)'" + (command.map { " for '\($0)'" } ?? "") + guess
    }
}

extension ConsoleOutput {
    /// Reports a wrong command line on standard error and returns the usage exit status.
    func usageError(_ message: String, command: String) -> Int32 {
        errorLine("error: \(message). Run 'cassette \(command) --help'.")
        return ExitCode.usage
    }
}
