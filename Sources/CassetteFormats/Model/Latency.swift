import Foundation

/// When a replayed response arrives: its head after the first-byte time, its body complete at
/// the duration, both counted from the start of the request.
///
/// A tape replays `instant` unless told otherwise. Pick another latency per tape
/// (`Tape.Options(latency:)`), per test (the `.cassette` trait and `withCassette`), for a
/// whole run (`CASSETTE_LATENCY=recorded`), or for one interaction in the file, where a
/// hand-written `"latency"` wins over everything else:
///
/// ```json
/// { "request": { … }, "response": { … }, "latency": { "firstByte": 2, "duration": 2.5 } }
/// ```
///
/// | Swift | `CASSETTE_LATENCY` | in a cassette |
/// | --- | --- | --- |
/// | `.instant` | `instant` | `"instant"` |
/// | `.recorded` | `recorded` | `"recorded"` |
/// | `.scaled(0.5)` | `scaled:0.5` | `{ "scaled": 0.5 }` |
/// | `.fixed(firstByte: 0.3, duration: 0.6)` | `fixed:0.3,0.6` | `{ "firstByte": 0.3, "duration": 0.6 }` |
/// | `.downloadSpeed(.edge, firstByte: 0.1)` | `speed:edge,0.1` | `{ "bytesPerSecond": "edge", "firstByte": 0.1 }` |
public struct Latency: Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        case instant
        case recorded
        case scaled(Double)
        case fixed(firstByte: TimeInterval, duration: TimeInterval)
        case downloadSpeed(DownloadSpeed, firstByte: TimeInterval)
    }

    let kind: Kind

    private init(kind: Kind) {
        self.kind = kind
    }

    /// No delay: the whole response at once. The default.
    public static let instant = Latency(kind: .instant)
    /// The timing measured when the interaction was recorded (instant when none was).
    public static let recorded = Latency(kind: .recorded)

    /// The recorded timing multiplied by `factor`: `0.5` replays twice as fast as recorded.
    public static func scaled(_ factor: Double) -> Latency {
        Latency(kind: .scaled(factor))
    }

    /// The same timing for every response: the head after `firstByte` seconds, the body
    /// complete after `duration` seconds (not less than `firstByte`).
    public static func fixed(firstByte: TimeInterval, duration: TimeInterval) -> Latency {
        Latency(kind: .fixed(firstByte: firstByte, duration: duration))
    }

    /// The head after `firstByte` seconds, then the body at `speed`: a response's duration
    /// grows with its size.
    public static func downloadSpeed(_ speed: DownloadSpeed, firstByte: TimeInterval = 0) -> Latency {
        Latency(kind: .downloadSpeed(speed, firstByte: firstByte))
    }

    /// The timing a replay follows, for an interaction recorded with `recorded` (nil when it
    /// has none) whose replay delivers `bodySize` bytes of body.
    package func timing(recorded: Interaction.Timing?, bodySize: Int) -> Interaction.Timing {
        switch kind {
        case .instant:
            return Interaction.Timing(firstByte: 0, duration: 0)
        case .recorded:
            return recorded ?? Interaction.Timing(firstByte: 0, duration: 0)
        case .scaled(let factor):
            guard let recorded else { return Interaction.Timing(firstByte: 0, duration: 0) }
            return Interaction.Timing(firstByte: recorded.firstByte * factor, duration: recorded.duration * factor)
        case .fixed(let firstByte, let duration):
            return Interaction.Timing(firstByte: firstByte, duration: max(firstByte, duration))
        case .downloadSpeed(let speed, let firstByte):
            return Interaction.Timing(firstByte: firstByte, duration: firstByte + speed.seconds(for: bodySize))
        }
    }

    /// When a chunk of a streamed body (``Interaction/StreamedBody``) that arrived `at` seconds into
    /// the recorded exchange arrives in a replay with this latency, given the recorded timing and
    /// the replay's (``timing(recorded:bodySize:)``): as recorded, scaled, all at once under
    /// `instant`, or spread over the replay's body time like the recording's for a fixed latency or
    /// a download speed.
    package func arrival(of at: TimeInterval, recorded: Interaction.Timing, replayed: Interaction.Timing) -> TimeInterval {
        switch kind {
        case .instant: return 0
        case .recorded: return at
        case .scaled(let factor): return at * factor
        case .fixed, .downloadSpeed:
            let span = recorded.duration - recorded.firstByte
            guard span > 0 else { return replayed.duration }
            let share = (min(max(at, recorded.firstByte), recorded.duration) - recorded.firstByte) / span
            return replayed.firstByte + share * (replayed.duration - replayed.firstByte)
        }
    }

    /// Why this latency cannot be used (a negative time or one longer than a day, a duration
    /// before the first byte, a scale above 1,000, a speed under one byte per second), or nil.
    package var problem: String? {
        switch kind {
        case .instant, .recorded:
            return nil
        case .scaled(let factor):
            return factor.isFinite && factor >= 0 && factor <= CassetteRules.largestScale
                ? nil
                : "the scale factor must be from 0 to \(Int(CassetteRules.largestScale)), found \(JSONCassetteCodec.formatSeconds(factor))"
        case .fixed(let firstByte, let duration):
            return CassetteRules.timingProblem(Interaction.Timing(firstByte: firstByte, duration: duration))
        case .downloadSpeed(let speed, let firstByte):
            if let problem = CassetteRules.timingProblem(Interaction.Timing(firstByte: firstByte, duration: firstByte)) {
                return problem
            }
            return CassetteRules.speedProblem(speed.bytesPerSecond)
        }
    }

    // MARK: Text form

    /// What `init(parsing:)` reads, for error messages.
    package static let textForms =
        "instant, recorded, scaled:FACTOR, fixed:FIRSTBYTE,DURATION, or speed:SPEED[,FIRSTBYTE] "
        + "where SPEED is bytes per second or one of \(DownloadSpeed.presets.compactMap(\.name).joined(separator: ", "))"

    /// Reads the text form used by `CASSETTE_LATENCY`: `instant`, `recorded`, `scaled:0.5`,
    /// `fixed:0.3,0.6`, `speed:edge` or `speed:16384,0.1`. Nil when `text` is none of these
    /// or describes an invalid latency (see `problem`).
    package init?(parsing text: String) {
        guard case .success(let latency) = Self.read(text) else { return nil }
        self = latency
    }

    /// `init(parsing:)` with the reason a text is refused: a form it is not, or the
    /// `problem` of the latency it describes. The codecs report this reason.
    package static func read(_ text: String) -> Result<Latency, LatencyTextError> {
        guard let latency = form(of: text) else {
            return .failure(LatencyTextError(message: "expected a latency (\(textForms)), found \(CassetteRules.quoted(text))"))
        }
        if let problem = latency.problem { return .failure(LatencyTextError(message: problem)) }
        return .success(latency)
    }

    /// Why a latency's text form was refused.
    package struct LatencyTextError: Error {
        package var message: String
    }

    /// The latency `text` spells, valid or not; nil when it is none of the forms.
    private static func form(of text: String) -> Latency? {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        let arguments = parts.count == 2 ? parts[1].split(separator: ",", omittingEmptySubsequences: false).map(String.init) : []
        func number(_ text: String) -> Double? { Double(text).flatMap { $0.isFinite ? $0 : nil } }
        let latency: Latency
        switch (parts.first ?? "", arguments.count) {
        case ("instant", 0) where parts.count == 1:
            latency = .instant
        case ("recorded", 0) where parts.count == 1:
            latency = .recorded
        case ("scaled", 1):
            guard let factor = number(arguments[0]) else { return nil }
            latency = .scaled(factor)
        case ("fixed", 2):
            guard let firstByte = number(arguments[0]), let duration = number(arguments[1]) else { return nil }
            latency = .fixed(firstByte: firstByte, duration: duration)
        case ("speed", 1), ("speed", 2):
            guard let speed = DownloadSpeed.preset(named: arguments[0]) ?? number(arguments[0]).map(DownloadSpeed.init(bytesPerSecond:))
            else { return nil }
            guard let firstByte = arguments.count == 2 ? number(arguments[1]) : 0 else { return nil }
            latency = .downloadSpeed(speed, firstByte: firstByte)
        default:
            return nil
        }
        return latency
    }

    /// The text form `init(parsing:)` reads back.
    public var description: String {
        let format = JSONCassetteCodec.formatSeconds
        switch kind {
        case .instant: return "instant"
        case .recorded: return "recorded"
        case .scaled(let factor): return "scaled:\(format(factor))"
        case .fixed(let firstByte, let duration): return "fixed:\(format(firstByte)),\(format(duration))"
        case .downloadSpeed(let speed, let firstByte):
            return firstByte == 0 ? "speed:\(speed)" : "speed:\(speed),\(format(firstByte))"
        }
    }
}
