import Cassette
import Foundation

/// Keeps timing-sensitive tests and load-heavy tests from running at the same moment.
///
/// Swift Testing runs suites in parallel, and every URLSession in the process shares one serial
/// queue (docs/Architecture.md, "Linux facts"): while a stress test keeps it busy with thousands of replays, a replay that
/// should take 0.3 s takes over a second. And Swift Testing runs tests on the cooperative pool,
/// one thread per core (two here): while CPU-heavy tests hold both, a timing test whose replay
/// ended on time cannot resume to read the clock (a 0.3 s timeout once measured 2.0 s in CI, the
/// length of the big codec round trips). Tests that measure time, and tests that create either
/// kind of load, run their bodies through ``run(_:)``, one at a time; everything else runs freely.
///
/// Everything else includes the start of a run, when Swift Testing starts hundreds of tests at
/// once: a stub's 0.4 s of delays measured 1.43 s in CI for the first timing test through the
/// gate. So ``run(_:)`` also waits, after taking its turn, until the pool answers a 10 ms sleep on
/// time (see ``settle()``).
public enum TimingIsolation {
    private static let gate = AsyncGate()

    /// What the upper bounds of timing assertions are multiplied by: `CASSETTE_TIMING_SCALE`, 1
    /// when unset. `Sanitizers/run` sets 4, since sanitized code runs several times slower; lower
    /// bounds (a replay must wait at least its latency) never change.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["CASSETTE_TIMING_SCALE"], let value = Double(text), value >= 1 else {
            return 1
        }
        return value
    }()

    /// Whether something a replay delivered at `replayed` seconds kept its recorded time,
    /// `recorded`: within 10 % of it, plus scheduling noise of 20 ms early at most and 60 ms late
    /// (times ``scale``). Lateness gets more, since a replay's first piece also waits for its task
    /// to reach the protocol on FoundationNetworking's shared queue while tests outside the gate
    /// run: a CI run measured a chunk recorded at 4 ms arriving at 25 ms. A replay that ignored the
    /// recorded gaps still fails: pieces recorded 100 ms apart would arrive far earlier than allowed.
    public static func isOnTime(_ replayed: TimeInterval, recorded: TimeInterval) -> Bool {
        let slack = 0.1 * recorded
        return replayed >= recorded - slack - 0.02 && replayed <= recorded + slack + 0.06 * scale
    }

    /// Runs `body` while no other test that went through here is running.
    public static func run<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        await gate.acquire()
        defer { gate.release() }
        await settle()
        return try await body()
    }

    /// Returns once three 10 ms sleeps in a row each resumed within 15 ms more, that is once the
    /// cooperative pool is not queueing work behind other tests; gives up after 5 s (the test then
    /// runs anyway, and a timing bound that fails says what it measured).
    static func settle() async {
        // Dispatch's monotonic clock, not `ContinuousClock` (macOS 13 / iOS 16; the package goes back to 12 / 15).
        let now = { DispatchTime.now().uptimeNanoseconds }
        let deadline = now() + 5_000_000_000
        var onTime = 0
        while onTime < 3, now() < deadline {
            let asleep = now()
            try? await Task.sleep(nanoseconds: 10_000_000)
            onTime = now() - asleep < 25_000_000 ? onTime + 1 : 0
        }
    }
}

#if canImport(Testing)
import Testing

/// Runs each test it applies to through ``TimingIsolation/run(_:)``, synchronous tests included:
/// `@Suite(.timingIsolated)` for a suite whose tests block a thread (a child process, a
/// command-line tool waiting on a semaphore) or keep the CPU busy.
public struct TimingIsolationTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // Once per test case; the suite itself (and a parameterized test as a whole) passes through.
        guard !test.isSuite, testCase != nil else {
            try await function()
            return
        }
        try await TimingIsolation.run { try await function() }
    }
}

extension Trait where Self == TimingIsolationTrait {
    /// Takes turns with the timing-sensitive and load-heavy tests; see ``TimingIsolation``.
    public static var timingIsolated: Self { TimingIsolationTrait() }
}
#endif
