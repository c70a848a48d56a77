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

// The apps of the fragments (the blocks not marked complete), which use one of these as the code
// under test.

public struct Todo: Codable, Sendable, Equatable {
    public var title: String
}

/// A local server a test starts on a free port (the Guide's "Matching" example).
public struct TodoServer: Sendable {
    public let baseURL: URL

    public static func start(port: Int) async throws -> TodoServer {
        guard let url = URL(string: "http://127.0.0.1:\(port == 0 ? 53124 : port)") else { throw URLError(.badURL) }
        return TodoServer(baseURL: url)
    }
}

public struct TodoClient: Sendable {
    public let baseURL: URL
    public let session: URLSession

    public init(baseURL: URL, session: URLSession) {
        self.baseURL = baseURL
        self.session = session
    }

    public func list() async throws -> [Todo] {
        let (data, _) = try await session.data(from: baseURL.appendingPathComponent("todos"))
        return try JSONDecoder().decode([Todo].self, from: data)
    }
}

/// A client that reads the time from a clock it is given (the Guide's "Time" example).
public struct AccountClient: Sendable {
    public let session: URLSession
    public let now: @Sendable () -> Date

    public init(session: URLSession, now: @escaping @Sendable () -> Date) {
        self.session = session
        self.now = now
    }

    public func isSignedIn() async throws -> Bool { now() > Date(timeIntervalSince1970: 0) }
}

/// A client that reads a server-sent event stream through its own delegate (the Guide's "Streams").
public final class ChatClient: Sendable {
    public let configuration: URLSessionConfiguration

    public init(configuration: URLSessionConfiguration) {
        self.configuration = configuration
    }

    public func send(_ prompt: String) -> AsyncThrowingStream<String, any Error> {
        AsyncThrowingStream { $0.finish() }
    }
}

/// A client of the feed (the Latency article's timeout example).
public struct FeedClient: Sendable {
    public let session: URLSession

    public init(session: URLSession) {
        self.session = session
    }

    public func feed() async throws -> Data {
        guard let url = URL(string: "https://api.example.com/feed") else { throw URLError(.badURL) }
        return try await session.data(from: url).0
    }
}

/// XCUITest's application proxy, as the UI-test examples use it (`XCUIApplication` is XCTest's on
/// Apple platforms only; a UI test target has it).
public final class XCUIApplication {
    public var launchEnvironment: [String: String] = [:]

    public init() {}

    public func launch() {}
}
