import Foundation

/// One installed stub: a condition, and what to answer the requests that meet it. Returned by
/// ``Stubs/add(_:name:respond:)``; keep it to remove the stub later.
public final class Stub: Sendable, CustomStringConvertible {
    /// The name given when it was added, for logs and ``Stubs/all``.
    public let name: String?
    /// Which requests it answers.
    public let condition: StubCondition
    let respond: @Sendable (StubRequest) -> StubResponse
    /// URLMock-style expectation: answers one request, then is used up; ``Stubs/verify()``
    /// reports it when it never answered.
    let isExpectation: Bool
    /// With an expectation's header checking: the exact header fields a request must have.
    let requiredHeaders: Interaction.Headers?

    init(
        name: String?, condition: StubCondition, isExpectation: Bool = false, requiredHeaders: Interaction.Headers? = nil,
        respond: @escaping @Sendable (StubRequest) -> StubResponse
    ) {
        self.name = name
        self.condition = condition
        self.isExpectation = isExpectation
        self.requiredHeaders = requiredHeaders
        self.respond = respond
    }

    /// `"feed is down" (method GET and path /feed)`, or the condition alone.
    public var description: String {
        let kind = isExpectation ? "expected request" : "stub"
        return name.map { "\(kind) \"\($0)\" (\(condition))" } ?? "\(kind) (\(condition))"
    }

    /// The parameters the stub's condition finds in `request`, or nil when it does not answer it.
    func match(_ request: StubRequest) -> [String: String]? {
        guard let parameters = condition.evaluate(request) else { return nil }
        if let requiredHeaders, !Self.sameHeaders(request.request.headers, requiredHeaders) { return nil }
        return parameters
    }

    /// The same fields (names in any case, in any order), the same values.
    private static func sameHeaders(_ a: Interaction.Headers, _ b: Interaction.Headers) -> Bool {
        func normalised(_ headers: Interaction.Headers) -> [String: [String]] {
            Dictionary(headers.fields.map { ($0.name.lowercased(), $0.values) }, uniquingKeysWith: +)
        }
        return normalised(a) == normalised(b)
    }
}
