import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How Cassette ends the sessions it makes (`URLSession.cancelTasksAndInvalidate()`): what is in
/// flight is cancelled and the session becomes invalid, as `invalidateAndCancel()` does — and a
/// tape ejected the moment its last request answered never crashes the process (docs/Architecture.md,
/// "Linux facts": FoundationNetworking's `invalidateAndCancel()` reads the task registry off its queue).
@Suite struct SessionEndTests {
    /// Says when the session became invalid.
    final class InvalidationWatch: NSObject, URLSessionDelegate, @unchecked Sendable {
        let invalidated = DispatchSemaphore(value: 0)
        func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) { invalidated.signal() }
    }

    /// Three replays waiting 30 s are cancelled at once, each with `URLError.cancelled` and no
    /// response, and the session's delegate hears it became invalid. The wait is long so that no
    /// replay can end before its cancel on a loaded machine (under the address sanitizer, with a
    /// 2 s wait, all three once answered first); "at once" is well under that wait.
    @Test func whatIsInFlightIsCancelledAndTheSessionInvalidated() async throws {
        try await withScratchTape { scratch in
            let file = try CancellationAndTimeoutTests.slowCassette(in: scratch, firstByte: 30, duration: 30)
            let tape = try Tape(
                file: file, mode: .none, options: .init(allowsRepeatedReplays: true, latency: .recorded), environment: .tests)
            defer { _ = try? tape.eject() }
            let watch = InvalidationWatch()
            let session = tape.makeSession(configuration: .ephemeral, delegate: watch, delegateQueue: nil)
            let outcomes = Locked<[(code: URLError.Code?, hadResponse: Bool)]>([])
            let group = DispatchGroup()
            for _ in 0..<3 {
                group.enter()
                session.dataTask(with: try #require(URL(string: CancellationAndTimeoutTests.url))) { _, response, error in
                    outcomes.withLock { $0.append(((error as? URLError)?.code, response != nil)) }
                    group.leave()
                }.resume()
            }
            // Cancelled while their replays wait: once all three reached the tape.
            let deadline = Date().addingTimeInterval(10)
            while tape.reportSoFar.replayed < 3, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
            #expect(tape.reportSoFar.replayed == 3)
            let started = Date()
            session.cancelTasksAndInvalidate()
            #expect(group.wait(timeout: .now() + 10) == .success, "the cancelled tasks did not end within 10 s of a 30 s replay")
            #expect(Date().timeIntervalSince(started) < 10)
            #expect(watch.invalidated.wait(timeout: .now() + 5) == .success, "the session's delegate never heard it became invalid")
            let results = outcomes.withLock { $0 }
            #expect(results.count == 3)
            #expect(results.allSatisfy { $0.code == .cancelled && !$0.hadResponse }, "\(results)")
        }
    }

    /// 2,000 tapes, each ejected the instant its one request answered: every answer whole, and
    /// the process alive. With `invalidateAndCancel()` the suite benchmark died twice in about
    /// 125 quick runs (`Collection.map` in it, racing the registry's removal of the task just finished);
    /// a race, so this can pass without the fix, but it cannot pass with a crash.
    @Test func tapesEjectedTheMomentTheyAnswerNeverCrash() async throws {
        try await withScratchTape { scratch in
            let url = try #require(URL(string: "https://api.example.com/quick"))
            let file = scratch.file("quick.json")
            try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(method: "GET", url: url.absoluteString), response: .init(status: 200, body: .init(text: "ok")))
                ])
            ).write(to: file)
            for _ in 0..<2_000 {
                let tape = try Tape(file: file, mode: .none, environment: .tests)
                let (data, response) = try await tape.session.data(from: url)
                try tape.eject()
                #expect(data == Data("ok".utf8))
                #expect((response as? HTTPURLResponse)?.statusCode == 200)
            }
        }
    }
}
