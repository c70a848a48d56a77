import Foundation

/// Suites that change what every session in the process gets — the swizzled configuration
/// getters of `Tape.interceptEverySession()` — run in a process of their own, after the rest:
/// while such a suite's getters are installed, a suite running beside it would have its plain
/// `.ephemeral` sessions routed to the other's cassette. Each is enabled only where
/// `CASSETTE_ALONE` names it; the macOS job (`.github/workflows/ci.yml`) and the iOS job
/// (`.ci/steps/ios-simulator`) run each of ``suites`` that way, which the schema step checks.
///
/// ```sh
/// CASSETTE_ALONE=ConfigurationSwizzleTests swift test --filter ConfigurationSwizzleTests
/// ```
public enum RunsAlone {
    /// The variable that names the suite this process runs alone.
    public static let variable = "CASSETTE_ALONE"
    /// Every suite that runs alone.
    public static let suites = ["ConfigurationSwizzleTests"]

    /// Whether `suite` runs in this process: `CASSETTE_ALONE` names it.
    public static func here(_ suite: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        suites.contains(suite) && environment[variable] == suite
    }
}

#if canImport(Testing)
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the suite only in a process of its own (``RunsAlone``); elsewhere it is skipped,
    /// saying how to run it.
    public static func runsAlone(_ suite: String) -> Self {
        .enabled(
            if: RunsAlone.here(suite),
            "runs alone, in a process of its own: \(RunsAlone.variable)=\(suite) swift test --filter \(suite)")
    }
}
#endif
