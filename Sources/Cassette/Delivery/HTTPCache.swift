import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The decisions of a private HTTP cache (RFC 9111), as a live session with a `URLCache` makes
/// them on Apple platforms: which stored response answers a request without it going out, which
/// one is revalidated with its validators, which response is stored, and what a `304 Not
/// Modified` makes of the stored one. Pure: the caller gives the time and the stored entry.
///
/// Kept simple where a test's traffic does not need more: `Vary` other than `*` is honoured by
/// comparing the stored request's fields; `206` and `HEAD` are never cached; the `Date` field
/// never ages a response (a replayed response's `Date` is the recording's day, so it would make
/// every replay stale): a stored response ages from when it was stored, plus its `Age` field.
enum HTTPCache {
    /// What the cache says about a request before it goes out.
    enum Lookup {
        /// Answered by the stored response; nothing is sent.
        case fresh(CachedURLResponse)
        /// Sent as `conditional` (with `If-None-Match` / `If-Modified-Since`); a `304` answer
        /// means the stored response, refreshed.
        case revalidate(CachedURLResponse, conditional: URLRequest)
        /// Sent as it is.
        case miss
        /// Neither stored nor allowed to load (`returnCacheDataDontLoad`): fails.
        case unavailable
    }

    /// The `userInfo` key of when Cassette stored an entry.
    static let storedAtKey = "CassetteStoredAt"
    /// The `userInfo` key of the stored request's values of the fields its response's `Vary` names.
    static let variedKey = "CassetteVaried"

    /// How Cassette stores an entry: in memory, where the tape's cache keeps everything
    /// (``ExecutorAccess/cache``), on every platform.
    static let storagePolicy = URLCache.StoragePolicy.allowedInMemoryOnly

    /// What the cache does for `request` with `stored` as the entry the session found for it.
    /// `policy` is the request's cache policy (the session's, when the request has the default).
    static func lookup(
        _ request: URLRequest, stored: CachedURLResponse?, policy: URLRequest.CachePolicy, now: Date
    ) -> Lookup {
        guard request.httpMethod ?? "GET" == "GET" else { return .miss }
        let usable = stored.flatMap { matchesVary($0, request: request) ? $0 : nil }
        switch policy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData:
            return .miss
        case .returnCacheDataElseLoad:
            return usable.map { .fresh($0) } ?? .miss
        case .returnCacheDataDontLoad:
            return usable.map { .fresh($0) } ?? .unavailable
        default:
            break
        }
        guard let usable, let response = usable.response as? HTTPURLResponse else { return .miss }
        let requestDirectives = Directives(request.value(forHTTPHeaderField: "Cache-Control"))
        if requestDirectives.noStore { return .miss }
        let requestWantsNew =
            requestDirectives.noCache || requestDirectives.maxAge == 0
            || (request.value(forHTTPHeaderField: "Cache-Control") == nil
                && request.value(forHTTPHeaderField: "Pragma")?.lowercased().contains("no-cache") == true)
        if !requestWantsNew, age(of: usable, now: now) < freshnessLifetime(of: response) {
            return .fresh(usable)
        }
        let etag = field("ETag", of: response)
        let lastModified = field("Last-Modified", of: response)
        guard etag != nil || lastModified != nil else { return .miss }
        var conditional = request
        if let etag, request.value(forHTTPHeaderField: "If-None-Match") == nil {
            conditional.setValue(etag, forHTTPHeaderField: "If-None-Match")
        }
        if let lastModified, request.value(forHTTPHeaderField: "If-Modified-Since") == nil {
            conditional.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        return .revalidate(usable, conditional: conditional)
    }

    /// Whether `response` to `request` may be stored, by Apple's documented rule for a session's
    /// cache (`urlSession(_:dataTask:willCacheResponse:completionHandler:)`): a successful (2xx)
    /// response from the server, whose cache-related fields, when present, allow it — so a `200`
    /// without any is stored (a later `.returnCacheDataElseLoad` is answered with it, while
    /// `.useProtocolCachePolicy`, finding it without a lifetime or validator, sends the request),
    /// and a `404` or `301` is not. Kept from Cassette's reading of RFC 9111: a `GET`, never a
    /// `206`, never `no-store` on either side or `Vary: *`. The body's size is checked when it is
    /// complete (``fitsIn(_:bodySize:)``).
    static func isStorable(_ response: HTTPURLResponse, for request: URLRequest) -> Bool {
        guard request.httpMethod ?? "GET" == "GET", (200..<300).contains(response.statusCode), response.statusCode != 206 else {
            return false
        }
        if Directives(request.value(forHTTPHeaderField: "Cache-Control")).noStore { return false }
        if Directives(field("Cache-Control", of: response)).noStore { return false }
        return field("Vary", of: response)?.contains("*") != true
    }

    /// Whether a body of `bodySize` bytes fits `cache` by Apple's rule: no larger than about 5 %
    /// of the cache (the tape's holds 32 MB, so up to 1.6 MB).
    static func fitsIn(_ cache: URLCache, bodySize: Int) -> Bool {
        bodySize <= cache.memoryCapacity / 20
    }

    /// Whether a response with `status` to a request with `method` makes the stored response for
    /// its URL obsolete (RFC 9111 §4.4): an unsafe method that succeeded.
    static func invalidates(method: String, status: Int) -> Bool {
        !["GET", "HEAD", "OPTIONS", "TRACE"].contains(method.uppercased()) && (200..<400).contains(status)
    }

    /// The entry stored for `response` with `body`, answering `request`, at `now`.
    static func entry(_ response: HTTPURLResponse, body: Data, for request: URLRequest, now: Date) -> CachedURLResponse {
        var userInfo: [AnyHashable: Any] = [storedAtKey: now]
        if let vary = field("Vary", of: response) {
            var varied: [String: String] = [:]
            for name in vary.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
                varied[name] = request.value(forHTTPHeaderField: name) ?? ""
            }
            userInfo[variedKey] = varied
        }
        return CachedURLResponse(response: response, data: body, userInfo: userInfo, storagePolicy: storagePolicy)
    }

    /// The stored response refreshed by `notModified` (a `304`): its status and body, its header
    /// fields updated with those of the `304` (RFC 9111 §4.3.4), stored anew at `now`. Nil when
    /// the stored response is not an HTTP response.
    static func refreshed(
        _ stored: CachedURLResponse, by notModified: HTTPURLResponse, request: URLRequest, now: Date
    )
        -> CachedURLResponse?
    {
        guard let old = stored.response as? HTTPURLResponse, let url = old.url else { return nil }
        var fields: [String: String] = [:]
        for (name, value) in old.allHeaderFields {
            if let name = name as? String { fields[name] = "\(value)" }
        }
        let kept: Set<String> = ["content-length", "content-encoding", "transfer-encoding", "content-range"]
        for (name, value) in notModified.allHeaderFields {
            guard let name = name as? String, !kept.contains(name.lowercased()) else { continue }
            if let existing = fields.keys.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
                fields[existing] = nil
            }
            fields[name] = "\(value)"
        }
        guard let response = HTTPURLResponse(url: url, statusCode: old.statusCode, httpVersion: "HTTP/1.1", headerFields: fields)
        else { return nil }
        return entry(response, body: stored.data, for: request, now: now)
    }

    /// Seconds `response` stays fresh: `max-age`, else `Expires` less `Date`, else a tenth of the
    /// time since `Last-Modified` (the heuristic RFC 9111 §4.2.2 suggests); 0 with `no-cache`.
    static func freshnessLifetime(of response: HTTPURLResponse) -> TimeInterval {
        let directives = Directives(field("Cache-Control", of: response))
        if directives.noCache { return 0 }
        if let maxAge = directives.maxAge { return TimeInterval(maxAge) }
        let date = field("Date", of: response).flatMap(HTTPDate.parse)
        if let expires = field("Expires", of: response) {
            guard let expiry = HTTPDate.parse(expires), let date else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        if let modified = field("Last-Modified", of: response).flatMap(HTTPDate.parse), let date {
            return max(0, date.timeIntervalSince(modified) / 10)
        }
        return 0
    }

    /// Seconds since `stored` was stored, plus the `Age` it arrived with.
    static func age(of stored: CachedURLResponse, now: Date) -> TimeInterval {
        let response = stored.response as? HTTPURLResponse
        let arrivedWith = response.flatMap { field("Age", of: $0) }.flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let storedAt =
            stored.userInfo?[storedAtKey] as? Date
            ?? response.flatMap { field("Date", of: $0) }.flatMap(HTTPDate.parse) ?? now
        return max(0, arrivedWith) + max(0, now.timeIntervalSince(storedAt))
    }

    private static func matchesVary(_ stored: CachedURLResponse, request: URLRequest) -> Bool {
        guard let varied = stored.userInfo?[variedKey] as? [String: String] else { return true }
        return varied.allSatisfy { name, value in (request.value(forHTTPHeaderField: name) ?? "") == value }
    }

    private static func field(_ name: String, of response: HTTPURLResponse) -> String? {
        response.value(forHTTPHeaderField: name)
    }

    /// The `Cache-Control` directives the cache acts on.
    struct Directives {
        var noStore = false
        var noCache = false
        var maxAge: Int?

        init(_ field: String?) {
            for part in (field ?? "").split(separator: ",") {
                let directive = part.trimmingCharacters(in: .whitespaces).lowercased()
                if directive == "no-store" {
                    noStore = true
                } else if directive == "no-cache" || directive.hasPrefix("no-cache=") {
                    noCache = true
                } else if directive.hasPrefix("max-age=") {
                    let value = directive.dropFirst("max-age=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    maxAge = Int(value).map { max(0, $0) } ?? 0
                }
            }
        }
    }
}
