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

    /// The usage error for a wrong value.
    static func problem(_ value: String?) -> String {
        "--match-ignoring takes port or host, not '\(value ?? "")'"
    }
}
