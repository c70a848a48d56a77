// AsyncHTTPClient's API as the documentation's server-side recipe uses it: the names, labels and
// types of its public declarations (1.25; `TimeAmount` and `ByteBuffer` are NIOCore's,
// `HTTPResponseStatus` NIOHTTP1's), with no behaviour. DocumentationSnippetTests builds it as a
// module named `AsyncHTTPClient`, so the recipe type-checks against what a reader's test target
// imports, without the package depending on it. Keep each declaration as upstream writes it.
import Foundation

public struct TimeAmount: Sendable, Hashable {
    public var nanoseconds: Int64
    public static func seconds(_ amount: Int64) -> TimeAmount { TimeAmount(nanoseconds: amount * 1_000_000_000) }
}

public struct ByteBuffer: Sendable, Hashable {
    public var readableBytes: Int { 0 }
}

extension String {
    public init(buffer: ByteBuffer) { self = "" }
}

public struct HTTPResponseStatus: Sendable, Hashable {
    public var code: UInt
    public static let ok = HTTPResponseStatus(code: 200)
    public static let notFound = HTTPResponseStatus(code: 404)
}

public struct HTTPMethod: Sendable, Hashable {
    public var rawValue: String
    public static let GET = HTTPMethod(rawValue: "GET")
    public static let POST = HTTPMethod(rawValue: "POST")
}

public struct HTTPClientRequest: Sendable {
    public var url: String
    public var method: HTTPMethod = .GET
    public init(url: String) { self.url = url }
}

public struct HTTPClientResponse: Sendable {
    public var status: HTTPResponseStatus = .ok
    public var body = Body()

    public struct Body: Sendable {
        public func collect(upTo maxBytes: Int) async throws -> ByteBuffer { ByteBuffer() }
    }
}

public final class HTTPClient: Sendable {
    public struct Configuration: Sendable {
        public var proxy: Proxy?
        public init(proxy: Proxy? = nil) { self.proxy = proxy }

        public struct Proxy: Sendable, Hashable {
            public var host: String
            public var port: Int
            public static func server(host: String, port: Int) -> Proxy { Proxy(host: host, port: port) }
        }
    }

    public static var shared: HTTPClient { HTTPClient() }

    public init(configuration: Configuration = Configuration()) {}

    public func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        HTTPClientResponse()
    }

    public func shutdown() async throws {}
}
