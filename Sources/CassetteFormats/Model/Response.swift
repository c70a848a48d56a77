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
        /// The body.
        public var body: Body

        /// A response from its parts.
        public init(status: Int, url: String? = nil, headers: Headers = Headers(), body: Body = .empty) {
            self.status = status
            self.url = url
            self.headers = headers
            self.body = body
        }
    }
}
