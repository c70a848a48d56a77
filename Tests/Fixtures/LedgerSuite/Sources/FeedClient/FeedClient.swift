import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's client: fetches a path of the API and returns the body as text.
public struct FeedClient: Sendable {
    public let session: URLSession

    public init(session: URLSession) {
        self.session = session
    }

    public func text(_ path: String) async throws -> String {
        guard let url = URL(string: "https://api.example.com" + path) else { throw URLError(.badURL) }
        let (data, _) = try await session.data(from: url)
        return String(decoding: data, as: UTF8.self)
    }
}
