// The app module the documentation's complete examples import (`@testable import MyApp`): the
// types they use, as small as they can be. DocumentationSnippetTests builds it as a module of its
// own, then type-checks each example against it and the package's built modules, as a reader's
// test target would compile the example.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

public struct User: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String
}

/// A client that takes its session from the caller: the one thing Cassette asks of the code under test.
public struct APIClient: Sendable {
    public let session: URLSession

    public init(session: URLSession) {
        self.session = session
    }

    public func user(id: Int) async throws -> User {
        guard let url = URL(string: "https://api.example.com/users/\(id)") else { throw URLError(.badURL) }
        let (data, _) = try await session.data(from: url)
        return try JSONDecoder().decode(User.self, from: data)
    }
}

/// A model a view would show: offline when the feed cannot be loaded.
public final class FeedModel: @unchecked Sendable {
    public private(set) var isOffline = false
    private let session: URLSession

    public init(session: URLSession) {
        self.session = session
    }

    public func load() async {
        guard let url = URL(string: "https://api.example.com/feed") else { return }
        isOffline = (try? await session.data(from: url)) == nil
    }
}
