import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

// Apple: none — the queue exists only on Linux; the recording's inner session there uses an
// serial delegate queue of its own (LiveForwarder).
#if canImport(FoundationNetworking)
import FoundationNetworking

/// On Linux the live request's delegate runs where FoundationNetworking hands each callback over,
/// so a body's pieces are collected as they arrive instead of piling up (`MemoryTests` measures
/// what that does to the peak resident set).
@Suite struct InlineOperationQueueTests {
    /// Each block runs before `addOperation` returns, on the thread that added it, in order.
    @Test func runsEachBlockAtOnceOnTheCallingThread() {
        let queue = InlineOperationQueue()
        let ran = Locked<[String]>([])
        let caller = pthread_self()
        queue.addOperation { ran.withLock { $0.append("first on caller: \(pthread_equal(pthread_self(), caller) != 0)") } }
        ran.withLock { $0.append("between") }
        queue.addOperation { ran.withLock { $0.append("second") } }
        #expect(ran.withLock { $0 } == ["first on caller: true", "between", "second"])
        #expect(queue.operationCount == 0)
    }

    /// The forwarder's inner session uses it, and a large body recorded through it arrives whole
    /// and in order, live and replayed.
    @Test func theLiveDelegateRunsWhereFoundationNetworkingReports() async throws {
        #expect(LiveForwarder().delegateRunsInline)
        #expect(LiveForwarder(reportsOnClientQueue: true).delegateRunsInline)
        let expected = Data((0..<3_000_000).map { UInt8($0 % 251) })
        try await withScratchTape { scratch in
            let recording = try scratch.tape(mode: .all)
            let recorded = await Fetch.get(scratch.server.baseURL + "/bytes/3000000", on: recording.session)
            try recording.eject()
            let replaying = try scratch.tape(mode: .none)
            let replayed = await Fetch.get(scratch.server.baseURL + "/bytes/3000000", on: replaying.session)
            try replaying.eject()
            #expect(recorded.status == 200 && replayed.status == 200)
            #expect(recorded.body == expected)
            #expect(replayed.body == expected)
        }
    }
}
#endif
