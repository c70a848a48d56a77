import CassetteTestSupport
import Foundation
import Testing

// Reads the package's folder: Linux and macOS (an iOS test bundle has none).
#if os(Linux) || os(macOS)

/// The suite runs on a Mac too, so a Linux fact used outside a Linux-only block
/// (`SourceLines.isLinuxOnly`) is a test that fails there before it checks anything: a path
/// under `/proc` (macOS has none), a program at Debian's `/usr/bin` path (`/usr/bin/env`, on
/// every platform, finds one on `PATH`), `CommandLine.arguments[0]` taken for the build folder
/// (on a Mac, that is `xctest` or `swiftpm-testing-helper`: `BuiltProducts` finds the folder),
/// and a killed child's status written as 128 + the signal, which only `SpawnedProcess` makes
/// the same on both platforms. Comments and the text of string literals are not code.
@Suite struct LinuxAssumptionsTests {
    struct Finding: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var assumption: String
        var description: String { "\(file):\(line): \(assumption)" }
    }

    /// Each assumption, and whether a line of code makes it. (The needles are written in pieces,
    /// so that this file does not find itself.)
    static let assumptions: [(name: String, isMade: @Sendable (String) -> Bool)] = [
        ("a path under /proc", { $0.contains("\"/" + "proc/") }),
        (
            "a program at Debian's /usr/bin path",
            { $0.components(separatedBy: "\"/" + "usr/bin/").dropFirst().contains { !$0.hasPrefix("env\"") } }
        ),
        (
            "the first argument as the build folder",
            { $0.contains("CommandLine" + ".arguments[0]") || $0.contains("CommandLine" + ".arguments.first") }
        ),
        ("a signal's status as 128 + the signal", isSignalStatus),
    ]

    /// `status == 137` and the like (129…165, 128 + a signal), unless `SpawnedProcess` gave it.
    static func isSignalStatus(_ line: String) -> Bool {
        guard !line.contains("SpawnedProcess") else { return false }
        let pattern = #"(?i)status\)?\s*==\s*(129|1[3-5][0-9]|16[0-5])\b"#
        return line.range(of: pattern, options: .regularExpression) != nil
    }

    static func findings(in text: String, file: String) -> [Finding] {
        SourceLines(text).lines.filter { $0.isCode && !$0.isLinuxOnly && !$0.text.hasPrefix("//") }.flatMap { line in
            assumptions.filter { $0.isMade(line.text) }.map { Finding(file: file, line: line.number, assumption: $0.name) }
        }
    }

    @Test func theRuleReadsCodeAsWritten() {
        let text = """
            let memory = try String(contentsOfFile: "/proc/self/status")
            #if os(Linux)
            let linux = try String(contentsOfFile: "/proc/self/status")
            #if DEBUG
            let python = "/usr/bin/python3"
            #endif
            #else
            let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            #endif
            // A comment may say /usr/bin/python3 and "/proc/self".
            let env = "/usr/bin/env"
            let tool = ["/usr/bin/env", "/usr/bin/git"]
            #expect(result.status == 137)
            #expect(SpawnedProcess.run(executable: "/bin/sh", ["-c", "kill -9 $$"]).status == 137)
            #expect(response.statusCode == 404)
            #if canImport(Darwin)
            #expect(killed.terminationStatus == 9)
            #else
            #expect(killed.terminationStatus == 137)
            #endif
            #if os(Linux) || os(macOS)  // starts a process
            let first = CommandLine.arguments.first
            #endif
            """
        let expected = [
            (1, "a path under /proc"), (8, "the first argument as the build folder"),
            (12, "a program at Debian's /usr/bin path"), (13, "a signal's status as 128 + the signal"),
            (22, "the first argument as the build folder"),
        ]
        #expect(
            Self.findings(in: text, file: "T.swift")
                == expected.map { Finding(file: "T.swift", line: $0.0, assumption: $0.1) })
    }

    @Test func noTestAssumesLinuxOutsideALinuxOnlyBlock() throws {
        let sources = try SourceLines.tests()
        #expect(sources.count > 100, "the rule read the suite: \(sources.count) files")
        let found = sources.flatMap { Self.findings(in: $0.text, file: $0.path) }
        #expect(
            found == [],
            "a Linux fact where a Mac runs it too: move it into an #if os(Linux) block with Apple's expectation in its #else, or find it the way both platforms do"
        )
    }
}
#endif
