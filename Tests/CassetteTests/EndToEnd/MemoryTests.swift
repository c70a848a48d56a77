import CassetteTestSupport
import Foundation
import Testing

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

    /// The peak resident set of a child recording six 12 MB bodies, each through a tape of its
    /// own that is ejected and saved, levels off after the second recording. Before (glibc's
    /// per-thread heaps kept what the recordings freed, and its rising mmap threshold put each
    /// body in a heap) it rose 17–29 MB from the second to the sixth; now 0–7 MB, the spread
    /// being how far FoundationNetworking's queue of pieces runs ahead of the recording. Under
    /// AddressSanitizer the child keeps no quarantine, which would hold every freed body.
    @Test func thePeakResidentSetOfLargeRecordingsLevelsOff() throws {
        let asan = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        let peaks = try withScratchTape { scratch -> [Int] in
            let (status, output) = try ChildProcess.run(
                "CassetteMemoryCheck", ["rss", scratch.url.path, "6", "12000000", "tape"],
                environment: ["ASAN_OPTIONS": asan + "quarantine_size_mb=0"])
            #expect(status == 0, "\(output)")
            return output.split(separator: "\n").filter { $0.hasPrefix("RSS ") }.compactMap { Int($0.split(separator: " ")[2]) }
        }
        #expect(peaks.count == 6)
        guard peaks.count == 6 else { return }
        #expect(peaks[5] - peaks[1] < 12_000_000, "peak resident set after each recording, in bytes: \(peaks)")
    }
}
