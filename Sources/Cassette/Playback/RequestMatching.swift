import Foundation

/// Which parts of a request must agree with a recorded one for the recording to answer it.
///
/// By default two requests match when they have the same method, the same URL (scheme and host
/// ignoring case, the default port implied, query parameters in any order, fragment ignored) and
/// the same body — JSON bodies and `application/x-www-form-urlencoded` bodies compared by meaning
/// (key order and white space do not matter), any other body byte for byte. Headers are ignored
/// unless named.
///
/// ```swift
/// let matching = RequestMatching.default
///     .includingHeaders("Accept", "X-API-Version")     // these must be equal too
///     .ignoringQueryParameters("timestamp", "nonce")    // these may differ
///     .ignoringJSONPaths("meta.requestId", "items[*].clientTime")
/// ```
///
/// A custom rule replaces the whole comparison; it can still call the default one:
///
/// ```swift
/// let matching = RequestMatching.custom { live, recorded in
///     live.method == recorded.method && live.url.hasPrefix("https://api.example.com/search")
/// }
/// ```
///
/// Rules built from the options use an index, so finding a match does not grow with the size of
/// the cassette; a custom rule compares with each recorded request in turn.
public struct RequestMatching: Sendable {
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
    public static func custom(_ predicate: @escaping @Sendable (_ live: Interaction.Request, _ recorded: Interaction.Request) -> Bool) -> RequestMatching {
        RequestMatching(headers: [], ignoredQueryParameters: [], ignoredJSONPaths: [], predicate: predicate)
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

    /// Whether `live` and `recorded` match under these rules.
    public func matches(_ live: Interaction.Request, _ recorded: Interaction.Request) -> Bool {
        if let predicate { return predicate(live, recorded) }
        return RequestKey(live, rules: self) == RequestKey(recorded, rules: self)
    }
}
