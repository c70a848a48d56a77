import Foundation

extension Router {
    /// What happened to the requests so far.
    struct Log: Sendable {
        /// Requests that reached the tape's sessions or server (``ExecutorAccess/noteRequest()``).
        var requests = 0
        var replayed = 0
        var unmatched: [UnmatchedRequest] = []
        /// Requests that could not connect while recording and were not saved.
        var connectionFailures = 0
        var warnings: [String] = []
        /// Replays whose match relied on redacted values.
        var redactedMatches: [Tape.Report.RedactedMatch] = []
        /// The interactions `beforeReplay` declined (numbered from 1), in order.
        var declined: [Int] = []
        /// What ``ReplayTime/shifted`` moved.
        var movedTimes: [String] = []
        /// When the first replayed interaction was recorded, and when it was replayed: the
        /// recording's clock (``Tape/now``) runs from there.
        var clockAnchor: (recorded: Date, replayed: Date)?
    }
}
