// swift-openapi-urlsession's transport (1.x) as the Recipes article uses it, with no behaviour,
// and the `Client` and `Servers` that swift-openapi-generator writes into the app's own module.
// DocumentationSnippetTests builds it as a module named `OpenAPIURLSession`. Keep each
// declaration as upstream writes it.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

public struct URLSessionTransport: Sendable {
    public struct Configuration: Sendable {
        public var session: URLSession

        public init(session: URLSession = .shared) {
            self.session = session
        }
    }

    public init(configuration: Configuration = .init()) {}
}

/// Generated: the API's client.
public struct Client: Sendable {
    public init(serverURL: URL, transport: URLSessionTransport) {}
}

/// Generated: the servers the OpenAPI document names.
public enum Servers {
    public static func server1() throws -> URL {
        guard let url = URL(string: "https://api.example.com") else { throw URLError(.badURL) }
        return url
    }
}
