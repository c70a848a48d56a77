import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests decided on the ``DecisionQueue`` while others wait for FoundationNetworking's shared
/// queue: decided in the order they started, and a request that ends before its decision takes
/// nothing from the cassette. (That what a caller observes is the same as inline, through every
/// client API, is `TaskKindsTests`' fourth run.)
///
/// The counts that send a request aside are FoundationNetworking's (a protocol made in
/// `resume()`, its `startLoading` queued on the task's work queue), and these tests wait for that
/// queue to pass a task's `startLoading`.
// Apple: none — its loading system has no shared queue, so no request is counted as waiting and
// none is decided aside; TaskKindsTests' fourth run, which counts one by hand, runs there too.
#if canImport(FoundationNetworking)
@Suite struct DecisionQueueTests {
    static let url = "https://api.example.com/next"

    /// A cassette answering `GET /next` with "1", then "2".
    static func cassette(in scratch: ScratchTape) throws -> URL {
        let file = scratch.file("next.json")
        let interactions = ["1", "2"].map { text in
            Interaction(request: .init(method: "GET", url: url), response: .init(status: 200, body: .init(text: text)))
        }
        try JSONCassetteCodec.encode(CassetteDocument(interactions: interactions)).write(to: file)
        return file
    }

    /// What a completion handler heard.
    struct Heard: Sendable {
        var body: String?
        var code: URLError.Code?
    }

    /// Starts a request for ``url`` on `session`; `done` is signalled with what it heard.
    static func start(on session: URLSession, into heard: Locked<[Heard]>, done: DispatchSemaphore) throws -> URLSessionTask {
        let task = session.dataTask(with: try #require(URL(string: url))) { data, _, error in
            heard.withLock { $0.append(Heard(body: data.map { String(decoding: $0, as: UTF8.self) }, code: (error as? URLError)?.code)) }
            done.signal()
        }
        task.resume()
        return task
    }

    /// Returns once `task`'s `startLoading` has run: FoundationNetworking's `priority` getter runs
    /// on the task's work queue, after the `startLoading` that `resume()` queued there.
    static func waitForStartLoading(of task: URLSessionTask) {
        _ = task.priority
    }

    /// Starts a request while another is counted as waiting behind it, so that it is decided
    /// aside, and returns once its `startLoading` ran (the count back as it was).
    static func startAside(on session: URLSession, into heard: Locked<[Heard]>, done: DispatchSemaphore) throws -> URLSessionTask {
        DecisionQueue.shared.protocolMade()
        defer { DecisionQueue.shared.protocolStarted() }
        let task = try start(on: session, into: heard, done: done)
        waitForStartLoading(of: task)
        return task
    }

    /// While a request's decision is being made aside (held in `beforeReplay`), the next request
    /// is decided aside too, after it, though nothing else waits to start by then: decided inline,
    /// it would overtake the first. Each gets its recording in turn.
    @Test func aRequestStartingWhileOneIsDecidedAsideFollowsIt() async throws {
        try await TimingIsolation.run {
            try withScratchTape { scratch in
                let deciding = DispatchSemaphore(value: 0)
                let release = DispatchSemaphore(value: 0)
                let decidedAside = Locked<[Bool]>([])
                let tape = try Tape(
                    file: try Self.cassette(in: scratch), mode: .none,
                    options: .init(beforeReplay: { interaction in
                        let first = decidedAside.withLock { seen in
                            seen.append(DecisionQueue.shared.isCurrent)
                            return seen.count == 1
                        }
                        if first {
                            deciding.signal()
                            _ = release.wait(timeout: .now() + 10)
                        }
                        return interaction
                    }), environment: .tests)
                defer { _ = try? tape.eject() }
                let heard = Locked<[Heard]>([])
                let done = DispatchSemaphore(value: 0)
                _ = try Self.startAside(on: tape.session, into: heard, done: done)
                #expect(deciding.wait(timeout: .now() + 10) == .success, "the first request never reached beforeReplay")
                let second = try Self.start(on: tape.session, into: heard, done: done)
                Self.waitForStartLoading(of: second)
                release.signal()
                #expect(done.wait(timeout: .now() + 10) == .success)
                #expect(done.wait(timeout: .now() + 10) == .success)
                #expect(heard.withLock { $0.map(\.body) } == ["1", "2"])
                #expect(decidedAside.withLock { $0 } == [true, true])
            }
        }
    }

    /// A request cancelled while its decision waits takes no recording: the next request gets the
    /// first, and the report counts both requests and one replay.
    @Test func aRequestCancelledBeforeItsDecisionTakesNothing() async throws {
        try await TimingIsolation.run {
            try withScratchTape { scratch in
                let tape = try Tape(file: try Self.cassette(in: scratch), mode: .none, environment: .tests)
                let blocker = DispatchSemaphore(value: 0)
                DecisionQueue.shared.decide { _ = blocker.wait(timeout: .now() + 10) }
                let heard = Locked<[Heard]>([])
                let done = DispatchSemaphore(value: 0)
                let cancelled = try Self.startAside(on: tape.session, into: heard, done: done)
                cancelled.cancel()
                let ended = done.wait(timeout: .now() + 10)
                blocker.signal()
                #expect(ended == .success, "the cancelled request did not end while its decision waited")
                // Past the cancelled request's turn on the queue.
                let drained = DispatchSemaphore(value: 0)
                DecisionQueue.shared.decide { drained.signal() }
                #expect(drained.wait(timeout: .now() + 10) == .success)
                _ = try Self.start(on: tape.session, into: heard, done: done)
                #expect(done.wait(timeout: .now() + 10) == .success)
                let report = try tape.eject()
                let outcomes = heard.withLock { $0 }
                #expect(outcomes.map(\.code) == [.cancelled, nil])
                #expect(outcomes.map(\.body) == [nil, "1"])
                #expect(report.requests == 2)
                #expect(report.replayed == 1)
            }
        }
    }

    /// Ejecting the tape cancels its own session's request whose decision waits, as it cancels a
    /// replay that waits for its latency (`SessionEndTests`).
    @Test func ejectingCancelsARequestWaitingForItsDecision() async throws {
        try await TimingIsolation.run {
            try withScratchTape { scratch in
                let tape = try Tape(file: try Self.cassette(in: scratch), mode: .none, environment: .tests)
                let blocker = DispatchSemaphore(value: 0)
                DecisionQueue.shared.decide { _ = blocker.wait(timeout: .now() + 10) }
                defer { blocker.signal() }
                let heard = Locked<[Heard]>([])
                let done = DispatchSemaphore(value: 0)
                _ = try Self.startAside(on: tape.session, into: heard, done: done)
                _ = try tape.eject()
                #expect(done.wait(timeout: .now() + 5) == .success, "ejecting did not end the request whose decision waited")
                #expect(heard.withLock { $0.map(\.code) } == [.cancelled])
            }
        }
    }
}
#endif
