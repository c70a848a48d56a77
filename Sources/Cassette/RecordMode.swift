import Foundation

/// When a cassette may reach the network, and what it keeps.
///
/// | mode          | cassette file missing          | request has a recorded match | request has none     |
/// |---------------|--------------------------------|------------------------------|----------------------|
/// | `once`        | everything is recorded         | replayed                     | refused              |
/// | `newEpisodes` | everything is recorded         | replayed                     | recorded, appended   |
/// | `none`        | opening the cassette throws    | replayed                     | refused              |
/// | `all`         | everything is recorded         | recorded again               | recorded             |
///
/// In `none`, and in `once` once the file exists, nothing reaches the network.
/// `all` replaces the whole file when the cassette is ejected.
///
/// The mode a cassette runs in is, first match wins: the `CASSETTE_RECORD_MODE` environment
/// variable; `none` when the `CI` environment variable is set (CI replays offline, whatever a
/// test asks for); the mode passed in code, `once` by default.
public enum RecordMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Record when the cassette file does not exist yet; otherwise replay only.
    case once
    /// Replay what matches; record what does not and append it to the cassette.
    case newEpisodes
    /// Replay only. Never touch the network.
    case none
    /// Record everything again, replacing the cassette.
    case all

    /// The mode's name, as written in `CASSETTE_RECORD_MODE`.
    public var description: String { rawValue }

    /// The environment variable that overrides every other choice of mode.
    package static let environmentVariable = "CASSETTE_RECORD_MODE"

    /// Parses a mode name as written in `CASSETTE_RECORD_MODE` (`once`, `newEpisodes`, `none`, `all`).
    ///
    /// - Throws: ``CassetteError/invalidRecordMode(_:source:)`` naming the valid modes.
    package init(parsing text: String, source: String = RecordMode.environmentVariable) throws(CassetteError) {
        guard let mode = RecordMode(rawValue: text) else { throw .invalidRecordMode(text, source: source) }
        self = mode
    }

    /// The mode a cassette runs in: `CASSETTE_RECORD_MODE`, else `none` when `CI` is set (to
    /// anything but `false` or `0`), else `requested`.
    ///
    /// - Throws: ``CassetteError/invalidRecordMode(_:source:)`` when `CASSETTE_RECORD_MODE` holds
    ///   something else than a mode name.
    package static func resolve(requested: RecordMode, environment: [String: String]) throws(CassetteError) -> RecordMode {
        if let text = environment[environmentVariable], !text.isEmpty {
            return try RecordMode(parsing: text)
        }
        if isCI(environment) { return .none }
        return requested
    }

    /// Whether `environment` says this is CI: `CI` set, and not to an off value of every switch
    /// (``EnvironmentSwitch``: `0`, `false`, `no`, `off`). Any other value is on: hosted CI sets
    /// `true`, some set their own name (`woodpecker`).
    static func isCI(_ environment: [String: String]) -> Bool {
        guard let ci = environment["CI"] else { return false }
        return !ci.isEmpty && !EnvironmentSwitch.offValues.contains(ci.lowercased())
    }
}
