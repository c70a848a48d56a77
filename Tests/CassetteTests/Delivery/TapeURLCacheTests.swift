import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The tape's cache keys entries by the whole URL, as Apple's cache does (FoundationNetworking's
/// leaves the query out), and keeps at most its capacity, the oldest entries going first.
@Suite struct TapeURLCacheTests {
    static func entry(_ url: URLRequest, _ body: String) -> CachedURLResponse {
        let response = HTTPURLResponse(url: url.url!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])!
        return CachedURLResponse(response: response, data: Data(body.utf8), userInfo: nil, storagePolicy: .allowedInMemoryOnly)
    }

    @Test func theQueryIsPartOfTheKey() {
        let cache = TapeURLCache(capacity: 1 << 20)
        let one = URLRequest(url: URL(string: "https://api.example/x?a=1")!)
        let two = URLRequest(url: URL(string: "https://api.example/x?a=2")!)
        cache.storeCachedResponse(Self.entry(one, "one"), for: one)
        #expect(cache.cachedResponse(for: two) == nil)
        #expect(cache.cachedResponse(for: one)?.data == Data("one".utf8))
        cache.storeCachedResponse(Self.entry(two, "two"), for: two)
        cache.removeCachedResponse(for: one)
        #expect(cache.cachedResponse(for: one) == nil)
        #expect(cache.cachedResponse(for: two)?.data == Data("two".utf8))
        #expect(cache.currentMemoryUsage == 3)
        cache.removeAllCachedResponses()
        #expect(cache.cachedResponse(for: two) == nil && cache.currentMemoryUsage == 0)
    }

    @Test func theOldestEntriesGoWhenTheCapacityIsReached() {
        let cache = TapeURLCache(capacity: 10)
        let requests = (0..<4).map { URLRequest(url: URL(string: "https://api.example/\($0)")!) }
        for request in requests { cache.storeCachedResponse(Self.entry(request, "abcd"), for: request) }
        #expect(requests.map { cache.cachedResponse(for: $0) != nil } == [false, false, true, true])
        #expect(cache.currentMemoryUsage == 8)
        let large = URLRequest(url: URL(string: "https://api.example/large")!)
        cache.storeCachedResponse(Self.entry(large, "eleven byte"), for: large)
        #expect(cache.cachedResponse(for: large) == nil, "larger than the cache: not stored")
    }
}
