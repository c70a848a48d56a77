import Cassette
import Foundation

/// Keeps timing-sensitive tests and load-heavy tests from running at the same moment.
///
/// Swift Testing runs suites in parallel, and every URLSession in the process shares one serial
/// queue (DESIGN §5): while a stress test keeps it busy with thousands of replays, a replay that
/// should take 0.3 s takes over a second. Tests that measure time, and tests that create that
/// load, run their bodies through ``run(_:)``, one at a time; everything else runs freely.
public enum TimingIsolation {
    private static let gate = AsyncGate()

    /// Runs `body` while no other test that went through here is running.
    public static func run<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        await gate.acquire()
        defer { gate.release() }
        return try await body()
    }
}
