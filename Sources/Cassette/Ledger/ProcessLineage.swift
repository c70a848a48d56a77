import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What this process can learn of the process that started it: the platform seam of the
/// ledger's ``TestRun``. Linux reads `/proc`; elsewhere the parent is unknown.
enum ProcessLineage {
    struct Parent: Sendable, Equatable {
        var pid: Int32
        /// When it started, in clock ticks since boot: with `pid`, names it uniquely.
        var startTicks: String
        var executable: String
        var arguments: [String]

        /// Whether it is `swift test` (the `swift-test` tool).
        var isSwiftTest: Bool { (executable as NSString).lastPathComponent == "swift-test" }
    }

    /// The parent process, when the platform says.
    static func parent() -> Parent? {
        #if os(Linux)
        let pid = getppid()
        guard pid > 1, let command = commandLine(of: pid), let executable = command.first else { return nil }
        return Parent(pid: pid, startTicks: startTicks(of: pid) ?? "0", executable: executable, arguments: Array(command.dropFirst()))
        #else
        return nil
        #endif
    }

    /// When this process started, as ``Parent/startTicks`` (Linux), or a time of day elsewhere.
    static func ownStartTicks() -> String {
        #if os(Linux)
        if let ticks = startTicks(of: getpid()) { return ticks }
        #endif
        return String(Int(ProcessStart.time.timeIntervalSince1970 * 1000))
    }

    #if os(Linux)
    private static func commandLine(of pid: Int32) -> [String]? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else { return nil }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Field 22 of `/proc/PID/stat`, counted after the command name (which may hold spaces and
    /// parentheses, so from its last `)`).
    private static func startTicks(of pid: Int32) -> String? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After ")": state is field 3, so field 22 is at index 19.
        return fields.count > 19 ? String(fields[19]) : nil
    }
    #endif
}

/// When this process first asked (close enough to its start for a run id).
enum ProcessStart {
    static let time = Date()
}
