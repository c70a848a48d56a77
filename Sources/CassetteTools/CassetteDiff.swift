import Cassette
import Foundation

/// What changed from one cassette to another, interaction by interaction (`cassette diff`).
///
/// Interactions are paired by request, as a tape matches them (``RequestMatching``): the first
/// recording of a request in the old cassette with the first of the same request in the new, and
/// so on, so a reordered file is not a change. A request only the new one has is *added*, one
/// only the old one has *removed*. A pair is *changed* when its outcome differs beyond what
/// re-recording ignores (``IgnoredChanges``: dates, ages, request ids, timing within its
/// tolerance), member by member (``InteractionComparison``): the request, the status, the URL a
/// redirect ended at, header fields, the body — a JSON body path by path, any other by its size
/// and a hash — the error, the timing, a latency written by hand, a stream's chunks, a WebSocket
/// conversation message by message.
package struct CassetteDiff: Sendable {
    /// One difference of a changed pair, as `field: old → new`.
    package struct Change: Sendable, Equatable, CustomStringConvertible {
        /// The place, as ``InteractionDifference/name`` spells it: `response.status`, `error`,
        /// `response.headers.X-Name`, `response.body.$.path`, `latency`, `webSocket.messages[1]`.
        package var field: String
        /// The old value as shown (nil: absent).
        package var old: String?
        /// The new value as shown (nil: absent).
        package var new: String?

        package var description: String {
            switch (old, new) {
            case (nil, let new?): return "\(field): added (\(new))"
            case (let old?, nil): return "\(field): removed (was \(old))"
            default: return "\(field): \(old ?? "-") → \(new ?? "-")"
            }
        }
    }

    /// A pair of interactions whose outcome changed.
    package struct Changed: Sendable, Equatable {
        /// Their places in the old and the new cassette, from 0 (`interactions[N]`).
        package var old: Int
        package var new: Int
        /// `GET https://…`, as the new cassette has it.
        package var request: String
        package var changes: [Change]
    }

    /// An interaction only one of the two has.
    package struct Single: Sendable, Equatable {
        package var index: Int
        package var request: String
    }

    package var changed: [Changed] = []
    package var added: [Single] = []
    package var removed: [Single] = []
    /// Pairs that did not change.
    package var unchanged = 0

    /// Whether anything changed.
    package var isEmpty: Bool { changed.isEmpty && added.isEmpty && removed.isEmpty }

    /// The changes from `old` to `new`.
    package init(old: [Interaction], new: [Interaction], matching: RequestMatching = .default, ignoring: IgnoredChanges = .default) {
        var waiting: [RequestKey: [Int]] = [:]
        var unkeyed: [Int] = []
        for (index, interaction) in new.enumerated() {
            if matching.predicate == nil {
                waiting[RequestKey(interaction.request, rules: matching), default: []].append(index)
            } else {
                unkeyed.append(index)
            }
        }
        var paired = Set<Int>()
        for (oldIndex, before) in old.enumerated() {
            let partner: Int?
            if matching.predicate == nil {
                let key = RequestKey(before.request, rules: matching)
                partner = waiting[key]?.first
                if partner != nil { waiting[key]?.removeFirst() }
            } else {
                partner = unkeyed.first { !paired.contains($0) && matching.matches(new[$0].request, before.request) }
            }
            guard let newIndex = partner else {
                removed.append(Single(index: oldIndex, request: Self.shown(before.request)))
                continue
            }
            paired.insert(newIndex)
            let changes = Self.changes(from: before, to: new[newIndex], ignoring: ignoring)
            if changes.isEmpty {
                unchanged += 1
            } else {
                changed.append(Changed(old: oldIndex, new: newIndex, request: Self.shown(new[newIndex].request), changes: changes))
            }
        }
        for (index, interaction) in new.enumerated() where !paired.contains(index) {
            added.append(Single(index: index, request: Self.shown(interaction.request)))
        }
    }

    private static func shown(_ request: Interaction.Request) -> String { "\(request.method) \(request.url)" }

    /// What differs between two recordings of one request: every difference
    /// (``InteractionComparison``) that re-recording would not ignore.
    static func changes(from old: Interaction, to new: Interaction, ignoring: IgnoredChanges) -> [Change] {
        InteractionComparison.differences(from: old, to: new).filter { !ignoring.ignores($0) }.map {
            Change(field: $0.name, old: $0.old, new: $0.new)
        }
    }
}
