import Foundation

/// How a recorded WebSocket conversation replays, decided before a byte is sent: what the server
/// sends and when, and which client message it waits for. A pure value; the wire executor runs it.
///
/// Timing is relative to what a server message answered: a message the server sent 0.2 s after
/// the client's second message is sent 0.2 s (under the tape's latency) after the live client's
/// second message arrives, however slow the client was — never before it asked. Server messages
/// before any client message count from the `101`. The latency applies to each such gap: `instant`
/// sends at once, `recorded` as recorded, `scaled` scales, a fixed latency or a download speed
/// waits its first-byte time.
///
/// Pings and pongs are answered live, not replayed: a client's recorded ping is not waited for,
/// and the server's recorded pong is not sent (the live ping gets its pong). A server's recorded
/// ping is sent. A conversation whose last server message is not a close ends by dropping the
/// connection once every step is done.
package struct WebSocketScript: Sendable, Equatable {
    package enum Step: Sendable, Equatable {
        /// Send the message at `index`, `delay` seconds after the step's anchor: the `101`, or the
        /// arrival of the last client message waited for.
        case send(index: Int, delay: TimeInterval)
        /// Wait for the client's next text, binary or close message and compare it with the
        /// recorded one at `index`.
        case expect(index: Int)
    }

    package let messages: [Interaction.WebSocketMessage]
    package let steps: [Step]

    /// Whether the server closes (its recorded close is among the steps) rather than drops.
    package var serverCloses: Bool {
        steps.contains { step in
            if case .send(let index, _) = step { messages[index].kind == .close } else { false }
        }
    }

    init(_ conversation: Interaction.WebSocketConversation, latency: Latency) {
        messages = conversation.messages
        var steps: [Step] = []
        var anchor: TimeInterval = 0
        for (index, message) in conversation.messages.enumerated() {
            switch (message.from, message.kind) {
            case (.client, .ping), (.client, .pong), (.server, .pong):
                continue
            case (.client, _):
                steps.append(.expect(index: index))
                anchor = message.at
            case (.server, _):
                let gap = max(0, message.at - anchor)
                steps.append(
                    .send(index: index, delay: latency.timing(recorded: .init(firstByte: gap, duration: gap), bodySize: 0).firstByte))
            }
        }
        self.steps = steps
    }

    /// How `received` differs from the recorded client message `expected`, or nil when it matches:
    /// the kind; text exactly, or JSON by meaning (members in any order, numbers by value) without
    /// `ignoredJSONPaths`, a value recorded redacted matching any; binary by bytes; a close by its code.
    package static func difference(
        _ received: ConversationMessage, from expected: Interaction.WebSocketMessage, ignoringJSONPaths: [String] = []
    ) -> String? {
        switch (received, expected.kind) {
        case (.text(let text), .text):
            let recorded = expected.text ?? ""
            if text == recorded { return nil }
            if let live = try? JSONParser.parse(Data(text.utf8)), let old = try? JSONParser.parse(expected.data) {
                let patterns = ignoringJSONPaths.map(JSONPathPattern.init)
                let changes = JSONDiff.changes(
                    from: CanonicalJSON.value(old.value, removing: patterns), to: CanonicalJSON.value(live.value, removing: patterns))
                // A value the recording holds redacted (`[REDACTED]`, `[REDACTED-2]`) matches whatever the client sends there.
                let kept = changes.filter { change in
                    guard case .value(let old, _) = change.kind, old.hasPrefix("\""), old.hasSuffix("\""), old.count >= 2 else {
                        return true
                    }
                    let recordedText = String(old.dropFirst().dropLast())
                    return !(recordedText == Redaction.replacement || PlaceholderPattern.isPlaceholder(recordedText))
                }
                return kept.isEmpty ? nil : kept.map(\.description).joined(separator: "; ")
            }
            return "text: recorded \(JSONDiff.shown(.string(recorded))), received \(JSONDiff.shown(.string(text)))"
        case (.binary(let data), .binary):
            if data == expected.data { return nil }
            let firstDifference =
                zip(data, expected.data).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(data.count, expected.data.count)
            return "binary: recorded \(expected.data.count) bytes, received \(data.count), first different at byte \(firstDifference)"
        case (.close(let code, _), .close):
            return code.map(Int.init) == expected.code
                ? nil : "close: recorded code \(expected.code.map(String.init) ?? "none"), received \(code.map(String.init) ?? "none")"
        default:
            return "recorded a \(expected.kind.rawValue) message, received \(Self.kind(of: received))"
        }
    }

    private static func kind(of message: ConversationMessage) -> String {
        switch message {
        case .text(let text): "a text message (\(JSONDiff.shown(.string(text))))"
        case .binary(let data): "a binary message (\(data.count) bytes)"
        case .ping: "a ping"
        case .pong: "a pong"
        case .close(let code, _): "a close (\(code.map(String.init) ?? "no code"))"
        }
    }
}
