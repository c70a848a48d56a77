import Foundation

/// The recorded interactions of a cassette, ready to answer requests.
///
/// Each interaction answers once. Identical requests get their recorded responses in recorded
/// order; when they are used up, the next identical request is treated as unmatched (or, with
/// `allowsRepeats`, gets the last of them again). Thread-safe.
final class PlaybackQueue: Sendable {
    /// What a lookup found.
    enum Lookup: Sendable {
        case found(index: Int, Interaction)
        /// Matching interactions exist but each was already used.
        case usedUp(count: Int)
        case noMatch
    }

    private let interactions: [Interaction]
    let rules: RequestMatching
    private let allowsRepeats: Bool
    /// The recorded requests as compared: redacted.
    let requests: [Interaction.Request]
    /// Indices of the interactions with each key, in recorded order (`nil` with a custom predicate).
    private let index: [RequestKey: [Int]]?
    private let used: Locked<[Bool]>

    /// - Parameter redactor: redacts each recorded request before it is compared, as live requests
    ///   are, so that a cassette recorded before a redaction rule existed still matches.
    init(_ interactions: [Interaction], rules: RequestMatching, allowsRepeats: Bool, redactor: Redactor) {
        self.interactions = interactions
        self.rules = rules
        self.allowsRepeats = allowsRepeats
        requests = interactions.map { redactor.forMatching($0.request, remembering: false) }
        if rules.predicate == nil {
            var index: [RequestKey: [Int]] = [:]
            for (i, request) in requests.enumerated() {
                index[RequestKey(request, rules: rules), default: []].append(i)
            }
            self.index = index
        } else {
            self.index = nil
        }
        used = Locked(Array(repeating: false, count: interactions.count))
    }

    /// Takes the first unused interaction that matches `request`.
    func take(_ request: Interaction.Request) -> Lookup {
        let candidates: [Int]
        if let index {
            candidates = index[RequestKey(request, rules: rules)] ?? []
        } else {
            candidates = interactions.indices.filter { rules.matches(request, requests[$0]) }
        }
        guard let last = candidates.last else { return .noMatch }
        return used.withLock { used in
            if let next = candidates.first(where: { !used[$0] }) {
                used[next] = true
                return .found(index: next, interactions[next])
            }
            return allowsRepeats ? .found(index: last, interactions[last]) : .usedUp(count: candidates.count)
        }
    }

    /// Each recorded request as compared (redacted), and whether it has answered a request.
    var recordings: [(request: Interaction.Request, used: Bool)] {
        let used = used.current
        return requests.indices.map { (requests[$0], used[$0]) }
    }
}
