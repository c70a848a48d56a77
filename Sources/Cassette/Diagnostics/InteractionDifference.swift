import Foundation

/// One way two recordings of an exchange differ, at its place: what ``InteractionComparison``
/// lists, and what re-recording (``IgnoredChanges``), `cassette diff`, `cassette check --live`
/// read.
///
/// ```text
/// response.status: 200 → 503
/// response.body.$.user.email: removed (was "ada@example.com")
/// latency: added (firstByte 2 s, duration 2 s)
/// webSocket.messages[1]: "hello" → "goodbye"
/// ```
package struct InteractionDifference: Sendable, Equatable, CustomStringConvertible {
    /// Where two interactions differ. Each case names one stored member of ``Interaction`` (or a
    /// place inside one); ``name`` spells it as the walk over an interaction names places
    /// (``Interaction/Part/place``).
    package enum Place: Sendable, Equatable {
        case recordedAt
        /// A part of the request, as the miss report names it (``RequestDifference/between(_:_:rules:)``).
        case request(RequestDifference.Field)
        /// A field of a Connect or gRPC-Web request message (``RequestDifference/messageField``).
        case requestMessage(RequestDifference.MessageField)
        /// The request's header fields as a whole: the same values in another order or spelling.
        case requestHeaders
        /// The request's URL as written: the same parts spelled otherwise.
        case requestURL
        /// The interactions have another number of authentication challenges.
        case challenges
        /// One member of one challenge (``Interaction/Challenge``), by its index.
        case challenge(Int, ChallengeMember)
        /// A place in one challenge's challenged response: ``status``, ``responseHeader(_:)``,
        /// ``responseBody(_:)`` and the others, as in the interaction's response.
        indirect case challengeResponse(Int, Place)
        /// One interaction has a response, the other none.
        case response
        case status
        /// The URL a response came from (after redirects).
        case responseURL
        /// One response header field's values (a name, any case).
        case responseHeader(String)
        /// The response's header fields as a whole: the same values in another order or spelling.
        case responseHeaders
        /// The response body: nil, the whole; else a place in its JSON.
        case responseBody(JSONPath?)
        /// One response body arrives as a stream, the other whole; or the streams have another number of chunks.
        case stream
        /// The bytes of one chunk of a streamed body.
        case streamChunk(Int)
        /// When one chunk of a streamed body arrived.
        case streamChunkTime(Int)
        case error
        /// One interaction has a timing, the other none.
        case timing
        case firstByte
        case duration
        /// The latency written by hand that replaces the timing on replay.
        case latency
        /// What the interaction simulates (``Interaction/scenario``).
        case scenario
        /// One interaction is a WebSocket conversation, the other not; or the conversations have
        /// another number of messages.
        case webSocket
        /// One member of one WebSocket message.
        case message(Int, MessageMember)
    }

    /// What the delegate was asked about a challenge, and its answer.
    package enum ChallengeMember: String, Sendable, Equatable {
        case method
        case realm
        case answer
    }

    /// A member of a WebSocket message.
    package enum MessageMember: String, Sendable, Equatable {
        case from
        case kind
        case at
        case code
        /// The payload: a text or binary message's bytes, a ping's or pong's, a close's reason.
        case payload
    }

    /// Where.
    package var place: Place
    /// The old value as shown; nil when the old interaction has none.
    package var old: String?
    /// The new value as shown; nil when the new interaction has none.
    package var new: String?
    /// For a place that is a moment (``Place/firstByte``, ``Place/duration``, a chunk's or a
    /// message's time): both, in seconds, for a tolerance to judge.
    package var seconds: Seconds?

    /// Two moments, in seconds.
    package struct Seconds: Sendable, Equatable {
        package var old: TimeInterval
        package var new: TimeInterval
    }

    package init(_ place: Place, old: String?, new: String?, seconds: Seconds? = nil) {
        self.place = place
        self.old = old
        self.new = new
        self.seconds = seconds
    }

    /// The place as the walk names places: `recordedAt`, `request.url`, `request.headers.Accept`,
    /// `request.body.$.user.id`, `request.body.messages[1].2.1` (a message's field 1 in field 2),
    /// `challenges[0].answer`, `response.status`, `response.headers.Date`, `response.body`,
    /// `response.stream.chunks[2].at`, `error`, `timing.firstByte`, `latency`, `scenario`,
    /// `webSocket.messages[1]`, `webSocket.messages[3].code`.
    package var name: String {
        switch place {
        case .recordedAt: return "recordedAt"
        case .request(let field):
            switch field {
            case .method: return "request.method"
            case .origin, .path: return "request.url"
            case .query(let key): return "request.url?\(key)"
            case .header(let key): return "request.headers.\(key)"
            case .json(let path): return "request.body.\(JSONDiff.shownPath(path))"
            case .formField(let key): return "request.body.\(key)"
            case .multipartPart(let key): return "request.body[\(RequestDifference.quoted(key))]"
            case .body: return "request.body"
            }
        case .requestMessage(let place):
            let message = place.message.map { ".messages[\($0)]" } ?? ""
            let path = place.path.map { ".\($0)" }.joined()
            return "request.body\(message)\(path)"
        case .requestHeaders: return "request.headers"
        case .requestURL: return "request.url"
        case .challenges: return "challenges"
        case .challenge(let index, let member): return "challenges[\(index)].\(member.rawValue)"
        case .challengeResponse(let index, let inner):
            return "challenges[\(index)].\(InteractionDifference(inner, old: nil, new: nil).name)"
        case .response: return "response"
        case .status: return "response.status"
        case .responseURL: return "response.url"
        case .responseHeader(let key): return "response.headers.\(key)"
        case .responseHeaders: return "response.headers"
        case .responseBody(nil): return "response.body"
        case .responseBody(let path?): return "response.body.\(JSONDiff.shownPath(path))"
        case .stream: return "response.stream"
        case .streamChunk(let index): return "response.stream.chunks[\(index)]"
        case .streamChunkTime(let index): return "response.stream.chunks[\(index)].at"
        case .error: return "error"
        case .timing: return "timing"
        case .firstByte: return "timing.firstByte"
        case .duration: return "timing.duration"
        case .latency: return "latency"
        case .scenario: return "scenario"
        case .webSocket: return "webSocket"
        case .message(let index, .payload): return "webSocket.messages[\(index)]"
        case .message(let index, let member): return "webSocket.messages[\(index)].\(member.rawValue)"
        }
    }

    /// `name: old → new`, `name: added (new)`, `name: removed (was old)`.
    package var description: String {
        switch (old, new) {
        case (nil, let new?): return "\(name): added (\(new))"
        case (let old?, nil): return "\(name): removed (was \(old))"
        default: return "\(name): \(old ?? "-") → \(new ?? "-")"
        }
    }
}
