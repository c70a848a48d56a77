import Foundation

/// The origins (`scheme://host:port`) that have sent a body of ``threshold`` bytes or more while
/// recording, in this process: their next requests are sent through the ``LiveForwarder``'s bulk
/// session, whose delegate collects each piece as it arrives.
///
/// Why a second session: the fast session's delegate runs on a queue that targets the caller's
/// task's work queue, which saves small recordings a thread hop per callback (`record_vs_direct`
/// 1.35 → 1.18). On Linux that queue is FoundationNetworking's one serial queue, where libcurl
/// also reads the response: a fast server's whole body (measured: a 20 MB body from the loopback
/// server, 1,260 pieces of 16 KiB) can be queued before the delegate collects any of it, and how
/// much is queued varies from one recording to the next — so each large recording reached a new
/// peak of resident memory. The bulk session's delegate runs beside that queue and keeps a few
/// pieces queued at most (measured: 100–200). The first large body from an origin pays the queue
/// once; after it, eight 20 MB recordings hold the process's peak resident set level (`MemoryTests`).
enum LargeBodyOrigins {
    /// The body size that marks an origin (1 MiB).
    static let threshold = 1 << 20

    private static let origins = Locked<Set<String>>([])

    /// Notes that `url`'s origin sent a large body.
    static func note(_ url: URL?) {
        guard let origin = url.flatMap({ OriginMove.origin(of: $0.absoluteString) }) else { return }
        _ = origins.withLock { $0.insert(origin) }
    }

    /// Whether `url`'s origin has sent a large body in this process.
    static func contains(_ url: URL?) -> Bool {
        guard let origin = url.flatMap({ OriginMove.origin(of: $0.absoluteString) }) else { return false }
        return origins.withLock { $0.contains(origin) }
    }
}
