import Foundation

/// A file the test that used a tape carries as an attachment (the `.cassette` trait records each
/// with Swift Testing's `Attachment`; Xcode shows them beside the failure, and `swift test
/// --attachments-path DIR` writes them): what a failing tape leaves to look at, named after its
/// cassette. A test that only replayed, or recorded a new cassette, carries none.
///
/// - A miss: `feed.misses.txt`, every miss report as the test's failure says it, and
///   `feed.misses.json`, the misses as a cassette (``MissesFile``: each missed request with the
///   error its client got, then its closest recordings whole and what differs), which
///   `cassette view` shows as a page.
/// - A re-recording that changed the cassette: `feed.rerecorded.txt`, what changed, interaction
///   by interaction (``RerecordingChanges``).
package struct Evidence: Equatable, Sendable {
    /// The attachment's file name: `feed.misses.txt`.
    package var name: String
    /// What the file holds.
    package var contents: String

    /// The evidence of a tape on `cassette` that missed `misses`, with `document` the misses as
    /// ``MissesFile`` writes them; none without a miss.
    static func ofMisses(_ misses: [UnmatchedRequest], document: CassetteDocument, cassette: URL) -> [Evidence] {
        guard !misses.isEmpty else { return [] }
        let base = cassette.deletingPathExtension().lastPathComponent
        var evidence = [Evidence(name: base + ".misses.txt", contents: misses.map(\.description).joined(separator: "\n\n") + "\n")]
        if let json = try? JSONCassetteCodec.encode(document) {
            evidence.append(Evidence(name: base + ".misses.json", contents: String(decoding: json, as: UTF8.self)))
        }
        return evidence
    }

    /// The evidence of a re-recording of `cassette` that changed it.
    static func ofRerecording(_ changes: RerecordingChanges, cassette: URL) -> Evidence {
        Evidence(name: cassette.deletingPathExtension().lastPathComponent + ".rerecorded.txt", contents: changes.description)
    }
}
