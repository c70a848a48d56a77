import Foundation

/// What changed from one cassette to another, interaction by interaction (`cassette diff`).
///
/// Interactions are paired by request, as a tape matches them (``RequestMatching``): the first
/// recording of a request in the old cassette with the first of the same request in the new, and
/// so on, so a reordered file is not a change. A request only the new one has is *added*, one
/// only the old one has *removed*. A pair is *changed* when its outcome differs beyond what
/// re-recording ignores (``IgnoredChanges``: dates, ages, request ids, timing within its
/// tolerance): the status, the error, the URL a redirect ended at, header fields, the body — a
/// JSON body path by path (``JSONDiff``), any other by its size and a hash.
package struct CassetteDiff: Sendable {
    /// One difference of a changed pair, as `field: old → new`.
    package struct Change: Sendable, Equatable, CustomStringConvertible {
        /// `status`, `error`, `url`, `header X-Name`, `body`, `body $.path`, `timing`.
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

    /// What differs between two recordings of one request.
    static func changes(from old: Interaction, to new: Interaction, ignoring: IgnoredChanges) -> [Change] {
        var changes: [Change] = []
        func note(_ field: String, _ a: String?, _ b: String?) {
            if a != b { changes.append(Change(field: field, old: a, new: b)) }
        }
        note("status", old.response.map { String($0.status) }, new.response.map { String($0.status) })
        note("error", old.error.map(describe), new.error.map(describe))
        note("url", old.response?.url, new.response?.url)
        if !ignoring.closeEnough(old.timing, new.timing) {
            note("timing", old.timing.map(describe), new.timing.map(describe))
        }
        let oldHeaders = old.response?.headers ?? Interaction.Headers()
        let newHeaders = new.response?.headers ?? Interaction.Headers()
        var names: [String] = []
        for field in oldHeaders.fields + newHeaders.fields
        where !ignoring.isVolatile(field.name) && !names.contains(where: { $0.caseInsensitiveCompare(field.name) == .orderedSame }) {
            names.append(field.name)
        }
        for name in names {
            let a = oldHeaders.values(for: name)
            let b = newHeaders.values(for: name)
            note("header \(name)", a.isEmpty ? nil : a.joined(separator: ", "), b.isEmpty ? nil : b.joined(separator: ", "))
        }
        let oldBody = old.response?.body.data ?? Data()
        let newBody = new.response?.body.data ?? Data()
        guard oldBody != newBody else { return changes }
        if let a = old.response.flatMap({ BodyContent(of: $0).json }), let b = new.response.flatMap({ BodyContent(of: $0).json }) {
            let ignored = ignoring.jsonPaths.map(JSONPathPattern.init)
            let x = ignored.isEmpty ? a : CanonicalJSON.value(a, removing: ignored)
            let y = ignored.isEmpty ? b : CanonicalJSON.value(b, removing: ignored)
            for change in JSONDiff.changes(from: x, to: y) {
                switch change.kind {
                case .added(let value): changes.append(Change(field: "body \(change.shownPath)", old: nil, new: value))
                case .removed(let value): changes.append(Change(field: "body \(change.shownPath)", old: value, new: nil))
                case .value(let a, let b), .type(let a, let b): changes.append(Change(field: "body \(change.shownPath)", old: a, new: b))
                }
            }
        } else {
            note("body", describe(oldBody), describe(newBody))
        }
        return changes
    }

    private static func describe(_ error: Interaction.TransportError) -> String {
        let name = error.code.name ?? "code \(error.code.rawValue)"
        return error.afterBytes.map { "\(name) after \($0) bytes" } ?? name
    }

    private static func describe(_ timing: Interaction.Timing) -> String {
        "\(Int((timing.firstByte * 1000).rounded())) / \(Int((timing.duration * 1000).rounded())) ms"
    }

    /// A body as a change shows it: its size and a hash of its bytes (FNV-1a, 64 bits).
    static func describe(_ body: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "\(body.count) bytes, fnv1a \(String(repeating: "0", count: 16 - hex.count) + hex)"
    }
}
