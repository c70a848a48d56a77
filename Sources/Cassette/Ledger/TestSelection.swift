import Foundation

/// Which tests a test process ran, from its command line: all of them, or those its `--filter`s
/// match and its `--skip`s do not (regular expressions, searched in the test's name as
/// `swift test list` prints it: `App.FeedTests/loads()`). For judging several shards of a suite
/// together (``SuiteReport/make(ledgers:cassettes:tests:maximumAge:now:)``).
package struct TestSelection: Sendable, Equatable {
    /// The patterns a test must match one of (`--filter`, `--specifier`, `-s`, XCTest's `-XCTest`
    /// names, a test named on its own); none: every test.
    package var filters: [String] = []
    /// The patterns that leave a test out (`--skip`).
    package var skips: [String] = []

    /// The selection of a process started with `arguments` by a runner (`swift test …`) with
    /// `runnerArguments`, when known: the runner's command line says what the suite ran.
    package init(arguments: [String], runnerArguments: [String]?) {
        let command = runnerArguments ?? arguments
        var index = 0
        while index < command.count {
            let argument = command[index]
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts.first ?? argument
            var value: String?
            if TestRun.selectingOptions.contains(name) || (runnerArguments == nil && name == "-XCTest") {
                if parts.count == 2 {
                    value = parts[1]
                } else if index + 1 < command.count {
                    value = command[index + 1]
                    index += 1
                }
            } else if runnerArguments == nil, TestRun.valueOptions.contains(argument) {
                index += 1
            } else if runnerArguments == nil, !argument.hasPrefix("-") {
                filters.append(NSRegularExpression.escapedPattern(for: argument))
            }
            if let value {
                switch name {
                case "--skip": skips.append(value)
                case "-XCTest":
                    if value != "All" { filters += value.split(separator: ",").map { NSRegularExpression.escapedPattern(for: String($0)) } }
                default: filters.append(value)
                }
            }
            index += 1
        }
    }

    /// Whether the process ran `test` (`App.FeedTests/loads()`).
    package func selects(_ test: String) -> Bool { matcher()(test) }

    /// ``selects(_:)`` with its patterns compiled once, for asking of many tests.
    package func matcher() -> (String) -> Bool {
        let filters = self.filters.map(Self.pattern)
        let skips = self.skips.map(Self.pattern)
        return { test in
            (filters.isEmpty || filters.contains { $0(test) }) && !skips.contains { $0(test) }
        }
    }

    /// `pattern` searched in a test's name as a regular expression; a pattern that is not one is searched as text.
    private static func pattern(_ pattern: String) -> (String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return { $0.contains(pattern) } }
        return { test in expression.firstMatch(in: test, range: NSRange(test.startIndex..., in: test)) != nil }
    }
}
