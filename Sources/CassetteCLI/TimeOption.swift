import Cassette

/// `--time recorded|shifted` and `--time-json-path PATH` of `play` and `serve`: which day replayed
/// responses speak of (``ReplayTime``), read the same way by both.
struct TimeOption {
    var time = ReplayTime.recorded

    /// The usage lines.
    static let usage = """
          --time recorded|shifted
                             recorded (default): every byte as recorded. shifted: every time in a
                             replayed response (Date, Expires, Last-Modified, Retry-After, cookie
                             expiry, the exp/iat/nbf of JWTs) moves by the time since it was
                             recorded; a JWT keeps its recorded signature, which no longer verifies.
          --time-json-path PATH
                             With --time shifted, the JSON values at PATH (token.expires_at,
                             items[*].updated) are times too; repeat for more.
          --verbose          List on standard error what --time shifted moved.
        """

    /// Reads `argument` with `value` when it is one of these options: nil when it is not, else
    /// the usage error or an empty string.
    mutating func read(_ argument: String, value: () -> String?) -> String? {
        switch argument {
        case "--time":
            switch value() {
            case "recorded": time = ReplayTime(shifting: false, keeping: time.jsonPaths)
            case "shifted": time = ReplayTime(shifting: true, keeping: time.jsonPaths)
            case let other: return "--time takes recorded or shifted, not '\(other ?? "")'"
            }
            return ""
        case "--time-json-path":
            guard let path = value(), !path.isEmpty else { return "--time-json-path needs a JSON path such as token.expires_at" }
            time = time.addingJSONPaths(path)
            return ""
        default:
            return nil
        }
    }
}

extension ReplayTime {
    /// `.shifted` or `.recorded` with `paths`.
    fileprivate init(shifting: Bool, keeping paths: [String]) {
        var base = shifting ? ReplayTime.shifted : ReplayTime.recorded
        for path in paths { base = base.addingJSONPaths(path) }
        self = base
    }
}
