import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a live session's cache does with the answer to one request, as the ``ClientChannel``
/// delivers it: stores a response it may keep (``HTTPCache/isStorable(_:for:)``) once its body
/// is complete, turns a `304 Not Modified` to a revalidation into the stored response (refreshed),
/// and forgets the stored response of a URL an unsafe method changed. A protocol's answers are
/// not stored by the loading system (Cassette hands them over as not cacheable, so that each is
/// stored once, here, on every platform).
///
/// Used under the channel's lock, one call at a time, until ``finish(failed:)``; then by whoever
/// stores the proposed entry (``store(_:)``), once.
final class CacheWriter: @unchecked Sendable {
    private let cache: URLCache
    /// The request the answer is for, without the conditional fields a revalidation added: the
    /// key the entry is stored under.
    private let request: URLRequest
    /// The stored response being revalidated, if the request is a revalidation.
    private let revalidating: CachedURLResponse?
    private let now: @Sendable () -> Date
    private var storable: HTTPURLResponse?
    private var body = Data()
    /// The refreshed stored response a `304` became; what reaches the caller instead.
    private var refreshed: CachedURLResponse?

    init(cache: URLCache, request: URLRequest, revalidating: CachedURLResponse?, now: @escaping @Sendable () -> Date = Date.init) {
        self.cache = cache
        self.request = request
        self.revalidating = revalidating
        self.now = now
    }

    /// The head the caller gets for `response`, and the body that goes with it when the cache
    /// supplies it (a `304` that refreshed the stored response).
    func head(_ response: HTTPURLResponse) -> (head: HTTPURLResponse, body: Data?) {
        if HTTPCache.invalidates(method: request.httpMethod ?? "GET", status: response.statusCode) {
            cache.removeCachedResponse(for: request)
        }
        if response.statusCode == 304, let revalidating,
            let refreshed = HTTPCache.refreshed(revalidating, by: response, request: request, now: now()),
            let head = refreshed.response as? HTTPURLResponse
        {
            self.refreshed = refreshed
            return (head, refreshed.data)
        }
        if HTTPCache.isStorable(response, for: request) { storable = response }
        return (response, nil)
    }

    /// Whether a piece of the body reaches the caller: not after a `304` the cache answered.
    func passes(_ data: Data) -> Bool {
        if refreshed != nil { return false }
        if storable != nil { body.append(data) }
        return true
    }

    /// The answer ended: stores a refreshed entry at once, and returns a new one that may be
    /// stored — for the session delegate's `willCacheResponse` to see first, as a live session
    /// asks it — or nil (the answer failed, or nothing is to be stored).
    func finish(failed: Bool) -> CachedURLResponse? {
        guard !failed else { return nil }
        if let refreshed {
            cache.storeCachedResponse(refreshed, for: request)
        } else if let storable, HTTPCache.fitsIn(cache, bodySize: body.count) {
            return HTTPCache.entry(storable, body: body, for: request, now: now())
        }
        return nil
    }

    /// Stores `entry`: what ``finish(failed:)`` proposed, or what the delegate gave instead.
    func store(_ entry: CachedURLResponse) {
        cache.storeCachedResponse(entry, for: request)
    }
}
