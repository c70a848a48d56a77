import Foundation

/// What a tape does when its cassette holds interactions recorded longer ago than a given age,
/// so that recordings of an API that moves on do not pass forever.
///
/// ```swift
/// Tape.Options(staleness: .reRecord(after: 30 * 24 * 3600))   // re-record monthly
/// Tape.Options(staleness: .warn(after: 90 * 24 * 3600))
/// ```
///
/// Age is counted from each interaction's `recordedAt`; interactions without one (written by
/// hand) never go stale.
public struct Staleness: Sendable, Equatable {
    /// What happens to a stale cassette.
    public enum Action: String, Sendable, Equatable {
        /// A warning when the tape is ejected; the cassette replays as usual.
        case warn
        /// A test failure when the tape is ejected; the cassette replays as usual.
        case fail
        /// The whole cassette is recorded again (as in record mode `all`), like VCR's
        /// `re_record_interval`. Where the mode cannot record (`none`, as on CI), a warning instead.
        case reRecord
    }

    /// The age, in seconds, beyond which an interaction is stale.
    public var maximumAge: TimeInterval
    /// What happens then.
    public var action: Action

    /// Warn about interactions older than `maximumAge` seconds.
    public static func warn(after maximumAge: TimeInterval) -> Staleness { Staleness(maximumAge: maximumAge, action: .warn) }
    /// Fail the test when interactions are older than `maximumAge` seconds.
    public static func fail(after maximumAge: TimeInterval) -> Staleness { Staleness(maximumAge: maximumAge, action: .fail) }
    /// Re-record the cassette when interactions are older than `maximumAge` seconds.
    public static func reRecord(after maximumAge: TimeInterval) -> Staleness { Staleness(maximumAge: maximumAge, action: .reRecord) }

    /// A staleness rule from its parts.
    public init(maximumAge: TimeInterval, action: Action) {
        self.maximumAge = maximumAge
        self.action = action
    }

    /// What to say about `interactions` of `file` at `now`, or nil when none is stale.
    func finding(in interactions: [Interaction], of file: URL, at now: Date) -> String? {
        let stale = interactions.compactMap(\.recordedAt).filter { now.timeIntervalSince($0) > maximumAge }
        guard let oldest = stale.min() else { return nil }
        let age = maximumAge >= 86_400 ? "\(Self.number(maximumAge / 86_400)) days" : "\(Self.number(maximumAge)) seconds"
        return "cassette \(file.path) is stale: \(stale.count) of its \(interactions.count) interactions were recorded more than "
            + "\(age) ago (the oldest at \(Timestamp.format(oldest) ?? "\(oldest)")). "
            + "Re-record it with CASSETTE_RECORD_MODE=all on a machine with network access, and commit it."
    }

    /// `30` for 30.0, `1.5` for 1.5 (one decimal).
    private static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}
