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
        let whole = Self.answer(executable: "/usr/bin/swift-test", arguments: ["swift-test", "test"], environment: [])
        #expect(ProcessLineage.commandLine(fromProcessArguments: Array(whole.prefix(whole.count - 6))) == nil)
        #expect(ProcessLineage.commandLine(fromProcessArguments: [1, 0]) == nil)
        #expect(ProcessLineage.commandLine(fromProcessArguments: Self.answer(executable: "/x", arguments: [], environment: [])) == nil)
    }

    /// Run by `swift test`, this process's parent is `swift-test` (the platform answer, read live).
    @Test(.enabled(if: ProcessLineage.parent()?.isSwiftTest == true, "runs under swift test"))
    func underSwiftTestTheParentIsTheRunner() throws {
        let parent = try #require(ProcessLineage.parent())
        #expect(parent.pid == getppid())
        #expect(!parent.startTicks.isEmpty && parent.startTicks != "0")
    }
}
