import Cassette

/// `--match-ignoring port|host`, the same for every command that matches requests.
enum MatchingOption {
    /// `matching` loosened as `value` says, or nil when `value` is neither `port` nor `host`.
    static func apply(_ value: String?, to matching: RequestMatching) -> RequestMatching? {
        switch value {
        case "port": return matching.ignoringPort()
        case "host": return matching.ignoringHost()
        default: return nil
        }
    }

    /// `matching` loosened by each of `values` (already checked with ``apply(_:to:)``).
    static func apply(_ values: [String], to matching: RequestMatching) -> RequestMatching {
        values.reduce(matching) { apply($1, to: $0) ?? $0 }
    }

    /// The usage error for a wrong value.
    static func problem(_ value: String?) -> String {
        "--match-ignoring takes port or host, not '\(value ?? "")'"
    }
}
