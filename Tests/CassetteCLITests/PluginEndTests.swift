import Cassette
import CassetteFormats
import CassetteTestSupport
import CassetteTools
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

#if os(Linux) || os(macOS)  // starts the tool
/// A server started through a command plugin ends when the plugin ends, however it ends: the
/// tool's parent here is a stand-in for the plugin that starts it as SwiftPM's plugin does — with
/// `CASSETTE_PLUGIN` and `CASSETTE_PLUGIN_PID`, in a process group of its own (Foundation's
/// `Process` on Linux) — and is then stopped each way a user or a script stops
/// `swift package cassette-live serve`: Ctrl-C (SIGINT to the plugin's group, which the tool is
/// not in), SIGTERM or SIGKILL to the plugin. Each time the server stops within a second, its
/// port refuses connections, and the cassette holds what it recorded, as on a normal stop.
@Suite(.timingIsolated) struct PluginEndTests {
    /// The stand-in plugin: its own process group, then the tool in another, then waits for it;
    /// SIGINT and SIGTERM end it, as they end a plugin.
    static let plugin = """
        import os, signal, subprocess, sys
        # Ended by SIGINT and SIGTERM, as a plugin is: not ignored (a background job's SIGINT is),
        # not blocked (a test runner's threads may block them, and a child inherits the mask).
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
        os.setpgid(0, 0)
        env = dict(os.environ, CASSETTE_PLUGIN="cassette-live", CASSETTE_PLUGIN_PID=str(os.getpid()))
        child = subprocess.Popen(sys.argv[1:], env=env, preexec_fn=lambda: os.setpgid(0, 0))
        print(child.pid, flush=True)
        child.wait()
        """

    enum Ending: String, CaseIterable, CustomStringConvertible {
        case interruptToTheGroup, terminate, kill
        var description: String { rawValue }
    }

    @Test(arguments: Ending.allCases)
    func theServerEndsWithThePlugin(ending: Ending) throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let upstream = try LoopbackServer()
        defer { upstream.stop() }
        let file = scratch.file("through-plugin.json").path
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != "CI" && !$0.key.hasPrefix("CASSETTE_") }
        let plugin = try SpawnedProcess(
            executable: "/usr/bin/env",
            [
                "python3", "-c", Self.plugin, ChildProcess.url(of: "cassette").path, "serve", "--cassette", file, "--upstream",
                upstream.baseURL,
                "--mode", "once", "--port", "0",
            ],
            environment: environment)
        let lines = Self.lines(plugin.outputHandle, count: 2)
        let child = try #require(lines.first.flatMap { pid_t($0) }, "the stand-in printed \(lines)")
        let base = try #require(lines.last.flatMap { $0.hasPrefix("listening on ") ? String($0.dropFirst(13).prefix { $0 != " " }) : nil })

        let live = try SpawnedProcess.run(executable: "/usr/bin/env", ["curl", "-s", base + "/echo?via=plugin"])
        #expect(live.status == 0 && String(decoding: live.output, as: UTF8.self).contains(#""query":"via=plugin""#))

        // Never a hung suite: whatever still runs after 10 s is killed (and the test fails on time).
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            kill(child, SIGKILL)
            plugin.send(SIGKILL)
        }
        let started = Date()
        switch ending {
        case .interruptToTheGroup: kill(-plugin.processIdentifier, SIGINT)
        case .terminate: plugin.send(SIGTERM)
        case .kill: plugin.send(SIGKILL)
        }
        let ended = plugin.finish()  // the tool holds the stand-in's pipes until it exits
        let seconds = Date().timeIntervalSince(started)
        let errors = String(decoding: ended.errors, as: UTF8.self)
        #expect(seconds < 1.0, "the server ended \(seconds) s after the plugin was stopped")
        #expect(errors.contains("cassette serve: stopped by SIGTERM; 0 replayed, 1 recorded, 0 unmatched; saved"), "\(errors)")
        #expect(kill(child, 0) != 0 || Self.isZombie(child), "the tool (PID \(child)) still runs")
        let after = try SpawnedProcess.run(executable: "/usr/bin/env", ["curl", "-s", "--max-time", "2", base + "/echo"])
        #expect(after.status == 7, "curl exited \(after.status): 7 is \"could not connect\", the port freed")
        let saved = try CassetteFile.read(URL(fileURLWithPath: file))
        #expect(saved.interactions.map(\.request.url) == [upstream.baseURL + "/echo?via=plugin"])
    }

    /// The first `count` lines `handle` gives, without line ends.
    static func lines(_ handle: FileHandle, count: Int) -> [String] {
        var lines: [String] = []
        var line = Data()
        while lines.count < count {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty { break }
            if byte == Data([0x0A]) {
                lines.append(String(decoding: line, as: UTF8.self))
                line = Data()
            } else {
                line += byte
            }
        }
        return lines
    }

    /// Whether a process ended but was not yet reaped (a container's first process may never).
    static func isZombie(_ pid: pid_t) -> Bool {
        #if os(Linux)
        let status = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
        return status.split(separator: ")").last?.split(separator: " ").first == "Z"
        #else
        return false
        #endif
    }
}
#endif
