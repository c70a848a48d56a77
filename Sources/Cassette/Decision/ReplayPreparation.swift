import Foundation

/// How a recording the ``PlaybackQueue`` found is made ready to answer one live request, before
/// an executor plays it: the secrets the tape knows put back where the recording holds
/// placeholders, its URLs moved to the live request's origin (``OriginMove``), its times moved to
/// now (``ReplayTime/shifted``); then the answer, or the WebSocket conversation, built from it.
/// What a replay moved, and what it could not, is returned for the tape's report.
struct ReplayPreparation: Sendable {
    var playback: PlaybackQueue
    var redactor: Redactor
    /// How replays are timed when an interaction does not say.
    var latency: Latency
    var time: ReplayTime
    var cassette: URL?
    var mode: RecordMode?
    /// The real time.
    var clock: @Sendable () -> Date

    /// A replay's answer, and what it changed in the recording for the report.
    struct Prepared {
        var answer: Answer
        /// The times ``ReplayTime/shifted`` moved: `#2 Date: Mon, … → Thu, …`.
        var movedTimes: [String] = []
        var warnings: [String] = []
    }

    /// The answer of `interaction` (the cassette's `number`th, from 1) to `live`, whose redacted
    /// form is `redacted`; nil when `beforeReplay` declines it.
    func answer(_ interaction: Interaction, number: Int, to live: Interaction.Request, redacted: Interaction.Request) -> Prepared? {
        let bound = playback.hasPlaceholders && !redactor.bindings.isEmpty
        var recording = interaction
        if redactor.changesPlayback || playback.rules.origin != .exact || bound {
            guard let replayed = redactor.forPlayback(interaction, bound: bound) else { return nil }
            recording = OriginMove.replayed(replayed, for: live.url, rule: playback.rules.origin)
        }
        var movedTimes: [String] = []
        var warnings: [String] = []
        if time.shifts {
            if let recordedAt = recording.recordedAt {
                let shift = TimeShift(
                    seconds: clock().timeIntervalSince(recordedAt), jsonPaths: time.jsonPaths.map(JSONPathPattern.init))
                let result = shift.apply(to: recording)
                recording = result.interaction
                movedTimes = result.moved.map { "#\(number) \($0)" }
                warnings = result.unreadable.map { "#\(number): not a time it can move, replayed as recorded: \($0)" }
            } else {
                warnings = ["#\(number): no recordedAt, so its times were replayed as recorded"]
            }
        }
        return Prepared(
            answer: recording.answer(to: redacted, latency: latency, cassette: cassette), movedTimes: movedTimes, warnings: warnings)
    }

    /// The recorded WebSocket conversation of `interaction` (the cassette's `number`th) as it
    /// answers an upgrade, whose redacted form is `redacted`; nil when `beforeReplay` declines it.
    ///
    /// The `101` gets the tape's values back now; the server's messages get theirs as they are
    /// sent, so that a value the live client sent earlier in the conversation (bound to a
    /// placeholder of its recorded message) comes back in what the server says after it.
    func conversation(_ interaction: Interaction, number: Int, redacted: Interaction.Request) -> ConversationReplay? {
        let bound = playback.hasPlaceholders && !redactor.bindings.isEmpty
        var recording = interaction
        if redactor.changesPlayback || bound {
            guard let replayed = redactor.forPlayback(interaction, bound: bound, parts: .response) else { return nil }
            recording = replayed
        }
        let conversation = recording.webSocket ?? .init()
        let holdsPlaceholders = conversation.messages.contains { PlaceholderPattern.containsPlaceholder($0.data) }
        return ConversationReplay(
            response: recording.response ?? Interaction.Response(status: 101),
            script: WebSocketScript(conversation, latency: recording.latency ?? latency),
            number: number, request: redacted, cassette: cassette, mode: mode,
            ignoredJSONPaths: playback.rules.ignoredJSONPaths,
            placeholders: holdsPlaceholders || redactor.changesPlayback ? redactor : nil, redactor: redactor)
    }
}
