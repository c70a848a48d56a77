import Cassette
import Foundation

/// What `cassette show` prints of an interaction and `cassette view` shows of it, said once:
/// its number, its outcome, its timing as a replay follows it, and what the cassette marks on it
/// (a scenario, the authentication challenges it answered).
package enum InteractionSummary {
    /// The number of the interaction at `index` of a cassette's `interactions`, as every command,
    /// report and miss message numbers it: from 1 (`#1` is `interactions[0]`).
    package static func number(ofIndex index: Int) -> Int { index + 1 }

    /// The status, the transport error, or both: `200, then networkConnectionLost after 10 bytes`.
    package static func outcome(of interaction: Interaction) -> String {
        let error = interaction.error.map { error in
            (error.code.name ?? String(error.code.rawValue)) + (error.afterBytes.map { " after \($0) bytes" } ?? "")
        }
        switch (interaction.response, error) {
        case (let response?, let error?): return "\(response.status), then \(error)"
        case (let response?, nil): return String(response.status)
        case (nil, let error?): return error
        case (nil, nil): return "-"
        }
    }

    /// The recorded timing (`84 / 112 ms`: first byte / total), after the latency written in the
    /// cassette that replaces it on replay (`latency fixed:1.5,1.5 (recorded 10 / 10 ms)`); `-`
    /// when neither is there.
    package static func timing(of interaction: Interaction) -> String {
        let recorded = interaction.timing.map { "\(milliseconds($0.firstByte)) / \(milliseconds($0.duration)) ms" }
        guard let latency = interaction.latency else { return recorded ?? "-" }
        return "latency \(latency)" + (recorded.map { " (recorded \($0))" } ?? "")
    }

    /// The first byte and the end of the response as a replay delivers them: the recorded
    /// timing, or the latency written in the cassette; nil when there is neither.
    package static func replayedTiming(of interaction: Interaction) -> Interaction.Timing? {
        guard let latency = interaction.latency else { return interaction.timing }
        return latency.timing(recorded: interaction.timing, bodySize: interaction.response?.body.data.count ?? 0)
    }

    /// What the cassette marks on the interaction, one item each: `scenario "slow feed"`,
    /// `challenge HTTPBasic realm "api": useCredential`. Empty for most.
    package static func notes(of interaction: Interaction) -> [String] {
        var notes: [String] = []
        if let scenario = interaction.scenario { notes.append("scenario \(quoted(scenario))") }
        for challenge in interaction.challenges {
            notes.append(
                "challenge \(challenge.method)" + (challenge.realm.map { " realm \(quoted($0))" } ?? "")
                    + " (\(challenge.response.status)): \(challenge.answer.rawValue)")
        }
        return notes
    }

    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(Int((seconds * 1000).rounded()))
    }
}
