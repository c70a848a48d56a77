import Foundation

/// Which test run this process belongs to, and whether that run covers the whole suite.
///
/// `swift test` starts one test process for XCTest and one for Swift Testing (and, with
/// `--parallel`, one per XCTest test), all children of `swift-test`: processes with the same
/// `swift-test` parent are one run, and the run is partial when that command line names tests
/// (`--filter`, `--skip`, `-s`, `--specifier`). A process started some other way (Xcode, the test
/// binary by hand) is a run of its own, partial when its own arguments name tests; set
/// `CASSETTE_RUN_ID` to group several such processes into one run.
///
/// What the process learns of its parent is read from `/proc` on Linux and from `sysctl` on Apple
/// platforms (``ProcessLineage``); where neither answers, each process is a run of its own unless
/// `CASSETTE_RUN_ID` says otherwise.
struct TestRun: Sendable, Equatable {
    /// The name of the run's folder in the ledger.
    var id: String
    var arguments: [String]
    /// The test runner's arguments when the runner is `swift test`.
    var runnerArguments: [String]?
    /// The argument that makes the run partial, or nil.
    var filter: String?

    static let runIDVariable = "CASSETTE_RUN_ID"

    /// The arguments of `swift test` (or of the test binary run directly) that select tests.
    static let selectingOptions: Set<String> = ["--filter", "--skip", "-s", "--specifier"]
    /// Options of the test binary whose next argument is a value, not a test to run.
    static let valueOptions: Set<String> = [
        "--testing-library", "--event-stream-output-path", "--event-stream-version", "--experimental-event-stream-version",
        "--xunit-output", "--configuration-path", "--attachments-path", "--repetitions", "--repeat-until", "--num-workers",
    ]

    /// The folder-name prefix of a run of the `cassette` tool (``Ledger/toolRunVariable``).
    static let toolPrefix = "tool-"

    /// This process's run.
    static func current(environment: [String: String]) -> TestRun {
        if environment[Ledger.toolRunVariable] == "1" {
            // Only the command's name is kept: its arguments may hold a token (`record -H "Authorization: …"`).
            let command = CommandLine.arguments.dropFirst().first.map { [$0] } ?? []
            return TestRun(
                id: "\(toolPrefix)\(getpid())-\(ProcessLineage.ownStartTicks())", arguments: command, runnerArguments: nil, filter: nil)
        }
        let own = Array(CommandLine.arguments.dropFirst())
        let parent = ProcessLineage.parent()
        let runner = parent.flatMap { $0.isSwiftTest ? $0 : nil }
        let filter = runner.map { selection(inRunner: $0.arguments) } ?? selection(inTestBinary: own)
        var id: String
        if let given = environment[runIDVariable], !given.isEmpty {
            id = sanitized(given)
            if id.hasPrefix(toolPrefix) { id = "_" + id }
        } else if let runner {
            id = "swift-test-\(runner.pid)-\(runner.startTicks)"
        } else {
            id = "process-\(getpid())-\(ProcessLineage.ownStartTicks())"
        }
        return TestRun(id: id, arguments: own, runnerArguments: runner?.arguments, filter: filter)
    }

    /// The first argument of `swift test …` that selects tests, with its value.
    static func selection(inRunner arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard selectingOptions.contains(name) else { continue }
            return argument.contains("=") || index + 1 >= arguments.count ? argument : argument + " " + arguments[index + 1]
        }
        return nil
    }

    /// The first argument of a test binary run directly that selects tests: a selecting option,
    /// XCTest's `-XCTest NAMES` other than `All`, or a test named on its own (`Suite/test`).
    static func selection(inTestBinary arguments: [String]) -> String? {
        if let option = selection(inRunner: arguments) { return option }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "-XCTest" {
                if index + 1 < arguments.count, arguments[index + 1] != "All" { return argument + " " + arguments[index + 1] }
                index += 2
                continue
            }
            if valueOptions.contains(argument) {
                index += 2
                continue
            }
            if !argument.hasPrefix("-") { return argument }
            index += 1
        }
        return nil
    }

    /// A run id as a folder name: letters, digits, `-`, `_` and `.` kept, the rest `_`.
    private static func sanitized(_ id: String) -> String {
        String(
            id.map { character in
                character.isASCII && (character.isLetter || character.isNumber || "-_.".contains(character)) ? character : "_"
            })
    }
}
