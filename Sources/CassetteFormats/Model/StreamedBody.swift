import Foundation

extension Interaction {
    /// A response body that arrived over time: its chunks, each with the moment it arrived.
    ///
    /// Recording keeps one for a `text/event-stream` response, cut at the end of each event, for a
    /// Connect stream or gRPC-Web body, cut at the end of each envelope, and for any other body that arrived in pieces with pauses between them and no `Content-Length`
    /// (chunked or until the connection closed) — a progress feed, NDJSON, long polling. A replay
    /// delivers the chunks with their recorded gaps (or scaled, or all at once under `instant`) to
    /// every caller that can see a body arrive piece by piece.
    ///
    /// In a JSON cassette a `text/event-stream` body is shown as events (``ServerSentEvent``), a
    /// Connect or gRPC-Web stream as envelopes, other streams as chunks of text or base64; `at` counts seconds from the start of the
    /// request, like `timing`:
    ///
    /// ```json
    /// "response": {
    ///   "status": 200,
    ///   "headers": { "Content-Type": "text/event-stream" },
    ///   "stream": { "events": [
    ///     { "at": 0.21, "data": { "choices": [ { "delta": { "content": "Hel" } } ] } },
    ///     { "at": 0.31, "data": "[DONE]" }
    ///   ] }
    /// },
    /// "timing": { "firstByte": 0.2, "duration": 0.31 }
    /// ```
    ///
    /// ```json
    /// "stream": { "chunks": [ { "at": 0.1, "text": "{\"progress\":50}\n" }, { "at": 1.1, "text": "{\"progress\":100}\n" } ] }
    /// ```
    ///
    /// Edit it to simulate what a stream does: move an event's `at` (and the later ones) to slow
    /// it down, delete events, or cut the stream after an event with an interaction `"error":
    /// { "code": "networkConnectionLost" }`.
    public struct StreamedBody: Sendable, Equatable {
        /// Bytes that arrived together.
        public struct Chunk: Sendable, Equatable {
            /// Seconds from the start of the request to the arrival of the chunk's last byte.
            public var at: TimeInterval
            /// The bytes, decoded as the caller gets them.
            public var data: Data

            /// A chunk of `data` arriving `at` seconds after the request started.
            public init(at: TimeInterval, data: Data) {
                self.at = at
                self.data = data
            }

            /// A chunk holding one server-sent event.
            public init(at: TimeInterval, event: ServerSentEvent) {
                self.init(at: at, data: event.serialized())
            }

            /// The chunk as one server-sent event, when its bytes are exactly one event in the
            /// layout ``init(at:event:)`` writes.
            public var event: ServerSentEvent? { ServerSentEvent.canonical(data) }
        }

        /// The chunks, in the order they arrived.
        public var chunks: [Chunk]

        /// A body from its chunks, in the order they arrived.
        public init(chunks: [Chunk]) {
            self.chunks = chunks
        }

        /// `body` cut into chunks of the given sizes, each arriving at its time: how the `.http`
        /// and HAR formats (which keep the body whole and the chunks apart) and recording rebuild a
        /// stream. Nil when a size is not positive or the sizes do not add up to the body.
        package init?(cutting body: Data, into pieces: [(at: TimeInterval, size: Int)]) {
            var chunks: [Chunk] = []
            chunks.reserveCapacity(pieces.count)
            var start = body.startIndex
            for piece in pieces {
                guard piece.size > 0, piece.size <= body.endIndex - start else { return nil }
                chunks.append(Chunk(at: piece.at, data: body.subdata(in: start..<(start + piece.size))))
                start += piece.size
            }
            guard start == body.endIndex else { return nil }
            self.init(chunks: chunks)
        }

        /// Every chunk's bytes, one after another: the whole body.
        public var data: Data {
            chunks.count == 1 ? chunks[0].data : chunks.reduce(into: Data()) { $0.append($1.data) }
        }

        /// Whether a body with this `Content-Type` is a stream of server-sent events.
        package static func isEventStream(contentType: String?) -> Bool {
            contentType.map { Body.mediaType(of: $0) == "text/event-stream" } ?? false
        }

        /// The same bytes cut where each server-sent event ends (``ServerSentEvent/eventEnds(in:)``),
        /// so that each chunk is one event; an event arrives when its last byte did, which is when a
        /// client reads it. Bytes after the last event end form the last chunk.
        package func splitAtEvents() -> StreamedBody {
            split(atEnds: ServerSentEvent.eventEnds(in: data))
        }

        /// The same bytes cut where each Connect or gRPC-Web envelope ends (``RPCEnvelope``), so
        /// that each chunk is one message, arriving with its last byte; the bytes of an envelope
        /// cut short form the last chunk.
        package func splitAtEnvelopes() -> StreamedBody {
            var end = 0
            let ends = RPCEnvelope.split(data).envelopes.map { envelope in
                end += 5 + envelope.payload.count
                return end
            }
            return split(atEnds: ends)
        }

        /// Whether a stream with this `Content-Type` is kept one message per chunk: server-sent
        /// events, and Connect streams and gRPC-Web bodies.
        package static func isMessageStream(contentType: String?) -> Bool {
            guard let contentType else { return false }
            let mediaType = Body.mediaType(of: contentType)
            return mediaType == "text/event-stream" || RPCFraming(mediaType: mediaType) == .envelopes
        }

        /// Whether each chunk is one whole envelope, but the last, which may be the bytes of one
        /// cut short: as ``splitAtEnvelopes()`` cuts, and as a cassette writes it (`"envelopes"`).
        package var isCutAtEnvelopes: Bool {
            for (index, chunk) in chunks.enumerated() {
                let framed = RPCEnvelope.split(chunk.data)
                let isOne = framed.envelopes.count == 1 && framed.rest.isEmpty
                let isCut = index == chunks.count - 1 && framed.envelopes.isEmpty && !framed.rest.isEmpty
                if !isOne, !isCut { return false }
            }
            return !chunks.isEmpty
        }

        /// The name of a stream's list in a cassette: `events` for server-sent events,
        /// `envelopes` for a Connect or gRPC-Web stream cut at its envelopes, else `chunks`.
        package func listName(contentType: String?) -> String {
            if Self.isEventStream(contentType: contentType) { return "events" }
            return Self.isMessageStream(contentType: contentType) && isCutAtEnvelopes ? "envelopes" : "chunks"
        }

        /// The same bytes cut at the message boundaries its `Content-Type` has (events or
        /// envelopes), or unchanged for any other.
        package func splitAtMessages(contentType: String?) -> StreamedBody {
            if Self.isEventStream(contentType: contentType) { return splitAtEvents() }
            return Self.isMessageStream(contentType: contentType) ? splitAtEnvelopes() : self
        }

        /// The same bytes cut at `ends` (offsets, ascending), each piece arriving when its last
        /// byte did; bytes after the last end form the last chunk.
        private func split(atEnds ends: [Int]) -> StreamedBody {
            let whole = data
            var cuts = ends
            if cuts.last != whole.count { cuts.append(whole.count) }
            // When each byte arrived: the end offset of every chunk, with its time.
            var arrivals: [(end: Int, at: TimeInterval)] = []
            var end = 0
            for chunk in chunks where !chunk.data.isEmpty {
                end += chunk.data.count
                arrivals.append((end, chunk.at))
            }
            var split: [Chunk] = []
            var start = 0
            var arrival = 0
            for cut in cuts where cut > start {
                while arrival < arrivals.count - 1, arrivals[arrival].end < cut { arrival += 1 }
                split.append(
                    Chunk(at: arrivals[arrival].at, data: whole.subdata(in: (whole.startIndex + start)..<(whole.startIndex + cut))))
                start = cut
            }
            return StreamedBody(chunks: split)
        }
    }
}
