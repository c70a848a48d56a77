import Foundation

/// The parts of an interaction that change every time the same traffic is recorded, and so do
/// not count as a change when a cassette is recorded again (record mode `all`).
///
/// Re-recording with unchanged traffic leaves the cassette file byte-identical: each newly
/// recorded interaction that equals a stored one apart from these parts keeps the stored
/// interaction (its `recordedAt`, timing, `Date` header…), and when every interaction is kept the
/// file is not written at all. An interaction that changed in any other way is written anew — only
/// it — so the diff a reviewer reads shows what changed and nothing else.
///
/// Ignored by default (``default``):
///
/// | part | rule |
/// | --- | --- |
/// | `recordedAt` | always |
/// | `timing` | each of `firstByte` and `duration` within ±50 % or ±50 ms of the stored value |
/// | header fields (request and response) | `Date`, `Age`, `Expires`, `Last-Modified`, and ids: names ending in `request-id`, `requestid`, `trace-id`, `traceid` or `correlation-id` (`X-Request-Id`, `X-Amzn-RequestId`, `X-Amzn-Trace-Id`), `CF-Ray`, `X-Runtime`, `Server-Timing`, `traceparent` |
///
/// ```swift
/// // Also ignore a server's build stamp and a timestamp inside JSON responses:
/// let ignored = IgnoredChanges.default
///     .addingHeaders("X-Build")
///     .addingJSONPaths("meta.generatedAt")
/// let tape = try Tape(named: "Feed", mode: .all, options: .init(ignoredChanges: ignored))
/// ```
public struct IgnoredChanges: Sendable, Equatable {
    /// Header names (any case) whose values may change.
    public var headers: [String]
    /// Endings of header names (any case) whose values may change: `request-id` covers
    /// `X-Request-Id` and `X-Amz-Request-Id`.
    public var headerNameEndings: [String]
    /// Places in JSON response bodies whose values may change (`meta.generatedAt`,
    /// `items[*].fetchedAt`), in the syntax of ``RequestMatching/ignoredJSONPaths``.
    public var jsonPaths: [String]
    /// How far a timing may move, as a fraction of the stored value. Default 0.5.
    public var timingFraction: Double
    /// How far a timing may move in seconds, whatever the fraction says. Default 0.05.
    public var timingSeconds: TimeInterval

    /// Dates, ages, request ids and timing, as listed on the type.
    public static let `default` = IgnoredChanges(
        headers: ["Date", "Age", "Expires", "Last-Modified", "CF-Ray", "X-Runtime", "Server-Timing", "traceparent", "tracestate"],
        headerNameEndings: ["request-id", "requestid", "trace-id", "traceid", "correlation-id"],
        jsonPaths: [], timingFraction: 0.5, timingSeconds: 0.05)

    /// Nothing is ignored but `recordedAt`: any other difference rewrites the interaction.
    public static let none = IgnoredChanges(headers: [], headerNameEndings: [], jsonPaths: [], timingFraction: 0, timingSeconds: 0)

    /// Volatile parts from their parts; see the properties.
    public init(
        headers: [String], headerNameEndings: [String] = [], jsonPaths: [String] = [], timingFraction: Double = 0.5,
        timingSeconds: TimeInterval = 0.05
    ) {
        self.headers = headers
        self.headerNameEndings = headerNameEndings
        self.jsonPaths = jsonPaths
        self.timingFraction = timingFraction
        self.timingSeconds = timingSeconds
    }

    /// These header fields may change too.
    public func addingHeaders(_ names: String...) -> IgnoredChanges {
        var copy = self
        copy.headers += names
        return copy
    }

    /// These places in JSON response bodies may change too.
    public func addingJSONPaths(_ paths: String...) -> IgnoredChanges {
        var copy = self
        copy.jsonPaths += paths
        return copy
    }

    // MARK: Comparing

    /// Whether `recorded` says nothing `stored` does not, apart from these ignored changes: then
    /// re-recording keeps `stored` as it is in the file. Every member is compared
    /// (``InteractionComparison``): a WebSocket conversation, a stream's chunks, a latency.
    package func isUnchanged(_ recorded: Interaction, comparedWith stored: Interaction) -> Bool {
        stored == recorded || InteractionComparison.differences(from: stored, to: recorded).allSatisfy(ignores)
    }

    /// Whether two requests are the same request: everything equal but ignored header fields.
    func sameRequest(_ a: Interaction.Request, _ b: Interaction.Request) -> Bool {
        a == b || InteractionComparison.requestDifferences(a, b).allSatisfy(ignores)
    }

    /// Whether re-recording ignores `difference`: `recordedAt`; a volatile header field's value;
    /// a time (timing, a chunk's or a message's) within the tolerance; a value at an ignored
    /// place of a JSON response body.
    package func ignores(_ difference: InteractionDifference) -> Bool {
        switch difference.place {
        case .recordedAt:
            return true
        case .request(.header(let name)), .responseHeader(let name):
            return isVolatile(name)
        case .firstByte, .duration, .streamChunkTime, .message(_, .at):
            return difference.seconds.map { closeEnough($0.old, $0.new) } ?? false
        case .responseBody(let path?):
            return jsonPaths.contains { JSONPathPattern($0).contains(path) }
        case .challengeResponse(_, let inside):
            // A challenged response is held to what the interaction's response is held to.
            var difference = difference
            difference.place = inside
            return ignores(difference)
        default:
            return false
        }
    }

    func isVolatile(_ name: String) -> Bool {
        let name = name.lowercased()
        return headers.contains { $0.lowercased() == name } || headerNameEndings.contains { name.hasSuffix($0.lowercased()) }
    }

    private func closeEnough(_ a: TimeInterval, _ b: TimeInterval) -> Bool {
        abs(a - b) <= max(timingSeconds, timingFraction * abs(a))
    }

    /// ``keepingStored(_:for:)`` against a cassette read with its large bodies left in the file
    /// (`deferred`), or nil when that keeps every stored interaction as it is: then the file need
    /// not be written. Compares exactly what reading every body would.
    func keepingStored(_ stored: [Interaction], deferred: DeferredBodies, for recorded: [Interaction]) -> [Interaction]? {
        let kept = keepingStored(stored, for: Self.standingIn(deferred, for: recorded))
        if kept == stored { return nil }
        // …and a kept stored interaction gets its bytes back from the recording it equals.
        return zip(kept, recorded).map { kept, recorded in
            var kept = kept
            kept.request.body = deferred.restored(kept.request.body, from: recorded.request.body)
            if var response = kept.response, let recordedBody = recorded.response?.body, deferred.isPlaceholder(response.body) {
                response.body = deferred.restored(response.body, from: recordedBody)
                kept.response = response
            }
            return kept
        }
    }

    /// `recorded` with each body equal to one left in the file (`deferred`) standing in as that
    /// body's placeholder, so that it compares equal to the stored interaction holding it.
    static func standingIn(_ deferred: DeferredBodies, for recorded: [Interaction]) -> [Interaction] {
        guard !deferred.isEmpty else { return recorded }
        return recorded.map { interaction in
            var interaction = interaction
            if let placeholder = deferred.placeholder(equalTo: interaction.request.body) { interaction.request.body = placeholder }
            if var response = interaction.response, response.stream == nil, let placeholder = deferred.placeholder(equalTo: response.body) {
                response.body = placeholder
                interaction.response = response
            }
            return interaction
        }
    }

    /// `recorded` with each interaction that is `stored`'s apart from ignored changes replaced by
    /// the stored one. Interactions pair in order: each recorded one with the first stored one not
    /// yet paired whose request is the same.
    func keepingStored(_ stored: [Interaction], for recorded: [Interaction]) -> [Interaction] {
        zip(recorded, pairs(stored, recorded)).map { interaction, index in
            guard let index, isUnchanged(interaction, comparedWith: stored[index]) else { return interaction }
            return stored[index]
        }
    }

    /// For each recorded interaction, the index of the stored one it re-records, or nil for a new
    /// request: each recorded one pairs with the first stored one not yet paired whose request is
    /// the same (``sameRequest(_:_:)``).
    func pairs(_ stored: [Interaction], _ recorded: [Interaction]) -> [Int?] {
        // Stored interactions by method and URL, in order: pairing stays linear for big cassettes.
        var unpaired: [String: [Int]] = [:]
        for (index, interaction) in stored.enumerated() {
            unpaired[interaction.request.method + " " + interaction.request.url, default: []].append(index)
        }
        return recorded.map { interaction in
            let key = interaction.request.method + " " + interaction.request.url
            guard let candidates = unpaired[key],
                let position = candidates.firstIndex(where: { sameRequest(stored[$0].request, interaction.request) })
            else {
                return nil
            }
            unpaired[key]?.remove(at: position)
            return candidates[position]
        }
    }
}
