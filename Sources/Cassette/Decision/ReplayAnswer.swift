import Foundation

extension Interaction {
    /// This recording as the answer to `request` (redacted, as errors show it): the body the
    /// caller gets — cut by the recorded error's `afterBytes`, or by a `Content-Length` it does not
    /// keep — how it ends, and when, at the interaction's latency or else `latency`.
    ///
    /// Its challenges come with it (``Answer/challenges``), each with the challenged response as
    /// an answer of its own.
    ///
    /// - Parameters:
    ///   - cassette: named when a hand-edited `Content-Length` cuts the exchange.
    ///   - keepsDeclaredLength: false for a challenged response, whose body the platform may not
    ///     have handed over while recording (Apple's loading system does not): played as stored.
    func answer(to request: Interaction.Request, latency tapeLatency: Latency, cassette: URL?, keepsDeclaredLength: Bool = true) -> Answer {
        var answer = answerAlone(to: request, latency: tapeLatency, cassette: cassette, keepsDeclaredLength: keepsDeclaredLength)
        answer.challenges = challenges.enumerated().map { round, challenge in
            let challenged = Interaction(request: self.request, response: challenge.response, timing: timing, latency: latency)
            return Answer.ChallengeStep(
                challenge: challenge,
                challenged: challenged.answer(to: request, latency: tapeLatency, cassette: cassette, keepsDeclaredLength: false),
                unrecorded: RequestFailure(.challengeAnsweredOtherwise(challenge, round: round, cassette: cassette), request: request))
        }
        return answer
    }

    private func answerAlone(
        to request: Interaction.Request, latency tapeLatency: Latency, cassette: URL?, keepsDeclaredLength: Bool
    ) -> Answer {
        let latency = self.latency ?? tapeLatency
        var body = Data()
        var endCode = error?.urlError.code
        var failure: RequestFailure?
        if let response {
            body = response.body.data
            if let afterBytes = error?.afterBytes {
                body = body.prefix(max(0, afterBytes))
            } else if error == nil, keepsDeclaredLength, let declared = response.declaredBodyLength(answering: request.method) {
                // Kept as the wire would keep it (see Interaction.Response.declaredBodyLength(answering:)).
                if declared < body.count {
                    body = body.prefix(declared)
                } else if declared > body.count {
                    failure = RequestFailure(
                        .bodyShorterThanDeclared(declared: declared, holds: body.count, cassette: cassette),
                        request: request)
                    endCode = failure?.code
                }
            }
        } else if endCode == nil {
            endCode = .badServerResponse
        }
        guard let stream = response?.stream, request.method != "HEAD" else {
            let timing = latency.timing(recorded: self.timing, bodySize: body.count)
            return Answer(
                source: .replay(latency), request: request, response: response, body: body, endCode: endCode, failure: failure,
                timing: timing, isDelayed: timing.duration > 0)
        }
        // A stream written by hand may have no timing: its chunks say when the body arrived.
        let recorded = self.timing ?? Interaction.Timing(firstByte: 0, duration: stream.chunks.last?.at ?? 0)
        let timing = latency.timing(recorded: recorded, bodySize: body.count)
        var pieces: [Answer.Piece] = []
        var left = body.count
        for chunk in stream.chunks where left > 0 {
            pieces.append(
                Answer.Piece(at: latency.arrival(of: chunk.at, recorded: recorded, replayed: timing), size: min(chunk.data.count, left)))
            left -= chunk.data.count
        }
        return Answer(
            source: .replay(latency), request: request, response: response, body: body, endCode: endCode, failure: failure,
            timing: timing, shape: .pieces(pieces), isDelayed: timing.duration > 0 || (pieces.last.map { $0.at > 0 } ?? false))
    }
}
