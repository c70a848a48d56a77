import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What this process can learn of the process that started it: the platform seam of the
/// ledger's ``TestRun``. Linux reads `/proc`; Apple platforms ask `sysctl` (`KERN_PROC_PID` for
/// the parent and its start, `KERN_PROCARGS2` for its command line), so that on macOS, where
/// `swift test` runs XCTest and Swift Testing in two processes, both belong to one run.
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
        #if os(Linux) || canImport(Darwin)
        let pid = getppid()
        guard pid > 1, let command = commandLine(of: pid), let executable = command.first else { return nil }
        return Parent(pid: pid, startTicks: startTicks(of: pid) ?? "0", executable: executable, arguments: Array(command.dropFirst()))
        #else
        return nil
        #endif
    }

    /// When this process started, as ``Parent/startTicks``, or a time of day where the platform
    /// does not say.
    static func ownStartTicks() -> String {
        #if os(Linux) || canImport(Darwin)
        if let ticks = startTicks(of: getpid()) { return ticks }
        #endif
        return String(Int(ProcessStart.time.timeIntervalSince1970 * 1000))
    }

    /// The command line in an answer of `sysctl` `KERN_PROCARGS2` (Apple platforms): the argument
    /// count (a 32-bit integer in the machine's order), the executable's path, NUL padding, then
    /// that many NUL-terminated arguments, the first of them `argv[0]` (the environment follows,
    /// and is not read). Nil when the answer is cut short. Pure, so it is tested on every platform.
    static func commandLine(fromProcessArguments bytes: [UInt8]) -> [String]? {
        guard bytes.count >= 4 else { return nil }
        let count = Int(bytes.withUnsafeBytes { $0.loadUnaligned(as: Int32.self) })
        guard count > 0 else { return nil }
        var index = 4
        while index < bytes.count, bytes[index] != 0 { index += 1 }  // the executable's path
        while index < bytes.count, bytes[index] == 0 { index += 1 }  // its padding
        var arguments: [String] = []
        while arguments.count < count, index < bytes.count {
            let start = index
            while index < bytes.count, bytes[index] != 0 { index += 1 }
            arguments.append(String(decoding: bytes[start..<index], as: UTF8.self))
            index += 1
        }
        return arguments.count == count ? arguments : nil
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
    #elseif canImport(Darwin)
    private static func commandLine(of pid: Int32) -> [String]? {
        var name: [Int32] = [CTL_KERN, KERN_PROCARGS2, pid]
        var size = 0
        guard sysctl(&name, u_int(name.count), nil, &size, nil, 0) == 0, size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard sysctl(&name, u_int(name.count), &bytes, &size, nil, 0) == 0 else { return nil }
        return commandLine(fromProcessArguments: Array(bytes.prefix(size)))
    }

    /// When `pid` started (`kp_proc.p_starttime`), as seconds and microseconds: with `pid`, names it uniquely.
    private static func startTicks(of pid: Int32) -> String? {
        var name: [Int32] = [CTL_KERN, KERN_PROC, KERN_PROC_PID, pid]
        var info = kinfo_proc()
        var size = MemoryLayout<kinfo_proc>.stride
        guard sysctl(&name, u_int(name.count), &info, &size, nil, 0) == 0, size > 0 else { return nil }
        let start = info.kp_proc.p_un.__p_starttime
        return "\(start.tv_sec).\(start.tv_usec)"
    }
    #endif
}

/// When this process first asked (close enough to its start for a run id).
enum ProcessStart {
    static let time = Date()
}
