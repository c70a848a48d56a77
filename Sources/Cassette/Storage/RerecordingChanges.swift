import Foundation

/// What re-recording a cassette changed in it, interaction by interaction, as the test that
/// re-recorded carries it (``Evidence``, `feed.rerecorded.txt`):
///
/// ```
/// Cassettes/feed.json, re-recorded: 1 interaction changed, 1 added, 1 removed
/// interaction 0 (GET https://api.example.com/feed) changed:
///   response.status: 200 → 503
///   response.body.$.items[0].id: 1 → 2
/// interaction 2 (GET https://api.example.com/new): added
/// interaction 1 of the old file (GET https://api.example.com/gone): removed
/// ```
///
/// Recorded and stored interactions pair as re-recording pairs them to keep what did not change
/// (``IgnoredChanges/pairs(_:_:)``), and differ as the one comparison says
/// (``InteractionComparison``), less what re-recording ignores (dates, volatile header fields,
/// timing within its tolerance). Indexes are the interactions' places in the files, from 0, as
/// `cassette show` and `cassette fault --interaction` count them.
struct RerecordingChanges: Equatable {
    /// One interaction's part in the change.
    enum Change: Equatable {
        /// Interaction `index` of the new file re-records one of the old, with these differences.
        case changed(index: Int, request: String, differences: [String])
        /// Interaction `index` of the new file has no counterpart in the old.
        case added(index: Int, request: String)
        /// Interaction `index` of the old file was not recorded again.
        case removed(index: Int, request: String)
    }

    /// The cassette, as messages show it.
    var file: String
    var changes: [Change]

    /// The most differences listed for one interaction; the rest are counted.
    static let differencesShown = 20

    /// What writing `recorded` over `stored` changes; `deferred` says which stored bodies were left
    /// in the file (their size is known, their bytes not read).
    init(file: URL, stored: [Interaction], deferred: DeferredBodies, recorded: [Interaction], ignoring ignored: IgnoredChanges) {
        self.file = ShownPath.of(file)
        let compared = IgnoredChanges.standingIn(deferred, for: recorded)
        let pairs = ignored.pairs(stored, compared)
        var changes: [Change] = []
        for (index, (interaction, pair)) in zip(compared, pairs).enumerated() {
            let request = "\(interaction.request.method) \(interaction.request.url)"
            guard let pair else {
                changes.append(.added(index: index, request: request))
                continue
            }
            let differences = InteractionComparison.differences(from: stored[pair], to: interaction).filter { !ignored.ignores($0) }
            guard !differences.isEmpty else { continue }
            changes.append(
                .changed(
                    index: index, request: request,
                    differences: differences.map { difference in
                        // A body left in the file is known by its size only.
                        var difference = difference
                        if case .responseBody = difference.place, let body = stored[pair].response?.body, deferred.isPlaceholder(body) {
                            difference.old = "\(deferred.size(of: body)) bytes"
                        }
                        return difference.description
                    }))
        }
        let paired = Set(pairs.compactMap { $0 })
        for (index, interaction) in stored.enumerated() where !paired.contains(index) {
            changes.append(.removed(index: index, request: "\(interaction.request.method) \(interaction.request.url)"))
        }
        self.changes = changes
    }

    /// The text the attachment holds.
    var description: String {
        let changed = changes.filter { if case .changed = $0 { true } else { false } }.count
        let added = changes.filter { if case .added = $0 { true } else { false } }.count
        let removed = changes.count - changed - added
        var lines = [
            "\(file), re-recorded: \(changed) interaction\(changed == 1 ? "" : "s") changed, \(added) added, \(removed) removed"
        ]
        for change in changes {
            switch change {
            case .changed(let index, let request, let differences):
                lines.append("interaction #\(index + 1) (\(request)) changed:")
                lines += differences.prefix(Self.differencesShown).map { "  " + $0 }
                if differences.count > Self.differencesShown {
                    lines.append("  … and \(differences.count - Self.differencesShown) more (cassette diff shows them all)")
                }
            case .added(let index, let request):
                lines.append("interaction #\(index + 1) (\(request)): added")
            case .removed(let index, let request):
                lines.append("interaction #\(index + 1) of the old file (\(request)): removed")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
