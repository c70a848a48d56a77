import Foundation

/// The on/off switches Cassette reads from the environment — `CASSETTE_LIVE`,
/// `CASSETTE_SUMMARY`, `CASSETTE_SAVE_ON_FAILURE`, `CASSETTE_WRITE_MISSES` (and its former name
/// `CASSETTE_REPORT_HTML`) — read one way:
/// `1`, `true`, `yes`, `on` are on; `0`, `false`, `no`, `off` are off (any case); unset or empty
/// is the default. Any other value is an error when a tape opens
/// (``CassetteError/invalidEnvironmentValue(name:value:accepted:)``), naming the accepted values:
/// `CASSETTE_LIVE=2` never silently means "not live".
package enum EnvironmentSwitch {
    /// The switches, each read by ``isOn(_:in:)``.
    package static let names = [
        "CASSETTE_LIVE", "CASSETTE_SUMMARY", "CASSETTE_SAVE_ON_FAILURE", "CASSETTE_WRITE_MISSES", "CASSETTE_REPORT_HTML",
    ]

    static let onValues: Set<String> = ["1", "true", "yes", "on"]
    static let offValues: Set<String> = ["0", "false", "no", "off"]
    /// As the error names them.
    static let accepted = "1, true, yes or on; 0, false, no or off"

    /// Whether the switch `name` is on (true), off (false), or not set or not readable (nil: the
    /// default). ``check(_:)`` has refused a value that is not readable by the time a tape runs.
    package static func isOn(_ name: String, in environment: [String: String]) -> Bool? {
        guard let value = environment[name]?.lowercased(), !value.isEmpty else { return nil }
        if onValues.contains(value) { return true }
        if offValues.contains(value) { return false }
        return nil
    }

    /// Refuses a switch set to a value that is neither on nor off.
    ///
    /// - Throws: ``CassetteError/invalidEnvironmentValue(name:value:accepted:)`` for the first such switch.
    package static func check(_ environment: [String: String]) throws(CassetteError) {
        for name in names {
            guard let value = environment[name], !value.isEmpty else { continue }
            let lowered = value.lowercased()
            if !onValues.contains(lowered), !offValues.contains(lowered) {
                throw .invalidEnvironmentValue(name: name, value: value, accepted: accepted)
            }
        }
    }
}
