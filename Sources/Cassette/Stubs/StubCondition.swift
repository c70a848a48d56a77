import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which requests a ``Stub`` answers. Conditions compose with `&&`, `||` and `!`.
///
/// ```swift
/// .method("GET") && .host("api.example.com") && .path("/users/:id")
/// .pathPrefix("/v2/") && !.header("Authorization")
/// .method("POST") && .jsonBody(containing: ["kind": "order"])
/// ```
///
/// A path or URL pattern names parameters with `:name` (`/users/:id`); their values reach the
/// stub's response builder as ``StubRequest/parameters``. Host and scheme compare without regard
/// to case; paths compare as decoded (`/a%20b` is `/a b`).
public struct StubCondition: Sendable, CustomStringConvertible {
    /// The parameters a match found (empty for conditions without patterns), or nil for no match.
    let evaluate: @Sendable (StubRequest) -> [String: String]?
    /// How the condition reads, for ``Stubs/all`` and messages.
    public let description: String

    /// A condition from a closure that returns the parameters it found, or nil for no match.
    init(_ description: String, _ evaluate: @escaping @Sendable (StubRequest) -> [String: String]?) {
        self.description = description
        self.evaluate = evaluate
    }

    /// A condition from a yes/no test.
    static func test(_ description: String, _ test: @escaping @Sendable (StubRequest) -> Bool) -> StubCondition {
        StubCondition(description) { test($0) ? [:] : nil }
    }

    /// Whether `request` satisfies the condition, and the pattern parameters it found.
    package func matches(_ request: URLRequest) -> Bool {
        evaluate(StubRequest(request)) != nil
    }

    // MARK: Anything

    /// Every request. Prefer a real condition: a stub that answers everything also answers requests
    /// the test did not mean to stub.
    public static let always = StubCondition("always") { _ in [:] }

    /// The test decides: any closure over the request.
    ///
    /// ```swift
    /// .custom("even ids") { request in (Int(request.url?.lastPathComponent ?? "") ?? 1) % 2 == 0 }
    /// ```
    public static func custom(_ description: String = "custom", _ test: @escaping @Sendable (URLRequest) -> Bool) -> StubCondition {
        .test(description) { test($0.urlRequest) }
    }

    // MARK: The request line

    /// The method, in any case: `.method("post")` matches `POST`.
    public static func method(_ method: String) -> StubCondition {
        .test("method \(method.uppercased())") { $0.method == method.uppercased() }
    }

    /// The URL's scheme, in any case.
    public static func scheme(_ scheme: String) -> StubCondition {
        .test("scheme \(scheme)") { $0.components?.scheme?.lowercased() == scheme.lowercased() }
    }

    /// The URL's host, in any case.
    public static func host(_ host: String) -> StubCondition {
        .test("host \(host)") { $0.components?.host?.lowercased() == host.lowercased() }
    }

    /// The path, exactly, or a pattern with `:name` parameters: `/users/:id/posts`.
    public static func path(_ pattern: String) -> StubCondition {
        let pattern = URLPattern(path: pattern)
        return StubCondition("path \(pattern)") { pattern.match(path: $0.path) }
    }

    /// A path starting with `prefix`.
    public static func pathPrefix(_ prefix: String) -> StubCondition {
        .test("path starting with \(prefix)") { $0.path.hasPrefix(prefix) }
    }

    /// A path ending with `suffix`: `.pathSuffix(".json")`.
    public static func pathSuffix(_ suffix: String) -> StubCondition {
        .test("path ending with \(suffix)") { $0.path.hasSuffix(suffix) }
    }

    /// A path the regular expression finds a match in (anchor it with `^…$` for the whole path).
    /// An invalid expression matches nothing and says so in the condition's description.
    public static func pathMatches(_ expression: String) -> StubCondition {
        guard let regex = try? NSRegularExpression(pattern: expression) else {
            return .test("path matching \(expression) (not a valid regular expression: matches nothing)") { _ in false }
        }
        let shared = UncheckedSendable(regex)  // NSRegularExpression is immutable and thread-safe
        return .test("path matching \(expression)") { request in
            let path = request.path
            return shared.value.firstMatch(in: path, range: NSRange(path.startIndex..., in: path)) != nil
        }
    }

    /// A whole URL pattern: scheme, host and port exactly (any case), path segments with `:name`
    /// parameters, the query ignored. `https://api.example.com/accounts/:accountID/followers`.
    public static func url(_ pattern: String) -> StubCondition {
        let parsed = URLComponents(string: pattern)
        let origin = parsed.map { ($0.scheme?.lowercased(), $0.host?.lowercased(), $0.port) }
        let pathPattern = URLPattern(path: parsed?.percentEncodedPath.removingPercentEncoding ?? pattern)
        return StubCondition("URL \(pattern)") { request in
            guard let origin, let components = request.components,
                components.scheme?.lowercased() == origin.0, components.host?.lowercased() == origin.1,
                components.port == origin.2
            else { return nil }
            return pathPattern.match(path: request.path)
        }
    }

    // MARK: Query and headers

    /// A query parameter that is present, with any value.
    public static func queryParameter(_ name: String) -> StubCondition {
        .test("query parameter \(name)") { request in request.queryItems.contains { $0.name == name } }
    }

    /// A query parameter with this value (any of its values, when repeated).
    public static func queryParameter(_ name: String, equals value: String) -> StubCondition {
        .test("query parameter \(name)=\(value)") { request in request.queryItems.contains { $0.name == name && $0.value == value } }
    }

    /// A header field that is present (name in any case).
    public static func header(_ name: String) -> StubCondition {
        .test("header \(name)") { $0.request.headers.contains(name) }
    }

    /// A header field with this value.
    public static func header(_ name: String, equals value: String) -> StubCondition {
        .test("header \(name): \(value)") { $0.request.headers.values(for: name).contains(value) || $0.request.headers[name] == value }
    }

    // MARK: Bodies

    /// A JSON body equal to `expected` by meaning: key order, white space and number spelling do
    /// not matter.
    ///
    /// ```swift
    /// .jsonBody(equals: ["person": ["name": "John Doe", "age": 47]])
    /// .jsonBody(equals: NewOrder(item: "tea", count: 2))      // any Encodable
    /// ```
    public static func jsonBody(equals expected: some Encodable & Sendable) -> StubCondition {
        let wanted = StubJSON.value(encoding: expected)
        return .test("JSON body equal to \(StubJSON.text(wanted))") { request in
            guard let wanted, let body = request.jsonBody else { return false }
            return StubJSON.canonical(body) == StubJSON.canonical(wanted)
        }
    }

    /// A JSON body holding at least what `expected` holds: each key of an expected object present
    /// with a matching value (recursively); arrays and other values equal.
    public static func jsonBody(containing expected: some Encodable & Sendable) -> StubCondition {
        let wanted = StubJSON.value(encoding: expected)
        return .test("JSON body containing \(StubJSON.text(wanted))") { request in
            guard let wanted, let body = request.jsonBody else { return false }
            return StubJSON.contains(body, wanted)
        }
    }

    /// An `application/x-www-form-urlencoded` body with exactly these fields (any order).
    public static func formBody(equals fields: [String: String]) -> StubCondition {
        .test("form body \(fields.keys.sorted())") { request in
            guard let form = request.formFields else { return false }
            return form.count == fields.count && form.allSatisfy { fields[$0.name] == $0.value }
        }
    }

    /// An `application/x-www-form-urlencoded` body holding at least these fields.
    public static func formBody(containing fields: [String: String]) -> StubCondition {
        .test("form body containing \(fields.keys.sorted())") { request in
            guard let form = request.formFields else { return false }
            return fields.allSatisfy { expected in form.contains { $0.name == expected.key && $0.value == expected.value } }
        }
    }

    // MARK: Composition

    /// Both conditions; parameters of both.
    public static func && (lhs: StubCondition, rhs: StubCondition) -> StubCondition {
        StubCondition("\(lhs) and \(rhs)") { request in
            guard let left = lhs.evaluate(request), let right = rhs.evaluate(request) else { return nil }
            return left.merging(right) { first, _ in first }
        }
    }

    /// Either condition; the parameters of the first that holds.
    public static func || (lhs: StubCondition, rhs: StubCondition) -> StubCondition {
        StubCondition("(\(lhs) or \(rhs))") { request in lhs.evaluate(request) ?? rhs.evaluate(request) }
    }

    /// The opposite condition.
    public static prefix func ! (condition: StubCondition) -> StubCondition {
        StubCondition("not \(condition)") { request in condition.evaluate(request) == nil ? [:] : nil }
    }
}
