import Foundation

/// Which parts of a request must agree with a recorded one for the recording to answer it.
///
/// By default two requests match when they have the same method, the same URL (scheme and host
/// ignoring case, the default port implied, query parameters in any order, fragment ignored) and
/// the same body — JSON bodies and `application/x-www-form-urlencoded` bodies compared by meaning
/// (key order and white space do not matter), any other body byte for byte. Headers are ignored
/// unless named. `multipart/form-data` bodies are compared part by part: the boundary (which
/// clients draw at random) is ignored, and so is the order of parts with different names; each
/// part's name, file name and content type must agree, a JSON part by meaning and any other byte
/// for byte. A body that says it is multipart but does not parse is compared byte for byte, and
/// the unmatched-request report says why.
///
/// ```swift
/// let matching = RequestMatching.default
///     .includingHeaders("Accept", "X-API-Version")     // these must be equal too
///     .ignoringQueryParameters("timestamp", "nonce")    // these may differ
///     .ignoringJSONPaths("meta.requestId", "items[*].clientTime")
/// ```
///
/// A server on another port or host — a test server on a random port, staging instead of
/// production — replays the same cassette with one option:
///
/// ```swift
/// // Recorded against http://127.0.0.1:53124; the test server now listens on another port.
/// let server = try await TestServer.start()                        // port 0: a free one
/// let tape = try Tape(named: "Todos/list", matching: .default.ignoringPort())
/// let todos = try await TodoClient(baseURL: server.baseURL, session: tape.session).list()
///
/// // Recorded against https://staging.example.com, replayed for https://api.example.com:
/// let matching = RequestMatching.default.ignoringHost()            // scheme, host and port
/// ```
///
/// A custom rule replaces the whole comparison; it can still ask the default one (or any rule
/// built from the options) through ``matches(_:_:)``. To loosen one part, make that part equal
/// and ask the rest:
///
/// ```swift
/// let matching = RequestMatching.custom { live, recorded in
///     // Searches match on method and URL whatever their bodies; everything else as by default.
///     guard live.url.hasPrefix("https://api.example.com/search") else {
///         return RequestMatching.default.matches(live, recorded)
///     }
///     var sameBody = live
///     sameBody.body = recorded.body
///     return RequestMatching.default.matches(sameBody, recorded)
/// }
/// ```
///
/// Rules built from the options use an index, so finding a match does not grow with the size of
/// the cassette; a custom rule compares with each recorded request in turn.
public struct RequestMatching: Sendable {
    /// How much of a URL's origin (scheme, host and port) must agree.
    package enum Origin: Sendable, Equatable {
        /// Scheme, host and port (a default port is the same as none).
        case exact
        /// Scheme and host; any port.
        case anyPort
        /// Any scheme, host and port: the path and the query decide.
        case any
    }

    /// How much of the origin must agree. Default ``Origin/exact``.
    package var origin: Origin = .exact
    /// Whether `multipart/form-data` parts must come in the recorded order. Default `false`: parts
    /// with different names may come in any order (parts sharing a name keep theirs).
    package var comparesMultipartPartOrder = false
    /// Header names whose values must be equal (compared case-insensitively by name).
    public var headers: [String]
    /// Query parameter names left out of the comparison.
    public var ignoredQueryParameters: Set<String>
    /// Paths inside JSON bodies left out of the comparison: `meta.requestId`, `items[0].id`,
    /// `items[*].clientTime` (`[*]` is every element of an array).
    public var ignoredJSONPaths: [String]
    /// A predicate that replaces the comparison above; `nil` uses it.
    public var predicate: (@Sendable (_ live: Interaction.Request, _ recorded: Interaction.Request) -> Bool)?

    /// Method, URL and body, as described on the type.
    public static let `default` = RequestMatching(headers: [], ignoredQueryParameters: [], ignoredJSONPaths: [], predicate: nil)

    /// A comparison of your own. `live` is the request being made, `recorded` one in the cassette.
    public static func custom(
        _ predicate: @escaping @Sendable (_ live: Interaction.Request, _ recorded: Interaction.Request) -> Bool
    ) -> RequestMatching {
        RequestMatching(headers: [], ignoredQueryParameters: [], ignoredJSONPaths: [], predicate: predicate)
    }

    private init(
        headers: [String], ignoredQueryParameters: Set<String>, ignoredJSONPaths: [String],
        predicate: (@Sendable (_ live: Interaction.Request, _ recorded: Interaction.Request) -> Bool)?
    ) {
        self.headers = headers
        self.ignoredQueryParameters = ignoredQueryParameters
        self.ignoredJSONPaths = ignoredJSONPaths
        self.predicate = predicate
    }

    /// The port may differ: a cassette recorded against `http://127.0.0.1:53124` answers requests
    /// to `http://127.0.0.1:60001`. The scheme and host must still agree.
    public func ignoringPort() -> RequestMatching {
        var copy = self
        if copy.origin == .exact { copy.origin = .anyPort }
        return copy
    }

    /// Scheme, host and port may all differ: only the path, the query, the method and the body
    /// (and headers you name) decide. For a recording replayed against another server.
    public func ignoringHost() -> RequestMatching {
        var copy = self
        copy.origin = .any
        return copy
    }

    /// `multipart/form-data` parts must come in the recorded order.
    public func comparingMultipartPartOrder() -> RequestMatching {
        var copy = self
        copy.comparesMultipartPartOrder = true
        return copy
    }

    /// These headers must be equal as well.
    public func includingHeaders(_ names: String...) -> RequestMatching {
        var copy = self
        copy.headers += names
        return copy
    }

    /// These query parameters may differ.
    public func ignoringQueryParameters(_ names: String...) -> RequestMatching {
        var copy = self
        copy.ignoredQueryParameters.formUnion(names)
        return copy
    }

    /// These paths of a JSON body may differ (or be missing on one side).
    public func ignoringJSONPaths(_ paths: String...) -> RequestMatching {
        var copy = self
        copy.ignoredJSONPaths += paths
        return copy
    }

    /// Whether `live` and `recorded` match under these rules: what a tape asks of each recorded
    /// request. A ``custom(_:)`` rule calls it to ask the default comparison, or one built from
    /// the options (`RequestMatching.default.ignoringQueryParameters("page").matches(live, recorded)`).
    public func matches(_ live: Interaction.Request, _ recorded: Interaction.Request) -> Bool {
        if let predicate { return predicate(live, recorded) }
        return RequestKey(live, rules: self) == RequestKey(recorded, rules: self)
    }
}
