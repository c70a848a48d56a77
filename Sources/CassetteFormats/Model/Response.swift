extension Interaction {
    /// A response: status, header fields and body, as the caller received them.
    ///
    /// The body is stored decoded, as `URLSession` hands it over, while the headers keep the
    /// recorded `Content-Encoding` and `Content-Length` — exactly what a live caller sees.
    public struct Response: Sendable, Equatable {
        /// The HTTP status code, 100 to 599.
        public var status: Int
        /// The URL this response came from, when it differs from the request's: the request was
        /// redirected and the redirects were followed. `nil` means the request's own URL.
        public var url: String?
        /// The header fields.
        public var headers: Headers
        /// The body, whole. Setting it replaces a ``stream``: the new body arrives in one piece.
        public var body: Body {
            get { storedBody }
            set {
                storedBody = newValue
                storedStream = nil
            }
        }
        /// The body as it arrived over time, chunk by chunk, or nil when it is replayed in one
        /// piece. Setting it sets ``body`` to its bytes.
        public var stream: StreamedBody? {
            get { storedStream }
            set {
                storedStream = newValue
                if let newValue { storedBody = Body(newValue.data, contentType: headers["Content-Type"]) }
            }
        }

        private var storedBody: Body
        private var storedStream: StreamedBody?

        /// A response from its parts.
        public init(status: Int, url: String? = nil, headers: Headers = Headers(), body: Body = .empty) {
            self.status = status
            self.url = url
            self.headers = headers
            self.storedBody = body
        }

        /// A response whose body arrived over time, chunk by chunk.
        ///
        /// ```swift
        /// let response = Interaction.Response(status: 200, headers: ["Content-Type": "text/event-stream"], stream: .init(chunks: [
        ///     .init(at: 0.1, event: ServerSentEvent(data: "one")),
        ///     .init(at: 0.6, event: ServerSentEvent(data: "two")),
        /// ]))
        /// ```
        public init(status: Int, url: String? = nil, headers: Headers = Headers(), stream: StreamedBody) {
            self.init(status: status, url: url, headers: headers)
            self.stream = stream
        }

        /// How many body bytes the headers promise: `Content-Length` when it is a plain number
        /// and the body is stored as it was sent (no `Content-Encoding`: a decoded body is longer
        /// than the compressed length, as it is for a live caller). Nil when nothing is promised,
        /// for a status that has no body (1xx, 204, 304), and for the answer to a `HEAD`, whose
        /// `Content-Length` is the length a `GET` would have had (RFC 9110 §8.6, §9.3.2).
        ///
        /// A replay keeps this promise as the wire would: a longer stored body is cut to it, and
        /// a shorter one ends with `networkConnectionLost` after its last byte, which is what a
        /// live client sees when a server closes early. `afterBytes` and errors written in the
        /// cassette still win.
        ///
        /// - Parameter method: the method of the request this answers; nil when it is not known
        ///   (a lone response file).
        package func declaredBodyLength(answering method: String?) -> Int? {
            guard status >= 200, status != 204, status != 304, !asciiCaseInsensitiveEquals(method ?? "", "HEAD"),
                !headers.contains("Content-Encoding"),
                let text = headers["Content-Length"], !text.isEmpty, text.utf8.count <= 18,
                text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else { return nil }
            return Int(text)
        }
    }
}
