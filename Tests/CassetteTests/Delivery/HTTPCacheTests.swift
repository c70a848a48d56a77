import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cache's decisions, as values: freshness, revalidation, what is stored, what a 304 makes.
@Suite struct HTTPCacheTests {
    static let url = URL(string: "https://api.example/feed")!
    static let storedAt = Date(timeIntervalSince1970: 1_800_000_000)

    static func response(_ fields: [String: String], status: Int = 200) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
    }

    static func stored(_ fields: [String: String], body: String = "stored") -> CachedURLResponse {
        HTTPCache.entry(response(fields), body: Data(body.utf8), for: URLRequest(url: url), now: storedAt)
    }

    static func lookup(
        _ stored: CachedURLResponse?, after seconds: TimeInterval, policy: URLRequest.CachePolicy = .useProtocolCachePolicy,
        fields: [String: String] = [:]
    ) -> String {
        var request = URLRequest(url: url)
        for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        switch HTTPCache.lookup(request, stored: stored, policy: policy, now: storedAt + seconds) {
        case .fresh: return "fresh"
        case .revalidate(_, let conditional):
            return "revalidate \(conditional.value(forHTTPHeaderField: "If-None-Match") ?? "-") "
                + (conditional.value(forHTTPHeaderField: "If-Modified-Since") ?? "-")
        case .miss: return "miss"
        case .unavailable: return "unavailable"
        }
    }

    /// Stored in memory, where the tape's cache keeps everything, on every platform: nothing a
    /// test stores reaches a disk cache the next run would find.
    @Test func entriesAreStoredInMemoryOnly() {
        #expect(Self.stored(["Cache-Control": "max-age=60"]).storagePolicy == .allowedInMemoryOnly)
    }

    /// A body fits by Apple's rule, about 5 % of the cache: 1.6 MB of the tape's 32 MB.
    @Test func aBodyFitsUpToATwentiethOfTheCache() {
        let cache = URLCache(memoryCapacity: 32 << 20, diskCapacity: 0, diskPath: nil)
        #expect(HTTPCache.fitsIn(cache, bodySize: (32 << 20) / 20))
        #expect(!HTTPCache.fitsIn(cache, bodySize: (32 << 20) / 20 + 1))
    }

    @Test func maxAgeKeepsAResponseFreshForThatLongFromWhenItWasStored() {
        let entry = Self.stored(["Cache-Control": "max-age=60", "Date": "Mon, 01 Jan 2001 00:00:00 GMT"])
        #expect(Self.lookup(entry, after: 59) == "fresh", "a Date from long ago does not age it")
        #expect(Self.lookup(entry, after: 60) == "miss", "stale, and nothing to revalidate with")
        let aged = Self.stored(["Cache-Control": "max-age=60", "Age": "50"])
        #expect(Self.lookup(aged, after: 9) == "fresh")
        #expect(Self.lookup(aged, after: 10) == "miss")
    }

    @Test func expiresCountsFromDateAndLastModifiedGivesATenth() {
        let expires = Self.stored(["Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Expires": "Sun, 06 Nov 1994 08:50:37 GMT"])
        #expect(HTTPCache.freshnessLifetime(of: expires.response as! HTTPURLResponse) == 60)
        #expect(Self.lookup(expires, after: 30) == "fresh")
        let invalid = Self.stored(["Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Expires": "0"])
        #expect(HTTPCache.freshnessLifetime(of: invalid.response as! HTTPURLResponse) == 0)
        let modified = Self.stored([
            "Date": "Sun, 06 Nov 1994 08:49:37 GMT", "Last-Modified": "Sun, 06 Nov 1994 07:49:37 GMT",
        ])
        #expect(HTTPCache.freshnessLifetime(of: modified.response as! HTTPURLResponse) == 360)
        #expect(Self.lookup(modified, after: 400) == "revalidate - Sun, 06 Nov 1994 07:49:37 GMT")
    }

    @Test func noCacheAndTheRequestsOwnDirectivesRevalidate() {
        let tagged = Self.stored(["Cache-Control": "max-age=600", "ETag": #""v7""#])
        #expect(Self.lookup(tagged, after: 1) == "fresh")
        #expect(Self.lookup(tagged, after: 1, fields: ["Cache-Control": "no-cache"]) == #"revalidate "v7" -"#)
        #expect(Self.lookup(tagged, after: 1, fields: ["Cache-Control": "max-age=0"]) == #"revalidate "v7" -"#)
        #expect(Self.lookup(tagged, after: 1, fields: ["Pragma": "no-cache"]) == #"revalidate "v7" -"#)
        #expect(Self.lookup(tagged, after: 1, fields: ["Cache-Control": "no-store"]) == "miss")
        #expect(
            Self.lookup(tagged, after: 1, fields: ["If-None-Match": #""mine""#, "Cache-Control": "no-cache"]) == #"revalidate "mine" -"#)
        let noCache = Self.stored(["Cache-Control": "no-cache", "ETag": #""v8""#])
        #expect(Self.lookup(noCache, after: 0) == #"revalidate "v8" -"#)
    }

    @Test func cachePoliciesOverrideFreshness() {
        let stale = Self.stored(["Cache-Control": "max-age=1"])
        #expect(Self.lookup(stale, after: 100, policy: .returnCacheDataElseLoad) == "fresh")
        #expect(Self.lookup(stale, after: 100, policy: .returnCacheDataDontLoad) == "fresh")
        #expect(Self.lookup(nil, after: 0, policy: .returnCacheDataDontLoad) == "unavailable")
        #expect(Self.lookup(nil, after: 0, policy: .returnCacheDataElseLoad) == "miss")
        #expect(Self.lookup(stale, after: 0, policy: .reloadIgnoringLocalCacheData) == "miss")
    }

    @Test func varyKeepsAResponseToTheRequestsItWasFor() {
        var request = URLRequest(url: Self.url)
        request.setValue("fr", forHTTPHeaderField: "Accept-Language")
        let entry = HTTPCache.entry(
            Self.response(["Cache-Control": "max-age=60", "Vary": "Accept-Language"]), body: Data(), for: request, now: Self.storedAt)
        #expect(Self.lookup(entry, after: 1, fields: ["Accept-Language": "fr"]) == "fresh")
        #expect(Self.lookup(entry, after: 1, fields: ["Accept-Language": "de"]) == "miss")
        #expect(!HTTPCache.isStorable(Self.response(["Cache-Control": "max-age=60", "Vary": "*"]), for: request))
    }

    @Test func whatIsStored() {
        let get = URLRequest(url: Self.url)
        var post = get
        post.httpMethod = "POST"
        // Apple's rule: a 2xx from the server whose cache fields, when present, allow it.
        #expect(HTTPCache.isStorable(Self.response(["Cache-Control": "max-age=60"]), for: get))
        #expect(HTTPCache.isStorable(Self.response([:]), for: get), "no cache fields: stored")
        #expect(HTTPCache.isStorable(Self.response([:], status: 204), for: get))
        #expect(!HTTPCache.isStorable(Self.response(["ETag": #""x""#], status: 404), for: get), "not a 2xx")
        #expect(!HTTPCache.isStorable(Self.response(["Cache-Control": "max-age=60"], status: 301), for: get))
        #expect(!HTTPCache.isStorable(Self.response(["Cache-Control": "max-age=60"], status: 410), for: get))
        #expect(!HTTPCache.isStorable(Self.response(["Cache-Control": "max-age=60"]), for: post))
        #expect(!HTTPCache.isStorable(Self.response(["Cache-Control": "no-store, max-age=60"]), for: get))
        #expect(!HTTPCache.isStorable(Self.response(["Cache-Control": "max-age=60"], status: 500), for: get))
        #expect(!HTTPCache.isStorable(Self.response(["Cache-Control": "max-age=60"], status: 206), for: get))
        var noStore = get
        noStore.setValue("no-store", forHTTPHeaderField: "Cache-Control")
        #expect(!HTTPCache.isStorable(Self.response([:]), for: noStore))
        #expect(HTTPCache.invalidates(method: "POST", status: 201))
        #expect(!HTTPCache.invalidates(method: "POST", status: 500))
        #expect(!HTTPCache.invalidates(method: "GET", status: 200))
    }

    @Test func aNotModifiedRefreshesTheStoredResponse() throws {
        let entry = Self.stored(["Cache-Control": "no-cache", "ETag": #""v1""#, "Content-Length": "6", "X-Old": "kept"])
        let notModified = Self.response(
            ["ETag": #""v1""#, "Content-Length": "0", "X-New": "added", "cache-control": "max-age=5"], status: 304)
        let refreshed = try #require(
            HTTPCache.refreshed(entry, by: notModified, request: URLRequest(url: Self.url), now: Self.storedAt + 9))
        let head = try #require(refreshed.response as? HTTPURLResponse)
        #expect(head.statusCode == 200)
        #expect(refreshed.data == Data("stored".utf8))
        #expect(head.value(forHTTPHeaderField: "Content-Length") == "6")
        #expect(head.value(forHTTPHeaderField: "X-Old") == "kept")
        #expect(head.value(forHTTPHeaderField: "X-New") == "added")
        #expect(head.value(forHTTPHeaderField: "Cache-Control") == "max-age=5")
        #expect(Self.lookup(refreshed, after: 9 + 4) == "fresh", "stored anew when refreshed")
    }
}
