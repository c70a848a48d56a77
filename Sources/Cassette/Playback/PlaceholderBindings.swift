import Foundation

/// What the tape learned each numbered placeholder stood for: when a live request matches
/// `[REDACTED-1]` with `oatmeal`, `[REDACTED-1]` means `oatmeal` for the rest of the tape.
/// Replayed responses then give the caller its own value back wherever the placeholder stands,
/// later requests are compared with it, and a recording made by the same tape writes that value
/// as that placeholder again. Thread-safe.
final class PlaceholderBindings: Sendable {
    private struct State {
        var values: [String: String] = [:]
        /// The bound placeholders to their values, in every spelling (see ``SecretScrubber``),
        /// for any text and for JSON documents.
        var restorer = SecretScrubber(pairs: [])
        var jsonRestorer = SecretScrubber(pairs: [])
    }

    private let state = Locked(State())

    /// Every binding so far: placeholder → value.
    var values: [String: String] { state.withLock { $0.values } }

    /// Whether nothing is bound yet.
    var isEmpty: Bool { state.withLock { $0.values.isEmpty } }

    /// Binds each placeholder of `new` that is not bound yet (a bound one keeps its value).
    func bind(_ new: [String: String]) {
        guard !new.isEmpty else { return }
        state.withLock { state in
            var changed = false
            for (placeholder, value) in new where state.values[placeholder] == nil && placeholder != value {
                state.values[placeholder] = value
                changed = true
            }
            guard changed else { return }
            let pairs = state.values.sorted { $0.key < $1.key }.map { (placeholder: $0.key, value: $0.value) }
            state.restorer = SecretScrubber(restoring: pairs)
            state.jsonRestorer = SecretScrubber(restoring: pairs, insideJSON: true)
        }
    }

    /// Puts each bound value back where its placeholder stands (in any text, and in JSON
    /// documents); nil when nothing is bound.
    var restorers: (any: SecretScrubber, json: SecretScrubber)? {
        state.withLock { $0.values.isEmpty ? nil : ($0.restorer, $0.jsonRestorer) }
    }
}
