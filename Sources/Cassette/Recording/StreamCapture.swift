import Foundation

/// Decides whether a recorded response body arrived over time, and keeps it as the chunks it
/// arrived in (``Interaction/StreamedBody``) when it did:
///
/// - a `text/event-stream` body always, cut where each event ends (an event arrives with its
///   last byte, when a client reads it), and so a Connect stream or a gRPC-Web body, cut where
///   each envelope ends (a server stream's messages, each with its arrival);
/// - any other body without a `Content-Length` (chunked, or until the connection closed) and not
///   a JSON document, when it came in pieces with a pause of at least ``pause`` between them: a
///   progress feed, NDJSON, long polling. Pieces with no pause between them (the network cutting
///   one write into packets) are one chunk.
///
/// A body with a `Content-Length`, or a JSON document, is read whole by its caller: it is
/// recorded in one piece, as before, and replays its timing as `firstByte` and `duration`.
enum StreamCapture {
    /// When a piece of the body arrived: the body's length after it, and seconds from the start
    /// of the request.
    struct Arrival: Sendable, Equatable {
        var end: Int
        var at: TimeInterval
    }

    /// The shortest pause between two pieces that makes them two chunks of a stream.
    static let pause: TimeInterval = 0.01

    /// `body`, which arrived as `arrivals` say, as a stream; nil when it is recorded whole.
    /// Times are rounded to the millisecond like the interaction's `timing`, and kept within it.
    static func stream(
        of body: Data, arrivals: [Arrival], headers: Interaction.Headers, timing: Interaction.Timing
    ) -> Interaction.StreamedBody? {
        guard !body.isEmpty, arrivals.count > 0, arrivals[arrivals.count - 1].end == body.count else { return nil }
        let contentType = headers["Content-Type"]
        let isMessageStream = Interaction.StreamedBody.isMessageStream(contentType: contentType)
        // Decided on the arrivals alone: a body recorded whole is never copied.
        var cuts: [Arrival] = []
        for arrival in arrivals {
            let at = min(max((arrival.at * 1000).rounded() / 1000, timing.firstByte), timing.duration)
            if let last = cuts.last, arrival.end <= last.end { continue }
            if !isMessageStream, let last = cuts.last, at - last.at < pause {
                cuts[cuts.count - 1] = Arrival(end: arrival.end, at: at)
            } else {
                cuts.append(Arrival(end: arrival.end, at: at))
            }
        }
        if !isMessageStream {
            let isJSON = contentType.map { Interaction.Body.isJSONMediaType(Interaction.Body.mediaType(of: $0)) } ?? false
            guard cuts.count > 1, !headers.contains("Content-Length"), !isJSON else { return nil }
        }
        let sizes = zip(cuts, [Arrival(end: 0, at: 0)] + cuts).map { (at: $0.at, size: $0.end - $1.end) }
        let stream = Interaction.StreamedBody(cutting: body, into: sizes)
        return isMessageStream ? stream?.splitAtMessages(contentType: contentType) : stream
    }
}
