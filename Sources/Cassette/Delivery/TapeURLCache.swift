import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URL cache a tape keeps (``URLCacheUse/kept``): in memory, for the tape's life, keyed by the
/// whole URL as Apple's cache keys it. FoundationNetworking's own `URLCache` keys entries without
/// the query (measured on Swift 6.3.1: an entry stored for `/x?a=1` answers `/x?a=2`), so the
/// tape's cache keeps its entries itself, the same on every platform. What the code under test
/// reads from its session's `urlCache` is what this holds.
///
/// At most `memoryCapacity` bytes of bodies are kept; the oldest entries go first.
final class TapeURLCache: URLCache, @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: CachedURLResponse] = [:]
    /// The keys, oldest first.
    private var order: [String] = []
    private var bytes = 0

    /// A cache of `capacity` bytes in memory, nothing on disk.
    init(capacity: Int) {
        super.init(memoryCapacity: capacity, diskCapacity: 0, diskPath: nil)
    }

    private static func key(_ request: URLRequest) -> String? {
        request.url?.absoluteString
    }

    override func cachedResponse(for request: URLRequest) -> CachedURLResponse? {
        guard let key = Self.key(request) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return entries[key]
    }

    override func storeCachedResponse(_ cachedResponse: CachedURLResponse, for request: URLRequest) {
        guard let key = Self.key(request), cachedResponse.data.count <= memoryCapacity else { return }
        lock.lock()
        defer { lock.unlock() }
        remove(key)
        entries[key] = cachedResponse
        order.append(key)
        bytes += cachedResponse.data.count
        while bytes > memoryCapacity, let oldest = order.first { remove(oldest) }
    }

    override func removeCachedResponse(for request: URLRequest) {
        guard let key = Self.key(request) else { return }
        lock.lock()
        defer { lock.unlock() }
        remove(key)
    }

    override func removeAllCachedResponses() {
        lock.lock()
        defer { lock.unlock() }
        entries = [:]
        order = []
        bytes = 0
    }

    override func storeCachedResponse(_ cachedResponse: CachedURLResponse, for dataTask: URLSessionDataTask) {
        if let request = dataTask.currentRequest ?? dataTask.originalRequest { storeCachedResponse(cachedResponse, for: request) }
    }

    override func getCachedResponse(
        for dataTask: URLSessionDataTask, completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        completionHandler((dataTask.currentRequest ?? dataTask.originalRequest).flatMap(cachedResponse(for:)))
    }

    override func removeCachedResponse(for dataTask: URLSessionDataTask) {
        if let request = dataTask.currentRequest ?? dataTask.originalRequest { removeCachedResponse(for: request) }
    }

    override var currentMemoryUsage: Int {
        lock.lock()
        defer { lock.unlock() }
        return bytes
    }

    override var currentDiskUsage: Int { 0 }

    /// Forgets `key`. Called under the lock.
    private func remove(_ key: String) {
        guard let old = entries.removeValue(forKey: key) else { return }
        bytes -= old.data.count
        order.removeAll { $0 == key }
    }
}
