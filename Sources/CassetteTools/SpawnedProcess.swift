import Cassette
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux) || os(macOS)
/// A child process, started and waited for: the one way the `cassette` tool (`diff --git`,
/// `view --open`) and the test support start programs.
///
/// On Linux it is started with `posix_spawn`, not `Foundation.Process`: swift-corelibs-foundation
/// up to the 6.3.1 toolchain reads 256 bytes of each `dirent.d_name` in
/// `findMaximumOpenFromProcSelfFD()` when `Process.run()` closes the parent's descriptors — a heap
/// over-read AddressSanitizer reports, and that crashes plain runs now and then (fixed upstream in
/// swift-corelibs-foundation#5472). Elsewhere `Foundation.Process` does the same job.
///
/// ```swift
/// let git = try SpawnedProcess(executable: "/usr/bin/env", ["git", "show", "HEAD:./a.json"], directory: folder)
/// let (status, output, errors) = git.finish()
/// ```
package final class SpawnedProcess: @unchecked Sendable {
    /// Why a program could not be started.
    package struct StartFailure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The child's standard output and error, read to their ends while it runs.
    private let outputPipe = Pipe()
    private let errorPipe = Pipe()
    #if os(Linux)
    private let pid: pid_t
    #else
    private let process = Process()
    #endif

    /// Starts `executable` with `arguments`; its standard input is empty, its output and error
    /// are kept for ``finish()``.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment (nil: this process's).
    ///   - directory: where it starts (nil: this process's current folder).
    ///   - discardingOutput: its output and error go nowhere (a program left running, such as a
    ///     browser an opener started): ``finish()`` then returns them empty.
    ///   - mergingErrors: its error goes where its output goes, interleaved as written;
    ///     ``finish()`` returns it in `output`.
    package init(
        executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        discardingOutput: Bool = false, mergingErrors: Bool = false
    ) throws {
        #if os(Linux)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if discardingOutput {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, outputPipe.fileHandleForWriting.fileDescriptor, 1)
            let errorEnd = mergingErrors ? outputPipe.fileHandleForWriting : errorPipe.fileHandleForWriting
            posix_spawn_file_actions_adddup2(&actions, errorEnd.fileDescriptor, 2)
        }
        // Nothing else of this process's reaches the child (another child's pipe, a test server's
        // socket): what Process.run() does by listing /proc/self/fd, without the listing.
        guard let closeFrom = GlibcSpawnActions.closeFrom, let changeDirectory = GlibcSpawnActions.changeDirectory else {
            throw StartFailure(description: "cannot start \(executable): this C library has no posix_spawn_file_actions_addclosefrom_np")
        }
        _ = closeFrom(&actions, 3)
        if let directory { _ = changeDirectory(&actions, directory) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let pairs = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = pairs.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let started = posix_spawn(&child, executable, &actions, nil, argv, envp)
        // This process keeps only the read ends: the child's end of a pipe closing is its EOF.
        try? outputPipe.fileHandleForWriting.close()
        try? errorPipe.fileHandleForWriting.close()
        guard started == 0 else { throw StartFailure(description: "cannot start \(executable): \(String(cString: strerror(started)))") }
        pid = child
        #else
        defer {
            try? outputPipe.fileHandleForWriting.close()
            try? errorPipe.fileHandleForWriting.close()
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = discardingOutput ? FileHandle.nullDevice : outputPipe
        process.standardError = discardingOutput ? FileHandle.nullDevice : mergingErrors ? outputPipe : errorPipe
        do {
            try process.run()
        } catch {
            throw StartFailure(description: "cannot start \(executable): \(error.localizedDescription)")
        }
        #endif
    }

    /// The child's standard output, to read as it arrives (``finish()`` reads what is left).
    package var outputHandle: FileHandle { outputPipe.fileHandleForReading }

    /// The child's process ID.
    package var processIdentifier: pid_t {
        #if os(Linux)
        pid
        #else
        process.processIdentifier
        #endif
    }

    /// Sends `signal` to the child (`SIGTERM`, `SIGINT`, `SIGKILL`).
    package func send(_ signal: Int32) {
        #if os(Linux)
        kill(pid, signal)
        #else
        kill(process.processIdentifier, signal)
        #endif
    }

    /// Reads the child's output and error to their ends, waits for it, and returns its exit
    /// status (128 + the signal for a child a signal ended) with what it wrote.
    package func finish() -> (status: Int32, output: Data, errors: Data) {
        // The error pipe is read on a thread of its own: a child that fills one pipe while the
        // other is read would otherwise wait forever.
        let errors = Locked(Data())
        let read = DispatchSemaphore(value: 0)
        let errorHandle = errorPipe.fileHandleForReading
        Thread {
            let data = errorHandle.readDataToEndOfFile()
            errors.withLock { $0 = data }
            read.signal()
        }.start()
        let output = outputPipe.fileHandleForReading.readDataToEndOfFile()
        read.wait()
        return (waitForExit(), output, errors.withLock { $0 })
    }

    /// The exit status if the child has ended, without waiting; nil while it runs.
    package func exitStatusIfEnded() -> Int32? {
        #if os(Linux)
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return result < 0 ? -1 : nil }
        return Self.exitStatus(status)
        #else
        return process.isRunning ? nil : Self.exitStatus(of: process)
        #endif
    }

    private func waitForExit() -> Int32 {
        #if os(Linux)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        return Self.exitStatus(status)
        #else
        process.waitUntilExit()
        return Self.exitStatus(of: process)
        #endif
    }

    #if os(Linux)
    /// `WEXITSTATUS`, or 128 + `WTERMSIG` (the C macros do not reach Swift).
    private static func exitStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
    #else
    /// The status as on Linux: `Process` gives a signal's number with `.uncaughtSignal` (9 for
    /// `SIGKILL`), which becomes 128 + the signal, as a shell says it.
    private static func exitStatus(of process: Process) -> Int32 {
        Self.exitStatus(process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal)
    }
    #endif

    /// A status `Foundation.Process` reports (`terminationStatus`, and whether its reason is
    /// `.uncaughtSignal`) as this type reports it: 128 + the signal for a signal.
    package static func exitStatus(_ status: Int32, signalled: Bool) -> Int32 {
        signalled ? 128 + status : status
    }

    /// Runs `executable` to its end (see ``init(executable:_:environment:directory:discardingOutput:mergingErrors:)``).
    package static func run(
        executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        mergingErrors: Bool = false
    ) throws -> (status: Int32, output: Data, errors: Data) {
        try SpawnedProcess(executable: executable, arguments, environment: environment, directory: directory, mergingErrors: mergingErrors)
            .finish()
    }
}
#endif

#if os(Linux)
/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34) and `…_addchdir_np` (2.29), which
/// its Swift module does not export (they need `_GNU_SOURCE`): looked up once by name.
enum GlibcSpawnActions {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let closeFrom: CloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    static let changeDirectory: ChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<Function>(_ name: String) -> Function? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }
}
#endif
