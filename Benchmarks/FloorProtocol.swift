import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The floor for replay: the least a `URLProtocol` can do, answering every request with the
/// same bytes from memory, inline in `startLoading`.
final class FloorProtocol: URLProtocol {
    /// The body and header fields every request gets; set before the first request.
    nonisolated(unsafe) static var body = Data()
    nonisolated(unsafe) static var headers: [String: String] = [:]
    /// A body by URL, for the requests that have one (a suite's many responses); the others get ``body``.
    nonisolated(unsafe) static var answers: [String: Data] = [:]

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        guard let url = request.url,
            let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: Self.headers)
        else {
            client?.urlProtocol(self, didFailWithError: URLError(.badURL))
            return
        }
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: Self.answers.isEmpty ? Self.body : Self.answers[url.absoluteString] ?? Self.body)
        client?.urlProtocolDidFinishLoading(self)
    }

    override func stopLoading() {}

    /// An ephemeral session answered by this protocol, without a URL cache: a tape's session has
    /// none (a protocol's answers are never stored, so looking one up is pure cost), and the floor
    /// must not pay for what the tape does not.
    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.protocolClasses = [FloorProtocol.self] + (configuration.protocolClasses ?? [])
        return URLSession(configuration: configuration)
    }
}
