import Foundation

/// A request that found no recorded match (or no stub) and was refused: what ``Tape/Report``
/// lists in ``Tape/Report/unmatched`` and what a failed test is told.
///
/// Its ``description`` is the full report the caller's `URLError` carries (docs/Architecture.md, "When a request has no match"); the other
/// properties are the same facts as values, for tools and assertions:
///
/// ```swift
/// let report = try tape.eject()
/// if let miss = report.unmatched.first, let closest = miss.candidates.first {
///     print(miss.request.url, closest.differences.map(\.field))   // [.query("page")]
/// }
/// ```
public struct UnmatchedRequest: Sendable, Equatable, CustomStringConvertible {
    /// One recorded interaction close to the request, and how it differs.
    public struct Candidate: Sendable, Equatable {
        /// Its place in the cassette, from 1, in file order.
        public var number: Int
        /// The recorded request, redacted.
        public var request: Interaction.Request
        /// Whether it already answered an earlier request.
        public var alreadyUsed: Bool
        /// What differs, under the tape's matching rules; empty for a match already used.
        public var differences: [RequestDifference]
    }

    /// The request as it was compared: redacted, so no secret appears.
    public var request: Interaction.Request
    /// The cassette searched; nil for a ``StubSession``, which has none.
    public var cassette: URL?
    /// The record mode the cassette was searched in; nil for a ``StubSession``.
    public var mode: RecordMode?
    /// The closest recorded interactions, closest first (those nearly as close as the closest).
    public var candidates: [Candidate]
    /// How many recordings match but already answered earlier requests.
    public var usedUp: Int
    /// The report, as the caller's `URLError` and the test failure show it.
    public var description: String
}
