import Foundation

extension Interaction {
    /// One part of an interaction that can hold a value — a URL, a header value, a body, a
    /// WebSocket message — and where it is. The one walk over an interaction
    /// (``forEachPart(in:urlsAndHeaders:text:body:)``, ``changeParts(in:urlsAndHeaders:text:body:)``) hands each part to whoever
    /// looks for or changes values: redaction, scrubbing, placeholder numbering, giving bound values
    /// back on replay, the secret scanner. A new kind of part added here reaches every one of them.
    ///
    /// What is inside a body (JSON values, form fields, multipart parts, lines) is the visitor's to
    /// read: each rule reads a body its own way, and the place of a value inside it continues the
    /// part's place (`response.body` + `user.token` → `response.body.user.token`).
    package enum Part: Sendable, Equatable {
        /// The request's URL, or the response's (after redirects).
        case url(Side)
        /// One value of a header field.
        case header(Side, name: String)
        /// The body, with the `Content-Type` its message declares. A streamed response body is one
        /// part: its chunks together.
        case body(Side, contentType: String?)
        /// The payload of a text or binary WebSocket message, `index` in the conversation.
        case message(index: Int, from: Interaction.WebSocketMessage.Sender)

        /// The request, the response, or the challenged response of a challenge the server made
        /// before the response (``Interaction/challenges``, by index).
        package enum Side: Sendable, Equatable {
            case request
            case response
            case challenge(Int)

            var name: String {
                switch self {
                case .request: return "request"
                case .response: return "response"
                case .challenge(let index): return "challenges[\(index)].response"
                }
            }
        }

        /// Where the part is, as findings and reports name it: `request.url`,
        /// `response.headers.Set-Cookie`, `request.body`, `webSocket.messages[1]`.
        package var place: String {
            switch self {
            case .url(let side): return side.name + ".url"
            case .header(let side, let name): return side.name + ".headers." + name
            case .body(let side, _): return side.name + ".body"
            case .message(let index, _): return "webSocket.messages[\(index)]"
            }
        }

        /// The `Content-Type` a body's message declares; nil for every other part (a WebSocket
        /// message has none).
        package var contentType: String? {
            if case .body(_, let contentType) = self { return contentType }
            return nil
        }

        /// Whether the client sent it (the request, a client message) rather than received it.
        package var isSent: Bool {
            switch self {
            case .url(let side), .header(let side, _), .body(let side, _): return side == .request
            case .message(_, let from): return from == .client
            }
        }
    }

    /// Which parts a walk visits.
    package struct Parts: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }

        package static let request = Parts(rawValue: 1)
        package static let response = Parts(rawValue: 2)
        package static let clientMessages = Parts(rawValue: 4)
        package static let serverMessages = Parts(rawValue: 8)
        /// What the client sent: the request and its WebSocket messages.
        package static let sent: Parts = [.request, .clientMessages]
        /// What the client received: the response and the server's WebSocket messages.
        package static let received: Parts = [.response, .serverMessages]
        package static let all: Parts = [.sent, .received]
    }

    /// Visits every part of `parts` in order: the request's header values, URL and body; each
    /// challenged response's header values, URL and body (with the response, as received); the
    /// response's header values, URL and body; each text and binary WebSocket message. (Header
    /// values come first because redaction numbers its placeholders in this order, and re-recording
    /// the same traffic must write the same numbers.)
    ///
    /// - Parameters:
    ///   - urlsAndHeaders: false to visit bodies and messages only.
    ///   - text: each URL and header value.
    ///   - body: each body and message payload.
    package func forEachPart(
        in parts: Parts = .all, urlsAndHeaders: Bool = true, text: (Part, String) -> Void, body: (Part, Body) -> Void
    ) {
        // The same walk as a change that changes nothing: one order, one list of parts.
        var copy = self
        copy.changeParts(
            in: parts, urlsAndHeaders: urlsAndHeaders,
            text: {
                text($0, $1)
                return $1
            },
            body: {
                body($0, $1)
                return $1
            })
    }

    /// Replaces every part of `parts` with what `text` or `body` make of it, in the order of
    /// ``forEachPart(in:urlsAndHeaders:text:body:)``. A streamed response body is changed chunk by chunk when the
    /// changed chunks add up to the changed whole, and arrives in one piece otherwise (a secret
    /// split across two chunks is never kept for the sake of timing).
    package mutating func changeParts(
        in parts: Parts = .all, urlsAndHeaders: Bool = true, text: (Part, String) -> String, body: (Part, Body) -> Body
    ) {
        if parts.contains(.request) { request.changeParts(urlsAndHeaders: urlsAndHeaders, text: text, body: body) }
        if parts.contains(.response) {
            for index in challenges.indices {
                challenges[index].response.changeParts(side: .challenge(index), urlsAndHeaders: urlsAndHeaders, text: text, body: body)
            }
            if var changed = response {
                changed.changeParts(urlsAndHeaders: urlsAndHeaders, text: text, body: body)
                response = changed
            }
        }
        if var conversation = webSocket {
            var changed = false
            for index in conversation.messages.indices {
                let message = conversation.messages[index]
                guard Self.carriesPayload(message), parts.contains(message.from == .client ? .clientMessages : .serverMessages) else {
                    continue
                }
                let data = body(.message(index: index, from: message.from), Body(message.data)).data
                if data != message.data {
                    conversation.messages[index].data = data
                    changed = true
                }
            }
            if changed { webSocket = conversation }
        }
    }

    private static func carriesPayload(_ message: WebSocketMessage) -> Bool {
        message.kind == .text || message.kind == .binary
    }
}

extension Interaction.Request {
    /// The request with its parts changed (see ``Interaction/changeParts(in:urlsAndHeaders:text:body:)``).
    package mutating func changeParts(
        urlsAndHeaders: Bool = true, text: (Interaction.Part, String) -> String,
        body: (Interaction.Part, Interaction.Body) -> Interaction.Body
    ) {
        if urlsAndHeaders {
            headers.transformValues { name, value in text(.header(.request, name: name), value) }
            url = text(.url(.request), url)
        }
        let contentType = headers["Content-Type"]
        let changed = body(.body(.request, contentType: contentType), self.body)
        self.body = changed
    }
}

extension Interaction.Response {
    /// The response with its parts changed (see ``Interaction/changeParts(in:urlsAndHeaders:text:body:)``).
    /// `side` is where it is: the interaction's response, or a challenge's.
    package mutating func changeParts(
        side: Interaction.Part.Side = .response, urlsAndHeaders: Bool = true, text: (Interaction.Part, String) -> String,
        body: (Interaction.Part, Interaction.Body) -> Interaction.Body
    ) {
        if urlsAndHeaders {
            headers.transformValues { name, value in text(.header(side, name: name), value) }
            url = url.map { text(.url(side), $0) }
        }
        let part = Interaction.Part.body(side, contentType: headers["Content-Type"])
        changeBody { body(part, $0) }
    }

    /// Applies `change` to the body. A streamed body is changed chunk by chunk and keeps its
    /// timing when the changed chunks add up to the changed whole; when they do not (a secret split
    /// across two chunks, a JSON rule that needs the whole document), the changed whole is kept and
    /// arrives in one piece.
    package mutating func changeBody(_ change: (Interaction.Body) -> Interaction.Body) {
        let whole = change(body)
        guard whole.data != body.data else { return }
        if let stream {
            let contentType = headers["Content-Type"]
            let chunks = stream.chunks.map { chunk in
                Interaction.StreamedBody.Chunk(at: chunk.at, data: change(Interaction.Body(chunk.data, contentType: contentType)).data)
            }
            let changed = Interaction.StreamedBody(chunks: chunks)
            if changed.data == whole.data, !chunks.contains(where: { $0.data.isEmpty }) {
                self.stream = changed
                return
            }
        }
        body = whole
    }
}
