/// Who opened a tape, so that a miss report's "To fix:" names what that reader can change where
/// the miss happened: options in code, the trait's arguments in a test, flags on the command line.
package enum AdviceReader: Sendable, Equatable {
    /// Code that made the tape (`Tape(…)`, `withCassette`): `Tape.Options`, the matching rules.
    case code
    /// A test with the `.cassette` trait: the trait's arguments.
    case trait
    /// A `cassette` command (`serve`, `play`, `record`): its flags.
    case command(String)

    /// How to let a used-up recording answer again.
    var allowingRepeats: String {
        switch self {
        case .code: "open the tape with Tape.Options(allowsRepeatedReplays: true)"
        case .trait: "give the trait .cassette(options: .init(allowsRepeatedReplays: true))"
        case .command(let name): "run cassette \(name) with --allow-repeated-replays"
        }
    }

    /// How to record the request that missed, given the mode the tape ran in.
    func recording(mode: RecordMode) -> String {
        switch self {
        case .code, .trait:
            return mode == .none
                ? "record it with CASSETTE_RECORD_MODE=newEpisodes on a machine with network access"
                : "record it with CASSETTE_RECORD_MODE=newEpisodes (mode \"\(mode)\" does not record into an existing cassette)"
        case .command("play"):
            return "record it with cassette record (same --cassette and request) on a machine with network access"
        case .command("serve"):
            return mode == .none
                ? "record it through cassette serve --mode newEpisodes --upstream URL on a machine with network access"
                : "record it with --mode newEpisodes and --upstream URL (mode \"\(mode)\" does not record into an existing cassette)"
        case .command:
            return "record it with --mode newEpisodes on a machine with network access"
        }
    }

    /// How to record the cassette again when the request changed for good (its body): replacing
    /// what it held, since recording the request beside the old one keeps the stale recording.
    func reRecording() -> String {
        switch self {
        case .code, .trait:
            return "re-record the cassette with CASSETTE_RECORD_MODE=all on a machine with network access "
                + "(newEpisodes would keep the stale recording beside the new one)"
        case .command("serve"):
            return "record it again through cassette serve --mode all --upstream URL on a machine with network access"
        case .command:
            return "record it again with --mode all on a machine with network access"
        }
    }

    /// How to match a request whatever its port (`port`) or origin (`host`), as the matching
    /// rule `rule` (`.ignoringPort()`) or the flag `--match-ignoring port|host`; `note` says what
    /// the rule then compares.
    func ignoring(_ what: String, rule: String, note: String = "") -> String {
        switch self {
        case .code, .trait: "add \(rule) to the cassette's matching\(note) (cassette play --match-ignoring \(what))"
        case .command: "give --match-ignoring \(what)\(note)"
        }
    }
}
