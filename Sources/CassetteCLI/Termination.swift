import Cassette
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM for the commands that must save before they exit (`serve`, `record`,
/// `play`).
///
/// `main` calls ``hold()`` before anything else runs, so the two signals are blocked in the main
/// thread and in every thread started after it (threads inherit the mask): a signal sent at any
/// moment after the process starts — before the socket is bound, between "listening on" and the
/// first request, in the middle of an exchange — stays pending until the command takes it with
/// ``wait()``, instead of killing the process with its recording unsaved or being lost. A
/// handler installed after the start (what `serve` did) leaves a window in which the default
/// action kills the process.
///
/// When the tool runs inside a test process, nothing is held and the commands do not wait.
enum Termination {
    private static let held = Locked(false)

    /// The signals a command saves on.
    private static var signals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    /// Whether `command` (the tool's first argument) saves on a signal, so `main` holds them for it.
    static func handles(_ command: String?) -> Bool {
        ["serve", "record", "play"].contains(command ?? "")
    }

    /// Blocks SIGINT and SIGTERM in this thread and in every thread it starts from now on. Call
    /// it first thing in `main`, before any thread exists.
    static func hold() {
        var set = signals
        guard pthread_sigmask(SIG_BLOCK, &set, nil) == 0 else { return }
        held.withLock { $0 = true }
    }

    /// Whether ``hold()`` was called: the process's signals are the command's to take.
    static var isHeld: Bool { held.withLock { $0 } }

    /// Waits until SIGINT or SIGTERM is pending (at once when one already is) and returns its
    /// name, `"SIGINT"` or `"SIGTERM"`.
    static func wait() -> String {
        var set = signals
        var number: Int32 = 0
        while sigwait(&set, &number) != 0 {}
        return number == SIGINT ? "SIGINT" : "SIGTERM"
    }

    /// Under a command plugin (`CASSETTE_PLUGIN` set), ends the tool with its parent, the plugin:
    /// once the parent is gone the tool sends itself SIGTERM, which the command takes as on a
    /// normal stop (it saves, closes its port, reports). Foundation's `Process` on Linux starts
    /// the tool in a process group of its own, so Ctrl-C (SIGINT to the terminal's group) ends
    /// `swift package` and the plugin but never reaches the tool; and a plugin killed outright
    /// can pass nothing on. The tool asks who its parent is every `interval` seconds: a parent
    /// that ended leaves the tool to another (init, or a subreaper), and `getppid()` changes. The
    /// plugin names its process in `CASSETTE_PLUGIN_PID`.
    /// Does nothing when the signals are not held (the tool runs inside a test).
    static func endWithParent(environment: [String: String], interval: TimeInterval = 0.1) {
        guard isHeld, environment[PluginAccess.environmentVariable] != nil else { return }
        // The plugin says who it is, so a parent that ended before this line is seen too.
        let parent = environment[PluginAccess.parentVariable].flatMap { pid_t($0) } ?? getppid()
        let thread = Thread {
            while getppid() == parent { Thread.sleep(forTimeInterval: interval) }
            kill(getpid(), SIGTERM)
        }
        thread.name = "cassette.parent-watch"
        thread.start()
    }

    /// Calls `handler` with the signal's name, on a thread of its own, when SIGINT or SIGTERM
    /// arrives; does nothing when the signals are not held (the tool runs inside a test).
    static func onSignal(_ handler: @escaping @Sendable (String) -> Void) {
        guard isHeld else { return }
        let thread = Thread { handler(wait()) }
        thread.name = "cassette.signals"
        thread.start()
    }
}
