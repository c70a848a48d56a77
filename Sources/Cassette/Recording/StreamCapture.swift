import Foundation

/// Decides whether a recorded response body arrived over time, and keeps it as the chunks it
/// arrived in (``Interaction/StreamedBody``) when it did:
///
/// - a `text/event-stream` body always, cut where each event ends (an event arrives with its
///   last byte, when a client reads it);
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
    static func stream(of body: Data, arrivals: [Arrival], headers: Interaction.Headers, timing: Interaction.Timing) -> Interaction.StreamedBody? {
        guard !body.isEmpty, let last = arrivals.last, last.end == body.count else { return nil }
        let contentType = headers["Content-Type"]
        var chunks: [Interaction.StreamedBody.Chunk] = []
        var start = 0
        for arrival in arrivals where arrival.end > start {
            let at = min(max((arrival.at * 1000).rounded() / 1000, timing.firstByte), timing.duration)
            chunks.append(.init(at: at, data: body.subdata(in: (body.startIndex + start)..<(body.startIndex + arrival.end))))
            start = arrival.end
        }
        if Interaction.StreamedBody.isEventStream(contentType: contentType) {
            return Interaction.StreamedBody(chunks: chunks).splitAtEvents()
        }
        guard !headers.contains("Content-Length"), !(contentType.map { Interaction.Body.isJSONMediaType(Interaction.Body.mediaType(of: $0)) } ?? false)
        else { return nil }
        let joined = Interaction.StreamedBody.joining(chunks, within: pause)
        return joined.count > 1 ? Interaction.StreamedBody(chunks: joined) : nil
    }
}
