import Foundation

/// A response the router decided to give — a stub's, or a recording's — ready for any executor:
/// the head (status and header fields), the body the caller gets, how the exchange ends, and when.
///
/// Pure data. The session executor (``SessionExecutor``) plays it through a ``ClientChannel``;
/// the wire executor (`TapeServer`) writes it to a socket. Both make their schedule from
/// ``plan(inPieces:timeout:)``, so a replay keeps the same timing, cut and end on either.
package struct Answer: Sendable {
    /// Who answers: what a timeout's message says waited too long.
    enum Source: Sendable, Equatable {
        case stub
        case replay(Latency)
    }

    /// How the body is spread over the time between the first byte and the end.
    enum Shape: Sendable, Equatable {
        /// Evenly (or in one piece, for a caller that takes it whole).
        case even
        /// In the pieces a stream was recorded in: when each arrives (replay time) and its size.
        case pieces([Piece])
        /// In pieces of these sizes, `delay` apart (a stub's ``StubResponse/chunks(_:delay:status:headers:)``).
        case chunks(sizes: [Int], delay: TimeInterval)
    }

    /// One piece of a streamed body.
    struct Piece: Sendable, Equatable {
        var at: TimeInterval
        var size: Int
    }

    var source: Source
    /// The request as errors show it: redacted.
    var request: Interaction.Request
    /// The head (its body is ``body``); nil for an error alone.
    package var response: Interaction.Response?
    /// The bytes the caller gets: all of them, or those before a recorded error cut the body.
    package var body: Data
    /// The error that ends the exchange, if any.
    var endCode: URLError.Code?
    /// Why it ends with ``endCode`` when Cassette (not the recording) says so.
    var failure: RequestFailure?
    /// The description a recorded or stubbed error carries, if any.
    var endDescription: String?
    /// When the head arrives and when the body is complete (or the error comes).
    var timing: Interaction.Timing
    var shape: Shape = .even
    /// Whether anything waits: the plan runs on a timer.
    var isDelayed: Bool
    /// The challenges the server made before this answer, to ask the caller's delegate first
    /// (``KeptChallenge``); empty for most answers, and for a stub's.
    var challenges: [ChallengeStep] = []

    /// A recorded challenge, and the answer a replay plays when the delegate answers it otherwise
    /// than recorded: the challenged response.
    struct ChallengeStep: Sendable {
        var challenge: Interaction.Challenge
        var challenged: Answer
        /// Why the request fails when the delegate answers with a credential the recording was not answered with.
        var unrecorded: RequestFailure
    }

    /// Whether the head sets cookies (a session stores them as it delivers the head).
    var setsCookies: Bool { response?.headers.contains("Set-Cookie") ?? false }

    /// How the answer reaches the caller. `inPieces`: whether every piece of the body reaches it
    /// (a delegate, or a client on the wire); otherwise the body arrives in one piece.
    package func plan(inPieces: Bool, timeout: TimeInterval?) -> DeliveryPlan {
        let spread = inPieces && timing.duration > timing.firstByte
        switch shape {
        case .chunks(let sizes, let delay) where response != nil:
            return DeliveryPlan(chunkSizes: sizes, firstByte: timing.firstByte, delay: delay, inPieces: spread, timeout: timeout)
        case .pieces(let pieces) where response != nil:
            return DeliveryPlan(
                firstByte: timing.firstByte, pieces: pieces.map { ($0.at, $0.size) }, end: timing.duration,
                error: endCode, inPieces: inPieces, timeout: timeout)
        default:
            return DeliveryPlan(
                hasHead: response != nil, bodySize: body.count, error: endCode, timing: timing, inPieces: spread,
                timeout: timeout)
        }
    }

    /// The error a `.fail(code)` step of the plan ends with: a timeout the plan cut in (`timeout`,
    /// not a recorded or stubbed one) says what waited too long; Cassette's own reason when it has
    /// one; otherwise the recorded or stubbed error.
    package func error(_ code: URLError.Code, timeout: TimeInterval?) -> URLError {
        if code == .timedOut, code != endCode, let timeout {
            let what: String
            switch source {
            case .stub: what = "the stub's response"
            case .replay(let latency): what = "its replay (latency \(latency))"
            }
            return RequestFailure(.waitedTooLong(what: what, timeout: timeout), request: request).urlError
        }
        if code == endCode, let failure { return failure.urlError }
        return RequestFailure.urlError(code, url: request.url, endDescription)
    }

    /// This answer failing with `failure` when its head would have come (a head that cannot be built).
    func failing(with failure: RequestFailure) -> Answer {
        var failed = self
        failed.response = nil
        failed.body = Data()
        failed.timing = Interaction.Timing(firstByte: timing.firstByte, duration: timing.firstByte)
        failed.shape = .even
        failed.endCode = failure.code
        failed.failure = failure
        return failed
    }
}
