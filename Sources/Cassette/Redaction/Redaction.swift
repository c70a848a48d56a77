import Foundation

/// What a tape removes from interactions before they are stored, so that secrets never reach a
/// cassette file, a report or an error message.
///
/// By default (``default``) the well-known places of credentials are replaced with a numbered
/// placeholder, `[REDACTED-1]`, `[REDACTED-2]`, … one per secret, the same wherever that secret
/// appears (values shorter than ``minimumEchoLength`` get the plain ``replacement``), keeping what
/// a reader needs and no more:
///
/// | where | by default | recorded as |
/// | --- | --- | --- |
/// | `Authorization`, `Proxy-Authorization` | always | `Authorization: Bearer [REDACTED-1]` (the scheme stays) |
/// | `Cookie` | always | `Cookie: session=[REDACTED-2]; theme=[REDACTED]` (names stay) |
/// | `Set-Cookie` | always | `Set-Cookie: session=[REDACTED-2]; Path=/; HttpOnly` (attributes stay) |
/// | other headers | ``credentialHeaders``: `X-Api-Key`, `Api-Key`, `X-Auth-Token`, … | `X-Api-Key: [REDACTED-3]` |
/// | query parameters: request and response URLs, URLs in `Location`, `Content-Location`, `Link`, `Refresh`, `Referer`, in query values and in JSON strings | ``credentialQueryParameters``: `api_key`, `access_token`, `key`, `sig`, … | `?api_key=[REDACTED-4]` |
/// | JSON bodies, at any depth | ``credentialFields`` as keys: `access_token`, `id_token`, `password`, … | `{"access_token": "[REDACTED-5]"}` |
/// | form bodies | ``credentialFields`` as field names | `password=[REDACTED-6]` |
///
/// Query parameter, form field and JSON key names compare ignoring case, `_` and `-`:
/// `access_token` also covers `accessToken`, `Access-Token` and `ACCESS_TOKEN`.
///
/// **What the defaults change on replay.** A placeholder in a recorded request matches whatever
/// the live request has in its place, and the tape gives that value back wherever the placeholder
/// stands in later responses (``Tape/Report/redactedMatches`` lists such replays): the client
/// sees the values it sent itself. The one limit, by design: a request that differs from its
/// recording only in a redacted value matches it. A secret the server made replays as its
/// placeholder: in `Set-Cookie` values, and in the values of JSON keys such as `access_token` or
/// `id_token`, which keep their shape so that a `Codable` client still decodes them: a string
/// becomes its placeholder, a number `0`, an object or array keeps its keys and length with its
/// strings and numbers redacted, booleans and nulls stay. An empty value is left as it is. A
/// `Content-Length` (request or response) that was true of a body stays true of the redacted
/// body. To replay a credential the client did not send as it was, give it a placeholder
/// (``replacing(_:with:)``), which puts it back on replay; to keep the old behaviour, start from
/// ``init(headers:queryParameters:jsonPaths:jsonKeys:formFields:bodyPatterns:placeholders:minimumEchoLength:)``
/// with the four credential headers only.
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
/// **A secret is removed everywhere in the tape.** Each value a rule removes is also
/// searched for in the rest of the interaction — URLs, every header, request and response bodies
/// (as written, percent-encoded and JSON-escaped) — and replaced there too: a server that echoes
/// your token in its body (httpbin's `/bearer`) does not leak it — and in every other interaction
/// of the tape, so a token a rule found in one request's `Authorization` is also removed from a
/// later request that carries it in its query. A live request is redacted with every secret the
/// tape has seen so far before it is matched, so such a request still matches. Values shorter than
/// ``minimumEchoLength`` characters are removed only where a rule found them, since short values
/// such as `1` or `dark` turn up by chance.
///
/// **Matching still works.** A placeholder stands for whatever the live request has in its place
/// (`[REDACTED-1]` matches `abc123`), and a live request is redacted the same way before it is compared
/// with a recording of the plain `[REDACTED]` of earlier releases, so a cassette whose matching
/// includes `Authorization` replays (with any token of the same scheme) and one recorded before a
/// rule existed still matches.
///
/// **Placeholders** (VCR's `filter_sensitive_data`): ``replacing(_:with:)`` writes the placeholder
/// instead of the secret everywhere in the file, and puts the secret back into replayed responses,
/// so the code under test sees the real value while the file holds only the placeholder.
/// Placeholders go in before the rules run, and rules leave them alone: a token with a placeholder
/// is stored as `Authorization: Bearer <API_TOKEN>`, not `Bearer [REDACTED]`, and replays as the token.
///
/// **Echoes are found in every encoding**: as written, percent-encoded (upper- or lower-case hex,
/// `+` or `%20` for a space, unreserved characters encoded or not), JSON-escaped, and, for Basic
/// credentials, base64 and decoded.
///
/// A body rewritten by a JSON path, JSON key or form field rule is written compactly; bodies
/// otherwise keep their bytes except where a secret was replaced. A `Content-Length` that was true
/// of the body is kept true of the redacted one.
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
    /// Query parameter names whose values are removed from request and response URLs (compared
    /// ignoring case, `_` and `-`).
    public var queryParameters: [String]
    /// Paths in JSON bodies (request and response) whose values are removed, in the syntax of
    /// ``RequestMatching/ignoredJSONPaths``: `access_token`, `user.ssn`, `items[*].card`.
    public var jsonPaths: [String]
    /// Keys whose values are removed wherever they appear in a JSON body, at any depth (names
    /// compared ignoring case, `_` and `-`).
    public var jsonKeys: [String]
    /// Field names of `application/x-www-form-urlencoded` bodies whose values are removed
    /// (compared ignoring case, `_` and `-`).
    public var formFields: [String]
    /// Regular expressions (`NSRegularExpression` syntax) searched for in text bodies. A match is
    /// removed; when the pattern has a capture group, only the first group's text is.
    public var bodyPatterns: [String]
    /// Secrets replaced with a fixed text in the file and put back on playback.
    public var placeholders: [Placeholder]
    /// Values at least this long (in characters) are also removed wherever else they appear in
    /// the interaction. Default 6.
    public var minimumEchoLength: Int

    /// Headers that carry credentials: the four standard ones and the common API-key and token
    /// headers.
    public static let credentialHeaders = [
        "Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie",
        "X-Api-Key", "Api-Key", "X-Auth-Token", "X-Access-Token", "X-Goog-Api-Key", "X-Amz-Security-Token",
        "Private-Token", "X-Vault-Token", "X-Client-Secret",
    ]

    /// Names that hold credentials as JSON keys and form fields.
    public static let credentialFields = [
        "api_key", "apikey", "access_token", "refresh_token", "id_token", "auth_token", "token", "session_token",
        "security_token", "client_secret", "secret_key", "private_key", "password", "passwd", "passphrase",
    ]

    /// Names that hold credentials as query parameters: ``credentialFields``, and the short or
    /// signing names URLs use (`key`, `sig`, `signature`, AWS's presigned `X-Amz-*`).
    public static let credentialQueryParameters =
        credentialFields + [
            "key", "secret", "sig", "signature", "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token",
        ]

    /// Credentials out by default: ``credentialHeaders`` in headers,
    /// ``credentialQueryParameters`` in URLs, ``credentialFields`` as JSON keys and form fields,
    /// and every echo of what they held.
    public static let `default` = Redaction(
        headers: credentialHeaders, queryParameters: credentialQueryParameters, jsonKeys: credentialFields, formFields: credentialFields)

    /// Nothing is removed. Use only for traffic without credentials.
    public static let none = Redaction(headers: [])

    /// Whether `other` lists exactly the same rules, in the same order (``RedactionRules`` reuses
    /// the default's rules for a tape that keeps them).
    func hasTheSameRules(as other: Redaction) -> Bool {
        headers == other.headers && queryParameters == other.queryParameters && jsonPaths == other.jsonPaths
            && jsonKeys == other.jsonKeys && formFields == other.formFields && bodyPatterns == other.bodyPatterns
            && placeholders == other.placeholders && minimumEchoLength == other.minimumEchoLength
    }

    /// `name` as names are compared: lowercased, without `_` and `-`.
    static func comparable(_ name: String) -> String {
        // ASCII, as names almost always are, byte by byte: every tape makes its rules from the
        // default lists, and the general path cost a tape about 10 µs.
        var ascii: [UInt8] = []
        ascii.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            guard byte < 0x80 else { return String(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" }) }
            if byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") { continue }
            ascii.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
        }
        return String(decoding: ascii, as: UTF8.self)
    }

    /// A redaction from its parts; see the properties.
    public init(
        headers: [String],
        queryParameters: [String] = [],
        jsonPaths: [String] = [],
        jsonKeys: [String] = [],
        formFields: [String] = [],
        bodyPatterns: [String] = [],
        placeholders: [Placeholder] = [],
        minimumEchoLength: Int = 6
    ) {
        self.headers = headers
        self.queryParameters = queryParameters
        self.jsonPaths = jsonPaths
        self.jsonKeys = jsonKeys
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

    /// The values of these keys are removed wherever they appear in JSON bodies.
    public func redactingJSONKeys(_ keys: String...) -> Redaction {
        var copy = self
        copy.jsonKeys += keys
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
