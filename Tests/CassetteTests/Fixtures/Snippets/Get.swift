// Get's API (kean/Get 2.x) as the Recipes article uses it: the names, labels and types of its
// public declarations, with no behaviour. DocumentationSnippetTests builds it as a module named
// `Get`. Keep each declaration as upstream writes it.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

public actor APIClient {
    public struct Configuration: @unchecked Sendable {
        public var baseURL: URL?
        public var sessionConfiguration: URLSessionConfiguration = .default

        public init(baseURL: URL?, sessionConfiguration: URLSessionConfiguration = .default) {
            self.baseURL = baseURL
            self.sessionConfiguration = sessionConfiguration
        }
    }

    public nonisolated let configuration: Configuration

    public init(baseURL: URL?, _ configure: @Sendable (inout APIClient.Configuration) -> Void = { _ in }) {
        var configuration = Configuration(baseURL: baseURL)
        configure(&configuration)
        self.configuration = configuration
    }
}
