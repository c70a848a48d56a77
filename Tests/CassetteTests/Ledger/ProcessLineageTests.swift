import Foundation
import Testing

@testable import Cassette

/// Which process started this one: `/proc` on Linux, `sysctl` on Apple platforms. The Apple
/// answer (`KERN_PROCARGS2`) is read by a pure function, tested here with the bytes macOS gives.
@Suite struct ProcessLineageTests {
    /// A `KERN_PROCARGS2` answer: the argument count, the executable's path, NUL padding, the
    /// arguments and the environment, each NUL-terminated.
    static func answer(executable: String, arguments: [String], environment: [String]) -> [UInt8] {
        var bytes = withUnsafeBytes(of: Int32(arguments.count)) { Array($0) }
        bytes += Array(executable.utf8) + [0, 0, 0, 0, 0]
        for text in arguments + environment { bytes += Array(text.utf8) + [0] }
        return bytes
    }

    @Test func anAppleAnswerGivesTheCommandLineWithoutTheEnvironment() throws {
        let swiftTest = "/Applications/Xcode.app/Contents/Developer/Toolchains/XcodeDefault.xctoolchain/usr/bin/swift-test"
        let bytes = Self.answer(
            executable: swiftTest, arguments: [swiftTest, "--filter", "UserTests"], environment: ["HOME=/Users/ada", "TERM=xterm"])
        let command = try #require(ProcessLineage.commandLine(fromProcessArguments: bytes))
        #expect(command == [swiftTest, "--filter", "UserTests"])

        // What the ledger makes of it: `swift test` is the runner, and the run is partial.
        let parent = ProcessLineage.Parent(
            pid: 4242, startTicks: "1764201600.123456", executable: command[0], arguments: Array(command.dropFirst()))
        #expect(parent.isSwiftTest)
        #expect(TestRun.selection(inRunner: parent.arguments) == "--filter UserTests")
    }

    @Test func aCutOrEmptyAnswerIsNoCommandLine() {
        let whole = Self.answer(
            executable: "/Library/Developer/CommandLineTools/usr/bin/swift-test", arguments: ["swift-test", "test"], environment: [])
        #expect(ProcessLineage.commandLine(fromProcessArguments: Array(whole.prefix(whole.count - 6))) == nil)
        #expect(ProcessLineage.commandLine(fromProcessArguments: [1, 0]) == nil)
        #expect(ProcessLineage.commandLine(fromProcessArguments: Self.answer(executable: "/x", arguments: [], environment: [])) == nil)
    }

    /// Whatever runs the tests (`swift test`, Xcode, a shell), the platform answers for this
    /// process's parent, read live: `/proc` on Linux, `sysctl` on Apple platforms. Never skipped:
    /// a platform answer that breaks (a `sysctl` that gives nothing) fails here.
    @Test func theParentIsReadLiveFromThePlatform() throws {
        let parent = try #require(ProcessLineage.parent(), "the platform gave no answer for the parent process")
        #expect(parent.pid == getppid())
        #expect(!parent.startTicks.isEmpty && parent.startTicks != "0")
        #expect(!parent.executable.isEmpty)
        #expect(parent.arguments.first.map { !$0.isEmpty } == true)
    }

    /// Run by `swift test`, the parent is `swift-test`: one run folder for the XCTest and the
    /// Swift Testing processes. Whether `swift test` runs this is said by those who run it —
    /// `.ci/steps/tests` and the macOS job set `CASSETTE_RUN_BY=swift-test` — not by the lineage
    /// under test, so a lineage that breaks fails here instead of turning the test off.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CASSETTE_RUN_BY"] == "swift-test", "set by CI's swift test"))
    func underSwiftTestTheParentIsTheRunner() throws {
        let parent = try #require(ProcessLineage.parent())
        #expect(parent.isSwiftTest, "the parent is \(parent.executable)")
    }
}
