import Foundation
import Testing

@testable import Cassette
@testable import CassetteTools

// Starts processes (or reads the package's folder through them): Linux and macOS only.
#if os(Linux) || os(macOS)

#if os(Linux) || os(macOS)
/// The one way the tool and the tests start a program: its arguments, environment and folder
/// reach it; its output, error and exit status (a signal's too) come back whole.
@Suite struct SpawnedProcessTests {
    @Test func outputErrorAndStatusComeBack() throws {
        let result = try SpawnedProcess.run(
            executable: "/bin/sh", ["-c", "printf 'out %s' \"$1\"; printf 'err' >&2; exit 3", "sh", "arg one"])
        #expect(result.status == 3)
        #expect(String(decoding: result.output, as: UTF8.self) == "out arg one")
        #expect(String(decoding: result.errors, as: UTF8.self) == "err")
    }

    @Test func theEnvironmentAndTheFolderReachIt() throws {
        let folder = FileManager.default.temporaryDirectory.resolvingSymlinksInPath().path
        let result = try SpawnedProcess.run(
            executable: "/bin/sh", ["-c", "printf '%s %s' \"$ONLY\" \"$(pwd)\""], environment: ["ONLY": "this"], directory: folder)
        #expect(String(decoding: result.output, as: UTF8.self) == "this \(folder)")
    }

    /// A child a signal ended: 128 + the signal, as a shell says it, on every platform (Linux
    /// reads `waitpid`'s status; macOS's `Foundation.Process` gives 9 with `.uncaughtSignal`,
    /// which `exitStatus(_:signalled:)` turns into the same 137).
    @Test func aSignalIsTheStatusAShellGives() throws {
        #expect(try SpawnedProcess.run(executable: "/bin/sh", ["-c", "kill -9 $$"]).status == 137)
        #expect(SpawnedProcess.exitStatus(9, signalled: true) == 137)
        #expect(SpawnedProcess.exitStatus(15, signalled: true) == 143)
        #expect(SpawnedProcess.exitStatus(9, signalled: false) == 9)
    }

    /// More output than a pipe holds on both streams at once: nothing waits forever.
    @Test func fullPipesDoNotBlock() throws {
        let result = try SpawnedProcess.run(executable: "/bin/sh", ["-c", "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2"])
        #expect(result.status == 0)
        #expect(result.output.count == 300_000 && result.errors.count == 300_000)
    }

    /// The child gets none of this process's descriptors but its three: a pipe of another child
    /// stays this process's alone.
    @Test func noOtherDescriptorReachesTheChild() throws {
        let pipe = Pipe()
        defer { try? pipe.fileHandleForReading.close() }
        let result = try SpawnedProcess.run(executable: "/bin/sh", ["-c", "ls /dev/fd"])
        let descriptors = String(decoding: result.output, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }.sorted()
        #expect(Array(descriptors.prefix(3)) == [0, 1, 2], "the listing read: \(descriptors)")
        #expect(!descriptors.contains(Int(pipe.fileHandleForWriting.fileDescriptor)), "\(descriptors)")
    }

    @Test func aMissingProgramIsAnError() {
        #expect(throws: SpawnedProcess.StartFailure.self) { try SpawnedProcess.run(executable: "/nonexistent/program", []) }
    }
}
#endif
#endif
