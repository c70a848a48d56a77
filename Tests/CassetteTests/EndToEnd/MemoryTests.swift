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
}
