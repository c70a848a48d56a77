import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A delayed replay can be cancelled at any moment, and is cut short by the request's timeout,
/// as a live request would be (docs/Architecture.md, "Linux facts": FoundationNetworking enforces neither for a protocol).
@Suite struct CancellationAndTimeoutTests {
    static let url = "https://api.example.com/slow"

    /// A cassette answering `url` with a 1 KB body, its head at `firstByte` and its end at `duration`.
    static func slowCassette(in scratch: ScratchTape, firstByte: Double, duration: Double) throws -> URL {
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(method: "GET", url: url),
                response: .init(status: 200, headers: ["Content-Type": "text/plain"], body: .init(Data(repeating: 0x61, count: 1024))),
                timing: .init(firstByte: firstByte, duration: duration))
        ])
        let file = scratch.file("slow.json")
        try JSONCassetteCodec.encode(document).write(to: file)
        return file
    }

    /// 200 replays waiting 2 s each are cancelled after 0.2 s: every caller hears `.cancelled`
    /// within half a second of the cancel (a quarter of the wait: a cancel that waited for the
    /// replay's timer would take 1.8 s), ten times over, and nothing else arrives afterwards.
    /// The bound is generous: on a loaded CI machine the slowest of the 200 once took 112 ms.
    @Test func cancellingTwoHundredDelayedReplaysAnswersEachAtOnce() async throws {
        try await TimingIsolation.run {
            try await withScratchTape { scratch in
                // 2 s, longer under a sanitizer: a replay must still be waiting when its cancel arrives.
                let wait = 2 * TimingIsolation.scale
                let file = try Self.slowCassette(in: scratch, firstByte: wait, duration: wait)
                for repetition in 1...10 {
                    let tape = try Tape(
                        file: file, mode: .none, options: .init(allowsRepeatedReplays: true, latency: .recorded), environment: .tests)
                    let outcomes = Locked<[(code: URLError.Code?, lateBy: TimeInterval, hadResponse: Bool)]>([])
                    let cancelledAt = Locked<Date?>(nil)
                    let group = DispatchGroup()
                    var tasks: [URLSessionDataTask] = []
                    for _ in 0..<200 {
                        group.enter()
                        let task = tape.session.dataTask(with: try #require(URL(string: Self.url))) { _, response, error in
                            let late = Date().timeIntervalSince(cancelledAt.withLock { $0 } ?? Date())
                            outcomes.withLock { $0.append(((error as? URLError)?.code, late, response != nil)) }
                            group.leave()
                        }
                        tasks.append(task)
                        task.resume()
                    }
                    try await Task.sleep(nanoseconds: 200_000_000)
                    cancelledAt.withLock { $0 = Date() }
                    for task in tasks { task.cancel() }
                    await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
                    let results = outcomes.withLock { $0 }
                    #expect(results.count == 200)
                    #expect(results.allSatisfy { $0.code == .cancelled && !$0.hadResponse }, "repetition \(repetition)")
                    let slowest = results.map(\.lateBy).max() ?? 0
                    #expect(slowest < 0.5 * TimingIsolation.scale, "repetition \(repetition): the slowest cancellation took \(slowest) s")
                    _ = try tape.eject()
                }
                // Past the replays' wait, a timer that survived a cancel would call the client now and crash.
                try await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
            }
        }
    }

    /// A 2 s replay with a 0.5 s `timeoutInterval` fails `.timedOut` at about 0.5 s, through each API.
    @Test(arguments: FetchStyle.allCases)
    func aReplaySlowerThanTheRequestTimeoutTimesOut(style: FetchStyle) async throws {
        try await TimingIsolation.run {
            try await withScratchTape { scratch in
                let tape = try Tape(
                    file: try Self.slowCassette(in: scratch, firstByte: 2, duration: 2), mode: .none,
                    options: .init(latency: .recorded), environment: .tests)
                let session = Fetch.session(of: tape, style: style)
                var request = URLRequest(url: try #require(URL(string: Self.url)))
                request.timeoutInterval = 0.5
                let start = Date()
                let fetched = await Fetch.run(request, on: session, style: style)
                let seconds = Date().timeIntervalSince(start)
                #expect(fetched.errorCode == .timedOut)
                #expect(fetched.status == nil)
                #expect(seconds >= 0.45 && seconds <= 1.2 * TimingIsolation.scale, "took \(seconds) s")
                #expect(fetched.errorDescription?.contains("waits longer than the request's timeout of 0.5 s") == true, "\(fetched)")
                _ = try tape.eject()
            }
        }
    }

    /// The configuration's `timeoutIntervalForRequest` applies when the request keeps the
    /// default timeout; and the wait that counts is the one between arrivals: here the head comes
    /// at once and the body, in one piece, 2 s later.
    @Test func theConfigurationTimeoutAppliesBetweenArrivals() async throws {
        try await TimingIsolation.run {
            try await withScratchTape { scratch in
                let tape = try Tape(
                    file: try Self.slowCassette(in: scratch, firstByte: 0.1, duration: 2.1), mode: .none,
                    options: .init(latency: .recorded), environment: .tests)
                let configuration = URLSessionConfiguration.ephemeral
                configuration.timeoutIntervalForRequest = 0.5
                tape.configure(configuration)
                let start = Date()
                let fetched = await Fetch.get(Self.url, on: URLSession(configuration: configuration))
                let seconds = Date().timeIntervalSince(start)
                #expect(fetched.errorCode == .timedOut)
                #expect(seconds >= 0.55 && seconds <= 1.3 * TimingIsolation.scale, "took \(seconds) s")
                _ = try tape.eject()
            }
        }
    }

    /// A replay within the timeout completes.
    @Test func aReplayWithinTheTimeoutCompletes() async throws {
        try await withScratchTape { scratch in
            let tape = try Tape(
                file: try Self.slowCassette(in: scratch, firstByte: 0.2, duration: 0.3), mode: .none,
                options: .init(latency: .recorded), environment: .tests)
            var request = URLRequest(url: try #require(URL(string: Self.url)))
            request.timeoutInterval = 1
            let fetched = await Fetch.run(request, on: tape.session, style: .async)
            #expect(fetched.status == 200)
            #expect(fetched.body.count == 1024)
            _ = try tape.eject()
        }
    }
}
