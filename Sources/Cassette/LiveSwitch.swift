import Foundation

extension Tape {
    /// Whether every tape opened from now on in this process is a pass-through: its requests go
    /// live with the tape's session configuration, and nothing is recorded, written or reported
    /// unused. Default `false`; `CASSETTE_LIVE=1` in the environment does the same.
    ///
    /// Only scenarios still replay: interactions marked `Interaction.scenario` (a 503, a timeout, a
    /// slow answer, as `cassette fault` writes them), which the live service will not answer on
    /// demand. A test of the fault keeps testing it; every other request goes live.
    ///
    /// For running the whole suite against the real service (a nightly job), as VCR's
    /// `turn_off!(ignore_cassettes: true)` or Polly's `passthrough` mode do: tests then pass or
    /// fail on what the service answers today. It differs from `cassette check --live`, which sends
    /// the recorded requests again and reports how the answers drifted, without running any test.
    /// A live tape's ``Report/isLive`` is true, and the suite ledger marks its record live
    /// (`cassette report` says so and judges no orphans; `prune` refuses such a run).
    ///
    /// ```swift
    /// Tape.isLive = ProcessInfo.processInfo.environment["NIGHTLY"] != nil
    /// ```
    public static var isLive: Bool {
        get { LiveSwitch.inCode.current }
        set { LiveSwitch.inCode.withLock { $0 = newValue } }
    }
}

/// Where the live switch is read: ``Tape/isLive`` in code, `CASSETTE_LIVE` in the environment.
package enum LiveSwitch {
    /// The environment variable: `1` (or `true`, `yes`, `on`) turns every tape into a pass-through
    /// (``EnvironmentSwitch``: any value but on or off is an error).
    package static let environmentVariable = "CASSETTE_LIVE"
    /// ``Tape/isLive``.
    static let inCode = Locked(false)

    /// Whether a tape opened with `environment` is a pass-through.
    static func isOn(environment: [String: String]) -> Bool {
        if inCode.current { return true }
        return EnvironmentSwitch.isOn(environmentVariable, in: environment) ?? false
    }
}
