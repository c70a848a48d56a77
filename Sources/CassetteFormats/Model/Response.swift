extension Interaction {
    /// A response: status, header fields and body, as the caller received them.
    ///
    /// The body is stored decoded, as `URLSession` hands it over, while the headers keep the
    /// recorded `Content-Encoding` and `Content-Length` — exactly what a live caller sees.
    public struct Response: Sendable, Equatable {
        /// The HTTP status code, 100 to 599.
        public var status: Int
        /// The header fields.
        public var headers: Headers
        /// The body.
        public var body: Body

        /// A response from its parts.
        public init(status: Int, headers: Headers = Headers(), body: Body = .empty) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }
}
