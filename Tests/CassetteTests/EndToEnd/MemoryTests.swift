import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Measures child processes, which iOS cannot start: Linux and macOS only.
#if os(Linux) || os(macOS)

/// Nothing Cassette allocates for a request outlives it: replaying many requests and recording
/// big bodies leaves the heap where it was. Measured in a fresh child process
/// (`Tests/CassetteMemoryCheck`), so that other tests running in parallel do not count; the
/// bounds are generous, a leak is not (before the fix: about 2.1 KB per replay and 6 MB per
/// 5 MB recording).
@Suite(.timingIsolated) struct MemoryTests {
    /// The `HEAP <stage> <bytes>` lines the child printed.
    static func heap(_ arguments: [String]) throws -> [String: Int] {
        try withScratchTape { scratch in
            let (status, output) = try ChildProcess.run("CassetteMemoryCheck", [arguments[0], scratch.url.path] + arguments.dropFirst())
            #expect(status == 0, "\(output)")
            var stages: [String: Int] = [:]
            for line in output.split(separator: "\n") where line.hasPrefix("HEAP ") {
                let fields = line.split(separator: " ")
                if fields.count == 3, let bytes = Int(fields[2]) { stages[String(fields[1])] = bytes }
            }
            return stages
        }
    }

    @Test func tenThousandReplaysLeaveTheHeapWhereItWas() throws {
        let stages = try Self.heap(["replay", "10000"])
        let baseline = try #require(stages["baseline"])
        let after = try #require(stages["after"])
        // 10,000 replays at the old 2.1 KB each would add 21 MB.
        #expect(after - baseline < 2_000_000, "the heap grew by \(after - baseline) bytes over 10,000 replays")
    }

    @Test func tenRecordingsOfFiveMegabytesAreReleasedWhenEjected() throws {
        let stages = try Self.heap(["record", "10", "5000000"])
        let baseline = try #require(stages["baseline"])
        let after = try #require(stages["after"])
        // Less than one body: ten kept bodies would add 50 MB or more.
        #expect(after - baseline < 5_000_000, "the heap grew by \(after - baseline) bytes over 10 recordings of 5 MB")
    }

    /// The peak resident set of a child recording eight 20 MB bodies, each through a tape of its
    /// own that is ejected and saved, levels off after the second recording: each further one adds
    /// under 2 MB. Before, it rose 6–12 MB from the second to the eighth, in steps up to 5.6 MB
    /// (and, before HeapTrim fixed glibc's mmap threshold, 19–28 MB in steps up to 15 MB):
    /// FoundationNetworking queued a loopback body's pieces behind libcurl's reads, a different
    /// number each time, before the delegate collected them. Now the delegate collects each piece
    /// where FoundationNetworking hands it over (`InlineOperationQueue`), and the loopback server
    /// makes `/bytes/N` a piece at a time: a 20 MB body held whole by the server (in this same
    /// process) was freed when its last bytes fit in the sockets' buffers, a moment that varied by
    /// megabytes, and with the machine busy it alone made steps of up to 2.7 MB. Measured with both
    /// cores busy (two `yes` processes): 26 runs, no step over 0.47 MB (with the delegate on a
    /// queue of its own instead: up to 0.93 MB). (Through a plain `URLSession` the same downloads
    /// climb 74 → 118–173 MB.)
    ///
    /// Under a sanitizer (whose allocator, not glibc's, keeps freed chunks in caches of its own
    /// and is not trimmed) the child keeps no quarantine, which would hold every freed body, and
    /// the bound is what a kept body would break: the six recordings after the second add less
    /// than one body between them.
    ///
    /// macOS: the same bounds over `task_info`'s peak (`HeapUsage.residentSet`), not yet run on a
    /// Mac (docs/AppleVerification.md); its allocator, not glibc's, decides when freed pages go.
    @Test func thePeakResidentSetOfLargeRecordingsLevelsOff() throws {
        let environment = ProcessInfo.processInfo.environment
        let sanitized = environment["ASAN_OPTIONS"] ?? environment["TSAN_OPTIONS"]
        let asan = environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        let peaks = try withScratchTape { scratch -> [Int] in
            let (status, output) = try ChildProcess.run(
                "CassetteMemoryCheck", ["rss", scratch.url.path, "8", "20000000", "tape"],
                environment: ["ASAN_OPTIONS": asan + "quarantine_size_mb=0"])
            #expect(status == 0, "\(output)")
            return output.split(separator: "\n").filter { $0.hasPrefix("RSS ") }.compactMap { Int($0.split(separator: " ")[2]) }
        }
        #expect(peaks.count == 8)
        guard peaks.count == 8 else { return }
        let steps = zip(peaks.dropFirst(2), peaks.dropFirst()).map { $0 - $1 }
        let shown = "peak resident set after each recording, in bytes: \(peaks); steps after the second: \(steps)"
        if sanitized == nil {
            #expect(steps.allSatisfy { $0 < 2_000_000 }, "\(shown)")
        } else {
            #expect(peaks[7] - peaks[1] < 20_000_000, "\(shown)")
        }
    }

    /// A large body recorded through the inline delegate is observed as it is live, recorded and
    /// replayed: a small and a 2 MB response compared field by field (status, header fields, body
    /// bytes, URL, error) through the async API, a completion handler and a delegate session.
    @Test(arguments: FetchStyle.allCases) func aLargeBodyIsAsFaithfulAsASmallOne(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let urls = try ["/bytes/2000", "/bytes/2000000"].map { try #require(URL(string: scratch.server.baseURL + $0)) }
            func session(of tape: Tape?) throws -> URLSession {
                style == .delegate
                    ? Fetch.delegateSession { tape?.configure($0) } : tape?.session ?? URLSession(configuration: .ephemeral)
            }
            let plain = try session(of: nil)
            defer { plain.invalidateAndCancel() }
            var live: [Fetched] = []
            for url in urls { live.append(await Fetch.run(URLRequest(url: url), on: plain, style: style)) }
            let recording = try scratch.tape(mode: .all)
            var recorded: [Fetched] = []
            let recordingSession = try session(of: recording)
            for url in urls { recorded.append(await Fetch.run(URLRequest(url: url), on: recordingSession, style: style)) }
            try recording.eject()
            let replaying = try scratch.tape(mode: .none)
            var replayed: [Fetched] = []
            let replayingSession = try session(of: replaying)
            for url in urls { replayed.append(await Fetch.run(URLRequest(url: url), on: replayingSession, style: style)) }
            try replaying.eject()
            func fields(_ fetched: Fetched) -> String {
                "\(fetched.status ?? 0) \(fetched.headers.filter { $0.key != "Date" }.sorted { $0.key < $1.key }) \(fetched.body.count) "
                    + "\(fetched.body.hashValue) \(fetched.url ?? "") \(String(describing: fetched.errorCode))"
            }
            #expect(live.map(\.body.count) == [2000, 2_000_000])
            #expect(recorded.map(fields) == live.map(fields))
            #expect(replayed.map(fields) == live.map(fields))
        }
    }
}
#endif
