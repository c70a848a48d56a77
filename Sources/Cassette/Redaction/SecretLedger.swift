import Foundation

/// What a tape has learned of secrets: every secret its rules found in what it recorded or
/// matched, the numbered placeholder each stands as in the cassette (`[REDACTED-1]`), and what
/// each placeholder of the cassette stood for in a live request (``bindings``). The one mutable
/// part of redaction, owned by the tape; showing a request (a miss report, an error, a log) never
/// writes to it — only recording and matching do.
///
/// Thread-safe.
final class SecretLedger: Sendable {
    /// What the ledger holds, read at once.
    struct Known: Sendable {
        var secrets: Set<String> = []
        /// Every known secret to ``Redaction/replacement``.
        var scrubber = SecretScrubber(pairs: [])
        /// Each secret long enough to search for, and its numbered placeholder in the file.
        var placeholders: [String: String] = [:]
        /// Every numbered secret to its placeholder.
        var numbered = SecretScrubber(pairs: [])
        /// Each numbered secret's percent-decoded spelling to its placeholder: the other spelling
        /// of a secret found later shares its number without a search through every secret.
        var decodedPlaceholders: [String: String] = [:]
        /// The number the next secret gets.
        var nextNumber = 1
    }

    private let known = Locked(Known())
    /// What each numbered placeholder of the cassette stood for, as the tape learned it from
    /// live requests (see ``PlaceholderPattern``).
    let bindings = PlaceholderBindings()

    /// What the ledger holds now.
    var current: Known { known.withLock { $0 } }

    /// Every known secret to ``Redaction/replacement``; nil while none is known (every request
    /// asks: a cheap check).
    var knownSecrets: SecretScrubber? { known.withLock { $0.secrets.isEmpty ? nil : $0.scrubber } }

    /// Adds `worth` (found by the rules, long enough to search for, not kept) to the known
    /// secrets, and numbers the new ones: a value the tape learned a placeholder stood for gets
    /// that placeholder back; a secret that is the other spelling (percent-encoded or decoded) of
    /// a numbered one shares its number. Numbers in JSON (`numbers`) are known but not numbered:
    /// a placeholder there would not be JSON.
    func remember(_ worth: [String], numbers: Set<String>) {
        guard !worth.isEmpty else { return }
        let bound = bindings.isEmpty ? [:] : Dictionary(bindings.values.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        known.withLock { known in
            guard !worth.allSatisfy(known.secrets.contains) else { return }
            for secret in worth where !known.secrets.contains(secret) {
                known.secrets.insert(secret)
                guard !numbers.contains(secret) else { continue }
                let decoded = secret.removingPercentEncoding
                if let placeholder = bound[secret] ?? decoded.flatMap({ bound[$0] ?? known.placeholders[$0] })
                    ?? known.decodedPlaceholders[secret]
                {
                    known.placeholders[secret] = placeholder
                } else {
                    known.placeholders[secret] = "[REDACTED-\(known.nextNumber)]"
                    known.nextNumber += 1
                }
                if let decoded, let placeholder = known.placeholders[secret], known.decodedPlaceholders[decoded] == nil {
                    known.decodedPlaceholders[decoded] = placeholder
                }
            }
            known.scrubber = SecretScrubber(secrets: known.secrets, with: Redaction.replacement)
            known.numbered = SecretScrubber(pairs: known.placeholders.sorted { $0.value < $1.value }.map { ($0.key, $0.value) })
        }
    }

    /// Binds placeholders to the values a live request had in their place (``bindings``), and
    /// makes a recording by this tape write each such value as that placeholder again, whatever
    /// number it was given when the live request was redacted for matching.
    func bind(_ learned: [String: String]) {
        guard !learned.isEmpty else { return }
        bindings.bind(learned)
        let bound = bindings.values
        known.withLock { known in
            var changed = false
            for (placeholder, value) in bound where known.placeholders[value] != nil && known.placeholders[value] != placeholder {
                known.placeholders[value] = placeholder
                if let decoded = value.removingPercentEncoding { known.decodedPlaceholders[decoded] = placeholder }
                changed = true
            }
            if changed {
                known.numbered = SecretScrubber(pairs: known.placeholders.sorted { $0.value < $1.value }.map { ($0.key, $0.value) })
            }
        }
    }

    /// Goes on numbering placeholders after `highest`: a recording added to a cassette never gives
    /// another secret a number the cassette uses.
    func continueNumbering(after highest: Int) {
        known.withLock { $0.nextNumber = max($0.nextNumber, highest + 1) }
    }
}
