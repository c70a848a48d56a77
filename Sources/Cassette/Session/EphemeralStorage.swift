import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The configuration of a tape's own session: ephemeral, as `URLSessionConfiguration.ephemeral`
/// makes it — a cookie storage and a credential storage of its own, empty — with no URL cache
/// (the tape sets its own, ``ExecutorAccess/cache``).
///
/// On Linux, FoundationNetworking's `.ephemeral` also builds a `URLCache`, which asks
/// `FileManager` for the caches folder, which builds `ProcessInfo.environment` whole: 60–90 µs
/// with a few dozen variables set, a quarter of opening a tape (`tape_setup`), for a cache the
/// tape replaces. And its cookie storage can be made no other way (the initialisers are internal;
/// a credential storage's `init()` is `.ephemeral`'s own). So a tape gives its session's cookie
/// storage back when it is ejected (``giveBack(_:)``), and the next configuration is built from
/// `.default` with one given back — only once nothing else holds it (no session, configuration or
/// caller: a caller that keeps `session.configuration.httpCookieStorage` keeps it its own),
/// emptied, its first cookie policy restored, and only if it is then empty. Apple platforms:
/// `.ephemeral` itself, and nothing is given back.
enum EphemeralStorage {
    /// What a configuration was made with, to give back when its session has ended.
    struct Lease: @unchecked Sendable {
        #if canImport(FoundationNetworking)
        /// The cookie storage, and the cookie policy it started with; nil when it had none.
        fileprivate let kept: KeptCookies?
        #endif

        /// Nothing to give back.
        static var none: Lease {
            #if canImport(FoundationNetworking)
            Lease(kept: nil)
            #else
            Lease()
            #endif
        }
    }

    /// A configuration with a cookie storage of its own, empty, and no URL cache, made as
    /// Cassette makes its own (``ConfigurationHooks/ownConfiguration(_:)``: never routed by the
    /// intercepted getters).
    static func configuration() -> (URLSessionConfiguration, Lease) {
        var lease: Lease?
        let configuration = ConfigurationHooks.ownConfiguration {
            let (made, leased) = make()
            lease = leased
            return made
        }
        return (configuration, lease ?? Lease.none)
    }

    private static func make() -> (URLSessionConfiguration, Lease) {
        #if canImport(FoundationNetworking)
        if let reused = takeFree() {
            let configuration = URLSessionConfiguration.default
            configuration.httpCookieStorage = reused.cookies
            // What `.ephemeral`'s credential storage is: a new, empty one.
            configuration.urlCredentialStorage = URLCredentialStorage()
            configuration.urlCache = nil
            return (configuration, Lease(kept: reused))
        }
        let made = URLSessionConfiguration.ephemeral
        made.urlCache = nil
        return (made, Lease(kept: made.httpCookieStorage.map { KeptCookies(cookies: $0, acceptPolicy: $0.cookieAcceptPolicy) }))
        #else
        let made = URLSessionConfiguration.ephemeral
        made.urlCache = nil
        return (made, Lease())
        #endif
    }

    /// Keeps the cookie storage of `lease` for a later configuration, once its session ends.
    static func giveBack(_ lease: Lease) {
        #if canImport(FoundationNetworking)
        guard let storage = lease.kept else { return }
        kept.withLock { kept in
            // The oldest may be held for good (a caller kept it): it goes first.
            if kept.count == keptCount { kept.removeFirst() }
            kept.append(storage)
        }
        #endif
    }

    #if canImport(FoundationNetworking)
    /// An ephemeral configuration's cookie storage, and the cookie policy it started with.
    struct KeptCookies {
        var cookies: HTTPCookieStorage
        var acceptPolicy: HTTPCookie.AcceptPolicy
    }

    /// The storages given back, free or still held by their ended sessions; at most ``keptCount``.
    private static let kept = Locked<[KeptCookies]>([])
    /// As many as tapes a suite ejects while their sessions wind down, with room to spare.
    static let keptCount = 64

    /// A storage only ``kept`` holds, taken out of it and emptied; nil when there is none.
    private static func takeFree() -> KeptCookies? {
        while let taken = kept.withLock({ kept -> KeptCookies? in
            for index in kept.indices where isKnownUniquelyReferenced(&kept[index].cookies) { return kept.remove(at: index) }
            return nil
        }) {
            // Only this function holds it now: no one sees it emptied.
            if let emptied = emptied(taken) { return emptied }
        }
        return nil
    }

    /// `storage` without cookies and with its first cookie policy; nil when a cookie is left in it.
    static func emptied(_ storage: KeptCookies) -> KeptCookies? {
        for cookie in storage.cookies.cookies ?? [] { storage.cookies.deleteCookie(cookie) }
        storage.cookies.cookieAcceptPolicy = storage.acceptPolicy
        guard storage.cookies.cookies?.isEmpty ?? true else { return nil }
        return storage
    }

    /// The storages given back, free or not (for tests).
    static var keptStorages: [ObjectIdentifier] { kept.withLock { $0.map { ObjectIdentifier($0.cookies) } } }

    /// Whether `storage` was given back and is free: nothing but ``kept`` holds it (for tests).
    static func isFree(_ storage: ObjectIdentifier) -> Bool {
        kept.withLock { kept in
            kept.indices.contains { ObjectIdentifier(kept[$0].cookies) == storage && isKnownUniquelyReferenced(&kept[$0].cookies) }
        }
    }
    #endif
}
