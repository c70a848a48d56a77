import Foundation

/// The recorded interactions of a cassette, ready to answer requests.
///
/// Each interaction answers once. Identical requests get their recorded responses in recorded
/// order; when they are used up, the next identical request is treated as unmatched (or, with
/// `allowsRepeats`, gets the last of them again). Thread-safe.
final class PlaybackQueue: Sendable {
    /// What a lookup found.
    enum Lookup: Sendable {
        /// `redactedValues`: how many placeholders of the recorded request stood for what the
        /// live request had there (0 for an exact match); `repeated`: the interaction had answered
        /// before (repeats are allowed and every match was used).
        case found(index: Int, Interaction, redactedValues: Int, repeated: Bool)
        /// Matching interactions exist but each was already used.
        case usedUp(count: Int)
        case noMatch
    }

    /// The recordings and what is derived from them; ``release()`` lets go of them when the tape
    /// is ejected, so that a tape still referenced afterwards keeps no bodies.
    private final class Contents: Sendable {
        let interactions: [Interaction]
        /// The recorded requests as compared: redacted.
        let requests: [Interaction.Request]
        /// Indices of the interactions with each key, in recorded order (`nil` with a custom predicate).
        let index: [RequestKey: [Int]]?
        /// The recordings whose compared parts hold a redaction placeholder, with their keys, in
        /// recorded order: matched by ``PlaceholderPattern`` when no exact match is left.
        let patterned: [(index: Int, key: RequestKey)]

        init(
            interactions: [Interaction], requests: [Interaction.Request], index: [RequestKey: [Int]]?,
            patterned: [(index: Int, key: RequestKey)]
        ) {
            self.interactions = interactions
            self.requests = requests
            self.index = index
            self.patterned = patterned
        }

        static let released = Contents(interactions: [], requests: [], index: nil, patterned: [])
    }

    private let contents: Locked<Contents>
    private var interactions: [Interaction] { contents.current.interactions }
    /// The recorded requests as compared: redacted (none after ``release()``).
    var requests: [Interaction.Request] { contents.current.requests }
    let rules: RequestMatching
    private let allowsRepeats: Bool
    private let used: Locked<[Bool]>
    /// The recordings whose request holds a placeholder anywhere (compared or not): what a live
    /// request has there is learned when it is answered by one of them.
    private let learnable: Set<Int>
    private let redactor: Redactor
    /// Where each cassette's interactions end: the cassette's own first, then those of the
    /// cassettes loaded beneath it (``Tape/Options/underlyingCassettes``), in order. A request is
    /// answered by the first cassette that has a recording for it; the ones beneath are never
    /// reported unused.
    private let layerEnds: [Int]

    /// The cookies the cassette's responses set with an `Expires` before `now` that recorded
    /// requests send and `request` lacks: why a replay may miss a month after the recording.
    func expiredCookies(lackedBy request: Interaction.Request, at now: Date) -> [(name: String, interaction: Int, expired: Date)] {
        func names(in cookieField: String?) -> Set<String> {
            Set(
                (cookieField ?? "").split(separator: ";").compactMap { pair in
                    pair.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) }
                })
        }
        let sent = names(in: request.headers["Cookie"])
        let recordedSent = interactions.prefix(ownCount).reduce(into: Set<String>()) {
            $0.formUnion(names(in: $1.request.headers["Cookie"]))
        }
        var found: [String: (interaction: Int, expired: Date)] = [:]
        for (index, interaction) in interactions.prefix(ownCount).enumerated() {
            for value in interaction.response?.headers.values(for: "Set-Cookie") ?? [] {
                let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                guard let name = parts.first?.split(separator: "=", maxSplits: 1).first.map(String.init), !sent.contains(name),
                    recordedSent.contains(name),
                    let expires = parts.dropFirst().first(where: { $0.lowercased().hasPrefix("expires=") }),
                    let date = HTTPDate.parse(String(expires.dropFirst("expires=".count))), date < now
                else { continue }
                found[name] = (index + 1, date)
            }
        }
        return found.sorted { $0.key < $1.key }.map { ($0.key, $0.value.interaction, $0.value.expired) }
    }

    /// When the cassette's first interaction that says so was recorded.
    let firstRecordedAt: Date?

    /// How many of the interactions are the cassette's own.
    let ownCount: Int

    /// Whether some recording's request holds a placeholder; a tape without any pays nothing for
    /// placeholders.
    var hasPlaceholders: Bool { !learnable.isEmpty }

    /// - Parameters:
    ///   - redactor: redacts each recorded request before it is compared, as live requests
    ///     are, so that a cassette recorded before a redaction rule existed still matches.
    ///   - layerEnds: where each cassette's interactions end, when there are several (see above).
    init(_ interactions: [Interaction], rules: RequestMatching, allowsRepeats: Bool, redactor: Redactor, layerEnds: [Int] = []) {
        self.layerEnds = layerEnds
        self.rules = rules
        self.allowsRepeats = allowsRepeats
        let requests = interactions.map { redactor.shown($0.request) }
        self.redactor = redactor
        var patterned: [(index: Int, key: RequestKey)] = []
        var index: [RequestKey: [Int]]?
        if rules.predicate == nil {
            var keys: [RequestKey: [Int]] = [:]
            for (i, request) in requests.enumerated() {
                let key = RequestKey(request, rules: rules)
                keys[key, default: []].append(i)
                if PlaceholderPattern.containsPlaceholder(key) { patterned.append((i, key)) }
            }
            index = keys
        }
        ownCount = layerEnds.first ?? interactions.count
        firstRecordedAt = interactions.prefix(ownCount).lazy.compactMap(\.recordedAt).first
        contents = Locked(Contents(interactions: interactions, requests: requests, index: index, patterned: patterned))
        learnable = Set(
            interactions.indices.filter { index in
                let request = interactions[index].request
                return PlaceholderPattern.containsPlaceholder(request.url)
                    || request.headers.contains { PlaceholderPattern.containsPlaceholder($0.value) }
                    || PlaceholderPattern.containsPlaceholder(request.body.data)
            })
        used = Locked(Array(repeating: false, count: interactions.count))
    }

    /// Takes the first unused interaction that matches `request`.
    ///
    /// - Parameters:
    ///   - request: the live request redacted as recordings are (``Redactor/forMatching(_:)``).
    ///   - live: the live request before redaction, for the recordings that hold placeholders:
    ///     when no exact match is left, the first unused one whose placeholders stand for what
    ///     `live` has there answers, and the placeholders it bound stay bound (``PlaceholderBindings``).
    ///   - declined: interactions `beforeReplay` declined for this request: as if absent.
    func take(_ request: Interaction.Request, live: Interaction.Request? = nil, declined: Set<Int> = []) -> Lookup {
        let contents = contents.current
        let interactions = contents.interactions
        var patterned = contents.patterned
        var candidates: [Int]
        if let index = contents.index {
            candidates = index[RequestKey(request, rules: rules)] ?? []
        } else {
            candidates = interactions.indices.filter { rules.matches(request, contents.requests[$0]) }
        }
        if !declined.isEmpty {
            candidates.removeAll { declined.contains($0) }
            patterned.removeAll { declined.contains($0.0) }
        }
        // Only the first cassette that has a recording for the request answers it.
        if let first = candidates.first, let end = layerEnds.first(where: { $0 > first }), candidates.last ?? 0 >= end {
            candidates = candidates.filter { $0 < end }
        }
        if learnable.isEmpty || live == nil {
            guard let last = candidates.last else { return .noMatch }
            return used.withLock { used in
                if let next = candidates.first(where: { !used[$0] }) {
                    used[next] = true
                    return .found(index: next, interactions[next], redactedValues: 0, repeated: false)
                }
                return allowsRepeats
                    ? .found(index: last, interactions[last], redactedValues: 0, repeated: true) : .usedUp(count: candidates.count)
            }
        }
        let liveRequest = redactor.withPlaceholders(live ?? request)
        let bindings = redactor.bindings
        /// Learns what the placeholders of the answering recording stand for, compared or not.
        func learn(from index: Int) {
            guard learnable.contains(index) else { return }
            redactor.bind(PlaceholderPattern.learn(from: interactions[index].request, liveRequest, bound: bindings.values).bindings)
        }
        return used.withLock { used in
            if let next = candidates.first(where: { !used[$0] }) {
                used[next] = true
                learn(from: next)
                return .found(index: next, interactions[next], redactedValues: 0, repeated: false)
            }
            // The live key only now: an exact match, the common case, needs none.
            let liveKey = RequestKey(liveRequest, rules: rules)
            let bound = bindings.values
            var matched: [(index: Int, match: PlaceholderPattern.Match)] = []
            for (index, key) in patterned where !candidates.contains(index) {
                guard let match = PlaceholderPattern.match(key, liveKey, bound: bound) else { continue }
                if !used[index] {
                    used[index] = true
                    redactor.bind(match.bindings)
                    learn(from: index)
                    return .found(index: index, interactions[index], redactedValues: match.count, repeated: false)
                }
                matched.append((index, match))
            }
            let all = (candidates.map { ($0, 0) } + matched.map { ($0.index, $0.match.count) }).sorted { $0.0 < $1.0 }
            guard let last = all.last else { return .noMatch }
            if allowsRepeats {
                if let match = matched.first(where: { $0.index == last.0 }) { redactor.bind(match.match.bindings) }
                learn(from: last.0)
                return .found(index: last.0, interactions[last.0], redactedValues: last.1, repeated: true)
            }
            return .usedUp(count: all.count)
        }
    }

    /// Everything the placeholders of any recording stand for in `live`: values a report of a
    /// miss must not show, since the tape would have scrubbed them had the request matched. Only
    /// values long enough to search for (shorter ones were only ever replaced in place, and the
    /// report's redaction does that already).
    func placeholderValues(in live: Interaction.Request) -> [String] {
        guard !learnable.isEmpty else { return [] }
        let live = redactor.withPlaceholders(live)
        let bound = redactor.bindings.values
        var values: Set<String> = []
        let interactions = interactions
        for index in learnable.sorted() where interactions.indices.contains(index) {
            values.formUnion(PlaceholderPattern.learn(from: interactions[index].request, live, bound: bound).values)
        }
        return values.sorted().filter { $0.count >= redactor.minimumEchoLength && !PlaceholderPattern.isPlaceholder($0) }
    }

    /// Each recorded request as compared (redacted), and whether it has answered a request;
    /// none after ``release()``.
    var recordings: [(request: Interaction.Request, used: Bool)] {
        let (requests, used) = (requests, used.current)
        return requests.indices.map { (requests[$0], used[$0]) }
    }

    /// What the ledger and staleness keep of the cassette's own interactions: those that
    /// answered and those that did not (1-based), and when each that answered was recorded.
    func usage() -> (replayed: [Int], unused: [Int], replayedAt: [Date?]) {
        let (interactions, used) = (interactions, used.current)
        var replayed: [Int] = []
        var unused: [Int] = []
        var replayedAt: [Date?] = []
        for index in 0..<min(ownCount, interactions.count, used.count) {
            if used[index] {
                replayed.append(index + 1)
                replayedAt.append(interactions[index].recordedAt)
            } else {
                unused.append(index + 1)
            }
        }
        return (replayed, unused, replayedAt)
    }

    /// Puts back the interaction at `index`, newly taken (not `repeated`) for a request that it did
    /// not answer after all (a WebSocket conversation asked for by an executor that cannot hold
    /// one): the next request that matches takes it, and until then it counts as unused.
    func putBack(_ index: Int) {
        used.withLock { used in
            if used.indices.contains(index) { used[index] = false }
        }
    }

    /// The interaction numbered `number` (from 1, in file order); nil once released.
    func interaction(number: Int) -> Interaction? {
        let all = interactions
        return all.indices.contains(number - 1) ? all[number - 1] : nil
    }

    /// Lets go of the recordings (their bodies, their keys): the tape was ejected and nothing
    /// asks any more. Lookups find nothing afterwards.
    func release() {
        contents.withLock { $0 = .released }
    }
}
