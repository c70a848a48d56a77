import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Tape {
    /// What a tape did, returned by ``eject(testFailed:)``.
    public struct Report: Sendable, Equatable {
        /// The cassette file.
        public var file: URL
        /// The record mode the tape ran in.
        public var mode: RecordMode
        /// Requests that reached the tape's sessions (and its server), however they ended:
        /// replayed, recorded, refused, stubbed, left out of the file by ``Options/beforeRecord``,
        /// or failed before any answer (a body that could not be read). A task counts once,
        /// whatever redirects it followed. 0 when the code under test never used the tape.
        public var requests: Int = 0
        /// Requests answered from the cassette.
        public var replayed: Int
        /// Interactions recorded from the network during this use.
        public var recorded: Int
        /// Each request that found no match and was refused: the request, the closest recordings
        /// and what differs; its `description` is the report the caller's error carried.
        public var unmatched: [UnmatchedRequest]
        /// Each recorded interaction that answered no request: `#3 GET https://…` (numbered from
        /// 1 in file order).
        public var unusedInteractions: [String]
        /// What ``Options/staleness`` found, when the cassette is stale and was not re-recorded.
        public var stale: Stale?
        /// Whether the file was written. `false` also when re-recording (mode `all`) found the
        /// same traffic as the file holds, apart from ``Options/ignoredChanges``: the file is then
        /// left as it was, byte for byte.
        public var saved: Bool
        /// What the tape noticed that needs a look but fails nothing: requests that could not
        /// connect while recording and were not saved (see ``Options/savesConnectionFailures``),
        /// and values saved that still look like secrets (see ``Options/secretCheck``). Each is
        /// also written to standard error when it happens.
        public var warnings: [String] = []
        /// Each replay whose match relied on redacted values: the recorded request held a
        /// placeholder (`[REDACTED-1]`) where the live request had a value, which the tape
        /// then gave back in place of the placeholder in the responses that follow.
        public var redactedMatches: [RedactedMatch] = []
        /// With ``Options/time`` ``ReplayTime/shifted``: each time a replay moved, as
        /// `#2 Set-Cookie session expires: Tue, 24 Nov 2026 10:01:00 GMT → Thu, 24 Dec 2026 10:01:00 GMT`.
        /// A time that could not be read is among ``warnings`` instead.
        public var movedTimes: [String] = []
        /// Whether the tape was a pass-through (``Tape/isLive``, `CASSETTE_LIVE`): every request
        /// went live but those a scenario interaction answers (they replay, as a test that set
        /// up a fault needs); nothing was recorded or saved.
        public var isLive = false
        /// The interactions ``Options/beforeReplay`` declined (numbered from 1 in file order), in
        /// the order it declined them: each was as if absent for the request it matched.
        public var declined: [Int] = []
        /// The file the misses were written to (``Options/writesMisses``: `feed.misses.json`), or nil.
        public var missesFile: URL?
        /// What the test that used the tape carries as attachments (``Evidence``).
        package var evidence: [Evidence] = []
        /// The requests went elsewhere: a recording tape, or a replay of an empty cassette, that no
        /// request reached (``Options/expectsRequests``), and requests that went around the
        /// protocol of an interception (``VerificationFinding/interceptionBypassed(cassette:message:)``);
        /// each is among ``warnings``.
        package var bypassed: [VerificationFinding] = []

        /// A replay whose match relied on redacted values.
        public struct RedactedMatch: Sendable, Equatable, CustomStringConvertible {
            /// The interaction that answered, numbered from 1 in file order.
            public var interaction: Int
            /// The recorded request, as the cassette holds it: `GET https://…?flavour=[REDACTED-1]`.
            public var request: String
            /// How many placeholders stood for what the live request had there.
            public var redactedValues: Int

            /// `#1 GET https://…?flavour=[REDACTED-1] matched with 1 redacted value`.
            public var description: String {
                "#\(interaction) \(request) matched with \(redactedValues) redacted value\(redactedValues == 1 ? "" : "s")"
            }
        }

        /// A stale cassette: what to say, and whether it fails the test.
        public struct Stale: Sendable, Equatable {
            /// Which cassette, how many interactions, how old, and how to re-record it.
            public var message: String
            /// Whether the test fails (``Staleness/Action/fail``) or is warned.
            public var fails: Bool
        }
    }
}
