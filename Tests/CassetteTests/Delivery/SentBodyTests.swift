import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// While recording, the caller's upload progress is the live upload's, and whatever the live
/// upload had not reported when the server answered is reported before the answer — never twice.
@Suite struct SentBodyTests {
    final class Progress: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var calls: [String] = []
        var reported: [String] { lock.withLock { calls } }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
            totalBytesExpectedToSend: Int64
        ) {
            lock.withLock { calls.append("\(bytesSent) → \(totalBytesSent) of \(totalBytesExpectedToSend)") }
        }
    }

    static func reported(_ steps: (SentBody) -> Void, bodyCount: Int = 100_000) async -> [String] {
        let progress = Progress()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: progress, delegateQueue: queue)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:1/upload")!)
        request.httpMethod = "POST"
        let task = session.dataTask(with: request)
        // FoundationNetworking registers a new task's delegate on its work queue, a moment later;
        // its task registry may be read only there (as the library reads it, from startLoading).
        guard let workQueue = TaskInternals.workQueue(of: task) else {
            Issue.record("FoundationNetworking's task has no work queue")
            return []
        }
        for _ in 0..<200 where workQueue.sync(execute: { TaskInternals.progressDelegate(of: task) }) == nil {
            try? await Task.sleep(nanoseconds: 5_000_000)
        }
        workQueue.sync {
            steps(SentBody(RequestBody(data: Data(count: bodyCount), form: .request), firstHop: true, task: task, known: nil))
        }
        await withCheckedContinuation { continuation in queue.addOperation { continuation.resume() } }
        return progress.reported
    }

    /// A delegate given to `data(for:delegate:)` hears the upload's progress, live, while
    /// recording and replaying alike; a request without one is answered as well. Live,
    /// each platform's loading reports its own pieces, ending at the body's length; a replay
    /// reports libcurl's 64 KiB pieces (Apple's loading never reports progress for a request a
    /// protocol answers, so Cassette does, the same way).
    @Test func aTaskDelegateHearsTheUploadLiveRecordedAndReplayed() async throws {
        try await withScratchTape { scratch in
            var post = URLRequest(url: try #require(URL(string: scratch.url("/status/201"))))
            post.httpMethod = "POST"
            post.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
            post.httpBody = Data(count: 100_000)
            /// The progress `session` reports for the upload to a delegate of the task's own (none when
            /// `delegate` is nil, which is asked for to show that the answer comes all the same).
            /// FoundationNetworking does not order a task delegate's progress calls with the answer
            /// of `data(for:delegate:)`, live either (on a busy machine the answer comes first), so
            /// the reports are read once the whole body has been reported, waiting up to 10 s.
            func upload(on session: URLSession, delegate: Progress? = Progress()) async throws -> [String] {
                let (data, response) = try await session.data(for: post, delegate: delegate)
                #expect((response as? HTTPURLResponse)?.statusCode == 201 && data == Data("status 201".utf8))
                guard let delegate else { return [] }
                for _ in 0..<1000 where delegate.reported.last?.hasSuffix(" → 100000 of 100000") != true {
                    try await Task.sleep(nanoseconds: 10_000_000)
                }
                return delegate.reported
            }
            let live = try await upload(on: URLSession(configuration: .ephemeral))
            #expect(live.last?.hasSuffix(" → 100000 of 100000") == true, "\(live)")
            let recorder = try scratch.tape(mode: .all)
            let recorded = try await upload(on: recorder.session)
            #expect(recorded.last?.hasSuffix(" → 100000 of 100000") == true, "\(recorded)")
            _ = try await upload(on: recorder.session, delegate: nil)
            try recorder.eject()

            let player = try scratch.tape(mode: .none)
            let replayed = try await upload(on: player.session)
            #expect(replayed == ["65536 → 65536 of 100000", "34464 → 100000 of 100000"], "replayed \(replayed), live \(live)")
            _ = try await upload(on: player.session, delegate: nil)
            #expect(try player.eject().replayed == 2)
        }
    }

    @Test func whatTheLiveUploadReportedIsPassedOnAndTheRestFollowsBeforeTheAnswer() async {
        let calls = await Self.reported { sent in
            sent.report(piece: 65_536, total: 65_536, expected: 100_000)
            sent.reportTheRest()  // the server answered
            sent.report(piece: 34_464, total: 100_000, expected: 100_000)  // libcurl, late
        }
        #expect(calls == ["65536 → 65536 of 100000", "34464 → 100000 of 100000"])
    }

    @Test func aBodyTheLiveUploadNeverReportedIsReportedInLibcurlsPieces() async {
        let calls = await Self.reported { sent in sent.reportTheRest() }
        #expect(calls == ["65536 → 65536 of 100000", "34464 → 100000 of 100000"])
    }

    @Test func aFullyReportedBodyIsNotReportedAgain() async {
        let calls = await Self.reported { sent in
            sent.report(piece: 65_536, total: 65_536, expected: 100_000)
            sent.report(piece: 34_464, total: 100_000, expected: 100_000)
            sent.reportTheRest()
            sent.reportTheRest()
        }
        #expect(calls == ["65536 → 65536 of 100000", "34464 → 100000 of 100000"])
    }
}
