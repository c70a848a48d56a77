import Foundation

extension Interaction {
    /// A request as the caller built it.
    public struct Request: Sendable, Equatable {
        /// The method, as sent (`GET`, `POST`, …). Methods are case-sensitive in HTTP.
        public var method: String
        /// The absolute URL exactly as written in the cassette. Kept as text so that a hand-written
        /// URL (unicode, percent escapes) reads back byte for byte; `foundationURL` parses it.
        public var url: String
        /// The header fields the caller set.
        public var headers: Headers
        /// The body; empty for most `GET`s.
        public var body: Body

        /// A request from its parts.
        public init(method: String = "GET", url: String, headers: Headers = Headers(), body: Body = .empty) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }

        /// A request for a Foundation `URL`, stored as its `absoluteString`.
        public init(method: String = "GET", url: URL, headers: Headers = Headers(), body: Body = .empty) {
            self.init(method: method, url: url.absoluteString, headers: headers, body: body)
        }

        /// ``url`` parsed by Foundation, or nil when Foundation cannot parse it.
        package var foundationURL: URL? { URL(string: url) }
    }
}
