import Foundation

/// Whether the sessions of a tape keep a `URLCache` (``Tape/Options/urlCache``).
///
/// By default (``removed``) a tape removes the `urlCache` of every session it routes: each
/// request is the cassette's to answer, and a cache lookup would only cost time. Code whose
/// behaviour depends on HTTP caching (`Cache-Control: max-age`, `ETag` revalidation) then makes
/// every request it would have answered from its cache. With ``kept``, a session caches as a live
/// session on the same platform does:
///
/// - **The cache is the tape's.** Every session the tape routes that has a cache gets the tape's
///   instead — in memory, keyed by the whole URL, gone with the tape — never the configuration's
///   own (`URLSessionConfiguration.default` has `URLCache.shared`, a disk cache on Apple platforms
///   that would answer the next run's request before the tape saw it). A configuration without a
///   cache keeps none. The session's `configuration.urlCache` is the tape's, so code that reads it
///   sees what is stored.
/// - **Apple platforms**: what is stored follows Apple's rule for a session's cache: a `GET`
///   answered with a 2xx whose cache fields, when present, allow it (a `200` without any is
///   stored; a `404` or `301` is not), no larger than 5 % of the cache (1.6 MB), and only once
///   the task's delegate, asked `urlSession(_:dataTask:willCacheResponse:completionHandler:)`
///   (its own delegate first, then the session's), agreed — its answer is what is stored. A later
///   request it is still fresh for is answered from the cache, no interaction replayed or
///   recorded; `.returnCacheDataElseLoad` and `.returnCacheDataDontLoad` take any stored entry; a
///   stale one is sent with `If-None-Match` / `If-Modified-Since`, and a `304` answer (recorded and
///   replayed like any other) gives the caller the stored response, refreshed.
/// - **Linux**: FoundationNetworking's URL cache stores no HTTP response (its HTTP protocol hands
///   every response over as not cacheable), so a live session there sends every request. A tape
///   with ``kept`` keeps a cache and does the same: every request is replayed or recorded.
///
/// ```swift
/// let tape = try Tape(named: "feed", options: Tape.Options(urlCache: .kept))
/// ```
public struct URLCacheUse: Sendable, Equatable {
    /// Whether routed configurations keep their `urlCache`.
    let keepsCache: Bool
    /// Whether Cassette itself stores responses and answers from the cache — what the loading
    /// system does on Apple platforms, which hands a protocol the stored response to use.
    let caches: Bool

    /// Every session's `urlCache` removed: every request reaches the cassette. The default.
    public static let removed = URLCacheUse(keepsCache: false, caches: false)

    /// The sessions keep their `urlCache` and cache as a live session on this platform does.
    public static let kept = URLCacheUse(keepsCache: true, caches: platformCachesHTTP)

    /// The sessions keep their `urlCache` and cache as on Apple platforms, on every platform: how
    /// the tests exercise the Apple behaviour on Linux.
    package static let keptCachingAsOnApplePlatforms = URLCacheUse(keepsCache: true, caches: true)

    #if canImport(FoundationNetworking)
    /// Measured on this toolchain: a live session with a `URLCache` sent each of two requests for a
    /// `max-age=60` response, and its cache held nothing afterwards.
    static let platformCachesHTTP = false
    #else
    static let platformCachesHTTP = true
    #endif
}
