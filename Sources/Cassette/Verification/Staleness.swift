import Foundation

/// What a tape does when the interactions a test replays were recorded longer ago than a given
/// age, so that recordings of an API that moves on do not pass forever.
///
/// ```swift
/// Tape.Options(staleness: .reRecord(after: 30 * 24 * 3600))                // re-record monthly
/// Tape.Options(staleness: .reRecord(after: 30 * 24 * 3600, onCI: .fail))   // …and fail on CI
/// Tape.Options(staleness: .warn(after: 90 * 24 * 3600))
/// ```
///
/// Age is counted from each interaction's `recordedAt`; interactions without one (written by
/// hand) never go stale. A warning or failure counts only the interactions the test replayed:
/// an old interaction nobody asks for does not make a cassette stale (`cassette report` lists it
/// as unused). Re-recording has to be decided when the tape opens, before any request, so
/// ``Action/reRecord`` looks at every interaction of the file.
///
/// On CI — record mode `none`, or `CI` set — a stale cassette is never re-recorded (a recording
/// made there is never committed): ``onCI`` says whether it warns or fails, with the cassette,
/// its age and the command that refreshes it.
public struct Staleness: Sendable, Equatable {
    /// What happens to a stale cassette.
    public enum Action: String, Sendable, Equatable {
        /// A warning when the tape is ejected; the cassette replays as usual.
        case warn
        /// A test failure when the tape is ejected; the cassette replays as usual.
        case fail
        /// The whole cassette is recorded again (as in record mode `all`), like VCR's
        /// `re_record_interval`. On CI, ``Staleness/onCI`` instead.
        case reRecord
    }

    /// The age, in seconds, beyond which an interaction is stale.
    public var maximumAge: TimeInterval
    /// What happens then.
    public var action: Action
    /// What ``Action/reRecord`` does on CI, where it never records: ``Action/warn`` (the default)
    /// or ``Action/fail``.
    public var onCI: Action

    /// Warn about replayed interactions older than `maximumAge` seconds.
    public static func warn(after maximumAge: TimeInterval) -> Staleness { Staleness(maximumAge: maximumAge, action: .warn) }
    /// Fail the test when replayed interactions are older than `maximumAge` seconds.
    public static func fail(after maximumAge: TimeInterval) -> Staleness { Staleness(maximumAge: maximumAge, action: .fail) }
    /// Re-record the cassette when interactions are older than `maximumAge` seconds; on CI, warn
    /// or fail (`onCI`) instead.
    public static func reRecord(after maximumAge: TimeInterval, onCI: Action = .warn) -> Staleness {
        Staleness(maximumAge: maximumAge, action: .reRecord, onCI: onCI)
    }

    /// A staleness rule from its parts. `onCI` other than ``Action/fail`` means ``Action/warn``.
    public init(maximumAge: TimeInterval, action: Action, onCI: Action = .warn) {
        self.maximumAge = maximumAge
        self.action = action
        self.onCI = onCI == .fail ? .fail : .warn
    }

    /// Whether some of `interactions` is older than the limit at `now` (for re-recording).
    func isStale(_ interactions: [Interaction], at now: Date) -> Bool {
        interactions.contains { $0.recordedAt.map { now.timeIntervalSince($0) > maximumAge } ?? false }
    }

    /// What to say when interactions a test replayed, recorded at `replayedAt`, are stale at
    /// `now`, or nil when none is.
    ///
    /// - Parameter test: the test that opened the tape (`Module.Suite/test()`), for the command
    ///   that refreshes it.
    func finding(replayedAt: [Date?], of file: URL, test: String?, at now: Date) -> String? {
        let stale = replayedAt.compactMap { $0 }.filter { now.timeIntervalSince($0) > maximumAge }
        guard let oldest = stale.min() else { return nil }
        let age = maximumAge >= 86_400 ? "\(Self.number(maximumAge / 86_400)) days" : "\(Self.number(maximumAge)) seconds"
        let days = Int(now.timeIntervalSince(oldest) / 86_400)
        let refresh =
            test.map { "Refresh it with CASSETTE_RECORD_MODE=all swift test --filter '\(Self.filter(for: $0))'" }
            ?? "Re-record it with CASSETTE_RECORD_MODE=all"
        return "cassette \(file.path) is stale: \(stale.count) of the \(replayedAt.count) interactions replayed were recorded more than "
            + "\(age) ago (the oldest at \(Timestamp.format(oldest) ?? "\(oldest)"), \(days) days ago). "
            + refresh + " on a machine with network access, and commit it."
    }

    /// `Module.Suite/test()` as `swift test --filter` takes it: `Module.Suite/test`.
    static func filter(for test: String) -> String {
        test.firstIndex(of: "(").map { String(test[..<$0]) } ?? test
    }

    /// `30` for 30.0, `1.5` for 1.5 (one decimal).
    private static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}
