import Foundation

/// Something ejecting a tape found that the test must hear: a failure or a warning, as a value
/// (``CassetteError/verificationFailed(_:)`` carries the failures; the trait records each as an
/// issue). Its ``description`` is what the test shows.
public enum VerificationFinding: Sendable, Equatable, CustomStringConvertible {
    /// A request that found no match.
    case unmatched(UnmatchedRequest)
    /// Recorded interactions that answered no request (`#3 GET https://…`, numbered from 1 in
    /// file order), as ``Tape/Options/unusedInteractions`` asks.
    case unusedInteractions(cassette: URL, interactions: [String])
    /// The cassette is older than ``Tape/Options/staleness`` allows; `message` says how old and
    /// how to re-record it.
    case stale(cassette: URL, message: String)
    /// A tape that records saw no request at all (see ``Tape/Options/expectsRequests``): the code
    /// under test most likely used another session. `saved`: whether the (empty) cassette was
    /// written.
    case nothingRecorded(cassette: URL, saved: Bool)
    /// A tape that replays an empty cassette saw no request at all (see
    /// ``Tape/Options/expectsRequests``): the code under test most likely sends its requests
    /// through another session, to the network — offline or on CI they fail with the platform's
    /// connection error, and this names the likely cause. Said whether the test passed or not.
    case emptyCassetteReplayed(cassette: URL)
    /// While ``Tape/interceptEverySession(routingTo:)`` routed sessions to the tape, requests
    /// went around its protocol: a background configuration was made, or another protocol class
    /// came to stand before Cassette's in a configuration (a debugging tool such as netfox, or the
    /// code under test). `message` says which, and what to do. A warning.
    case interceptionBypassed(cassette: URL, message: String)

    /// What to do about requests that went through another session.
    static let anotherSessionAdvice =
        "give it tape.session, or a configuration from tape.configure(_:) (in a test with the .cassette trait, "
        + "Tape.current); for URLSession.shared, .cassette(sharedSession: true) or withCassette(…, sharedSession: true). "
        + "A test that sends no requests silences this with Tape.Options(expectsRequests: false)."

    /// The finding as a test failure or a warning shows it.
    public var description: String {
        switch self {
        case .unmatched(let miss):
            return miss.description
        case .unusedInteractions(let cassette, let interactions):
            let count = interactions.count
            return "cassette \(cassette.path): \(count) recorded interaction\(count == 1 ? "" : "s") answered no request:\n"
                + interactions.map { "  " + $0 }.joined(separator: "\n")
                + "\nRemove \(count == 1 ? "it" : "them") from the cassette if the code under test no longer sends \(count == 1 ? "this request" : "these requests"), "
                + "or open the tape with Tape.Options(unusedInteractions: .ignore)."
        case .stale(_, let message):
            return message
        case .nothingRecorded(let cassette, let saved):
            return "cassette \(cassette.path) recorded nothing: no request reached the tape"
                + (saved ? ", and the empty cassette was saved, so it replays nothing. " : ". ")
                + "The code under test most likely sent its requests through another URLSession (URLSession.shared, or one "
                + "it made itself): " + Self.anotherSessionAdvice
        case .emptyCassetteReplayed(let cassette):
            return "cassette \(cassette.path) is empty and no request reached the tape: the code under test most likely sends its "
                + "requests through another URLSession (URLSession.shared, or one it made itself), so they went to the network, "
                + "and offline or on CI they fail with a connection error: " + Self.anotherSessionAdvice
                + " Then record the cassette again: delete it and run the test once with network access."
        case .interceptionBypassed(let cassette, let message):
            return "cassette \(cassette.path): " + message
        }
    }
}
