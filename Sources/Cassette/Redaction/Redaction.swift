import Foundation

/// What a tape removes from interactions before they are stored, so that secrets never reach a
/// cassette file, a report or an error message.
///
/// By default the values of `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie` are
/// replaced with ``replacement`` — keeping what a reader needs and no more:
///
/// | header | recorded as |
/// | --- | --- |
/// | `Authorization: Bearer eyJhbGci…` | `Authorization: Bearer [REDACTED]` (the scheme stays) |
/// | `Cookie: session=9f2c…; theme=dark` | `Cookie: session=[REDACTED]; theme=[REDACTED]` (names stay) |
/// | `Set-Cookie: session=9f2c…; Path=/; HttpOnly` | `Set-Cookie: session=[REDACTED]; Path=/; HttpOnly` (attributes stay) |
/// | any other header you name | `X-Api-Key: [REDACTED]` |
///
/// Add more places, and placeholders for secrets you know:
///
/// ```swift
/// let redaction = Redaction.default
///     .redactingHeaders("X-Api-Key")
///     .redactingQueryParameters("api_key")                 // ?api_key=[REDACTED]
///     .redactingJSONPaths("access_token", "user.ssn")      // in request and response bodies
///     .redactingFormFields("password")                     // application/x-www-form-urlencoded
///     .redactingBodyMatches(#"sk_live_[A-Za-z0-9]+"#)       // a pattern, anywhere in a text body
///     .replacing(ProcessInfo.processInfo.environment["API_TOKEN"] ?? "", with: "<API_TOKEN>")
///
/// @Test(.cassette(options: .init(redaction: redaction))) func fetchesInvoices() async throws { … }
/// ```
///
/// **A secret is removed everywhere in its interaction.** Each value a rule removes is also
/// searched for in the rest of the interaction — URLs, every header, request and response bodies
/// (as written, percent-encoded and JSON-escaped) — and replaced there too: a server that echoes
/// your token in its body (httpbin's `/bearer`) does not leak it. Values shorter than
/// ``minimumEchoLength`` characters are removed only where a rule found them, since short values
/// such as `1` or `dark` turn up by chance.
///
/// **Matching still works.** A live request is redacted the same way before it is compared with
/// the cassette, and so are the recorded requests, so a cassette whose matching includes
/// `Authorization` replays (with any token of the same scheme) and one recorded before a rule
/// existed still matches.
///
/// **Placeholders** (VCR's `filter_sensitive_data`): ``replacing(_:with:)`` writes the placeholder
/// instead of the secret everywhere in the file, and puts the secret back into replayed responses,
/// so the code under test sees the real value while the file holds only the placeholder.
/// Placeholders go in before the rules run, and rules leave them alone: a token with a placeholder
/// is stored as `Authorization: Bearer <API_TOKEN>`, not `Bearer [REDACTED]`, and replays as the token.
///
/// A body rewritten by a JSON path or form field rule is written compactly; bodies otherwise keep
/// their bytes except where a secret was replaced. `Content-Length` stays as recorded.
public struct Redaction: Sendable {
    /// What replaces a removed value: `[REDACTED]`.
    public static let replacement = "[REDACTED]"

    /// A secret and the text the cassette holds instead.
    public struct Placeholder: Sendable, Equatable {
        /// The real value, as the code under test sends or receives it.
        public var secret: String
        /// What the cassette holds instead, e.g. `<API_TOKEN>`.
        public var placeholder: String

        /// A placeholder for `secret`.
        public init(secret: String, placeholder: String) {
            self.secret = secret
            self.placeholder = placeholder
        }
    }

    /// Header names (any case) whose values are removed. Credentials in `Authorization` and
    /// `Proxy-Authorization` keep their scheme; `Cookie` and `Set-Cookie` keep cookie names and
    /// attributes.
    public var headers: [String]
    /// Query parameter names whose values are removed from request and response URLs.
    public var queryParameters: [String]
    /// Paths in JSON bodies (request and response) whose values are removed, in the syntax of
    /// ``RequestMatching/ignoredJSONPaths``: `access_token`, `user.ssn`, `items[*].card`.
    public var jsonPaths: [String]
    /// Field names of `application/x-www-form-urlencoded` bodies whose values are removed.
    public var formFields: [String]
    /// Regular expressions (`NSRegularExpression` syntax) searched for in text bodies. A match is
    /// removed; when the pattern has a capture group, only the first group's text is.
    public var bodyPatterns: [String]
    /// Secrets replaced with a fixed text in the file and put back on playback.
    public var placeholders: [Placeholder]
    /// Values at least this long (in characters) are also removed wherever else they appear in
    /// the interaction. Default 6.
    public var minimumEchoLength: Int

    /// The four credential headers, and nothing else.
    public static let `default` = Redaction(headers: ["Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"])

    /// Nothing is removed. Use only for traffic without credentials.
    public static let none = Redaction(headers: [])

    /// A redaction from its parts; see the properties.
    public init(
        headers: [String],
        queryParameters: [String] = [],
        jsonPaths: [String] = [],
        formFields: [String] = [],
        bodyPatterns: [String] = [],
        placeholders: [Placeholder] = [],
        minimumEchoLength: Int = 6
    ) {
        self.headers = headers
        self.queryParameters = queryParameters
        self.jsonPaths = jsonPaths
        self.formFields = formFields
        self.bodyPatterns = bodyPatterns
        self.placeholders = placeholders
        self.minimumEchoLength = minimumEchoLength
    }

    /// The values of these headers are removed too.
    public func redactingHeaders(_ names: String...) -> Redaction {
        var copy = self
        copy.headers += names
        return copy
    }

    /// The values of these query parameters are removed.
    public func redactingQueryParameters(_ names: String...) -> Redaction {
        var copy = self
        copy.queryParameters += names
        return copy
    }

    /// The values at these paths of JSON bodies are removed.
    public func redactingJSONPaths(_ paths: String...) -> Redaction {
        var copy = self
        copy.jsonPaths += paths
        return copy
    }

    /// The values of these form fields are removed.
    public func redactingFormFields(_ names: String...) -> Redaction {
        var copy = self
        copy.formFields += names
        return copy
    }

    /// What `pattern` matches in a text body is removed (only its first capture group, if it has
    /// one). An invalid pattern makes opening the tape throw ``CassetteError/invalidRedactionPattern(_:reason:)``.
    public func redactingBodyMatches(_ pattern: String) -> Redaction {
        var copy = self
        copy.bodyPatterns.append(pattern)
        return copy
    }

    /// `secret` is written as `placeholder` everywhere in the file and given back on playback.
    /// An empty secret (an unset environment variable) is ignored.
    public func replacing(_ secret: String, with placeholder: String) -> Redaction {
        var copy = self
        copy.placeholders.append(Placeholder(secret: secret, placeholder: placeholder))
        return copy
    }
}
