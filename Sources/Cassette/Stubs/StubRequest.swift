import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as a stub sees it: the `URLRequest`, its body (read from `httpBody` or
/// `httpBodyStream`), and the parameters its condition's pattern found.
///
/// ```swift
/// tape.stubs.add(.method("POST") && .path("/accounts/:accountID/followers")) { request in
///     let follower = try? request.decodeJSONBody(as: Follower.self)
///     return .json(["follower_id": follower?.id ?? 0, "following_id": Int(request.parameters["accountID"] ?? "") ?? 0])
/// }
/// ```
public struct StubRequest: Sendable {
    private let wrapped: UncheckedSendable<URLRequest>
    /// The request as a cassette stores it: method, URL, header fields and the body's bytes.
    public let request: Interaction.Request
    /// The values of the `:name` parameters of the stub's path or URL pattern.
    public internal(set) var parameters: [String: String] = [:]

    init(_ urlRequest: URLRequest, captured: Interaction.Request) {
        wrapped = UncheckedSendable(urlRequest)
        request = captured
    }

    /// A stub request for `urlRequest` (reading its body stream, if it has one).
    init(_ urlRequest: URLRequest) {
        self.init(urlRequest, captured: Interaction.Request.capturing(urlRequest).request)
    }

    /// The request as the caller made it.
    public var urlRequest: URLRequest { wrapped.value }

    /// The URL.
    public var url: URL? { wrapped.value.url }

    /// The method, upper-cased.
    public var method: String { request.method.uppercased() }

    /// The body's bytes (empty when there is none).
    public var body: Data { request.body.data }

    /// The body decoded from JSON.
    ///
    /// - Throws: the `DecodingError` of `JSONDecoder`.
    public func decodeJSONBody<T: Decodable>(as type: T.Type) throws -> T {
        // Foundation's JSON coder stays here, not the project's JSON: `T` is the user's `Decodable`,
        // which speaks only to a `Decoder`.
        try JSONDecoder().decode(type, from: body)
    }

    // MARK: For conditions

    var components: URLComponents? {
        url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) }
    }

    /// The decoded path; `/` when the URL has none.
    var path: String {
        let path = components?.path ?? ""
        return path.isEmpty ? "/" : path
    }

    var queryItems: [URLQueryItem] { components?.queryItems ?? [] }

    /// The body as JSON, when it is JSON.
    var jsonBody: JSONValue? {
        guard !body.isEmpty else { return nil }
        return try? JSONParser.parse(body).value
    }

    /// The body's form fields, when it is `application/x-www-form-urlencoded`.
    var formFields: [FormFields.Field]? {
        guard request.headers["Content-Type"]?.lowercased().contains("application/x-www-form-urlencoded") == true,
            let text = request.body.text
        else { return nil }
        return FormFields.parse(text)
    }
}
