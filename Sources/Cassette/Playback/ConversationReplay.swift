import Foundation

/// A recorded WebSocket conversation prepared to answer one upgrade request: the `101` as
/// recorded, the script of the messages (``WebSocketScript``, timed by the tape's latency), and
/// what a miss report needs to name it. The router decides it (``Decision/converse(_:)``); the
/// wire executor (``ConversationPlayer``) runs it.
package struct ConversationReplay: Sendable {
    /// The recorded `101` response.
    package var response: Interaction.Response
    package var script: WebSocketScript
    /// The interaction's number in the cassette, from 1.
    var number: Int
    /// The upgrade request, redacted, as a miss report shows it.
    var request: Interaction.Request
    var cassette: URL?
    var mode: RecordMode?
    /// JSON paths left out when a client message is compared with the recorded one.
    package var ignoredJSONPaths: [String]
    /// The tape's redactor, when the conversation holds placeholders (or the tape's redaction
    /// gives values back on replay): it learns what they stand for from the live client's
    /// messages and gives the values back in the server's. Nil: messages replay as recorded.
    var placeholders: Redactor?
    /// The tape's redactor, which shows a client's message in a miss report as it would be stored.
    var redactor: Redactor?

    /// Learns what the placeholders of the recorded client message at `index` stood for in
    /// `received`, which matched it (``WebSocketScript/difference(_:from:ignoringJSONPaths:)``):
    /// `{"login": "[REDACTED-1]"}` answered live with `{"login": "ada"}` binds `[REDACTED-1]` to `ada`
    /// for the rest of the tape.
    package func learn(from received: ConversationMessage, recordedAt index: Int) {
        guard let placeholders, case .text(let text) = received, let recorded = script.messages[index].text,
            PlaceholderPattern.containsPlaceholder(recorded),
            let match = PlaceholderPattern.learn(
                fromMessage: recorded, text, ignoring: ignoredJSONPaths.map(JSONPathPattern.init), bound: placeholders.bindings.values)
        else { return }
        placeholders.bind(match.bindings)
    }

    /// The server message at `index` as it is sent now: with the values the tape knows back in
    /// place of their placeholders.
    package func outgoing(_ index: Int) -> Interaction.WebSocketMessage {
        placeholders.map { $0.forPlayback(script.messages[index], index: index) } ?? script.messages[index]
    }

    /// How the client's `received` message differs from the recorded one at `index`, or nil when it
    /// matches (``WebSocketScript/difference(_:from:ignoringJSONPaths:)``) — said of the message
    /// as a miss report may show it: redacted, never with what the rules hide.
    package func difference(_ received: ConversationMessage, at index: Int) -> String? {
        let expected = script.messages[index]
        guard WebSocketScript.difference(received, from: expected, ignoringJSONPaths: ignoredJSONPaths) != nil else { return nil }
        let shown = redactor?.shown(received) ?? received
        return WebSocketScript.difference(shown, from: expected, ignoringJSONPaths: ignoredJSONPaths)
            ?? "it differs from the recorded message only where the redaction rules hide what it holds"
    }

    /// The miss report for a client message that differs from the recorded message at `index`
    /// (`difference` says how), or that never came (`difference` says what happened instead).
    package func miss(at index: Int, _ difference: String) -> UnmatchedRequest {
        let clientMessages = script.messages.indices.filter { script.messages[$0].from == .client && script.messages[$0].kind != .ping }
        let ordinal = (clientMessages.firstIndex(of: index) ?? 0) + 1
        let place = "webSocket.messages[\(index)] of interaction #\(number)"
        let description =
            "Cassette: WebSocket message \(index) (\(place), the client's message \(ordinal) of \(clientMessages.count)) "
            + "of the conversation recorded in \(cassette?.path ?? "the cassette") for \(request.method) \(request.url) does not match: "
            + "\(difference). The server closed the connection with 1008. If the client now sends something else on purpose, "
            + "record the conversation again, or edit the message in the cassette; fields that change every run can be "
            + "left out with RequestMatching.ignoringJSONPaths (which applies to WebSocket messages as to bodies)."
        return UnmatchedRequest(request: request, cassette: cassette, mode: mode, candidates: [], usedUp: 0, description: description)
    }
}
