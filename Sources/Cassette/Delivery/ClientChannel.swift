import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one way Cassette talks to a `URLProtocolClient`, written around what FoundationNetworking
/// on Linux tolerates (DESIGN §5):
///
/// - a client call after `stopLoading` or after the final call is a fatal error there, so every
///   call happens under a lock and checks that the channel is still open;
/// - a client call from a thread of our own races with the session's task registry, so calls
///   made later than `startLoading` hop onto the task's own work queue;
/// - completion handlers and `data(for:)` keep only the last `didLoad`, so a body is always
///   delivered in one piece.
///
/// On Apple platforms there is no such work queue; later calls then run on a global queue.
final class ClientChannel: @unchecked Sendable {
    private let urlProtocol: URLProtocol
    /// Recursive: corelibs may call `stopLoading` from inside a client call on the same thread.
    private let lock = NSRecursiveLock()
    private var isOpen = true
    private var laterQueue: DispatchQueue?

    init(_ urlProtocol: URLProtocol) {
        self.urlProtocol = urlProtocol
    }

    /// Closes the channel: nothing reaches the client afterwards. Called from `stopLoading`.
    func close() {
        lock.lock()
        isOpen = false
        lock.unlock()
    }

    /// Sends a whole response — head, body in one piece, then the end or `error` — right now.
    /// Call from `startLoading` or from ``later(_:)``.
    func deliver(_ response: HTTPURLResponse?, body: Data, error: URLError?) {
        send { client, urlProtocol in
            if let response {
                client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
                if !body.isEmpty { client.urlProtocol(urlProtocol, didLoad: body) }
            }
        }
        finish(error: error)
    }

    /// Sends the response head right now.
    func deliverHead(_ response: HTTPURLResponse) {
        send { client, urlProtocol in
            client.urlProtocol(urlProtocol, didReceive: response, cacheStoragePolicy: .notAllowed)
        }
    }

    /// Sends the body in one piece and the end, or `error`, right now.
    func deliverRest(body: Data, error: URLError?) {
        if !body.isEmpty {
            send { client, urlProtocol in client.urlProtocol(urlProtocol, didLoad: body) }
        }
        finish(error: error)
    }

    /// Ends the exchange with `error`, or successfully when `nil`, and closes the channel.
    func finish(error: URLError?) {
        send(closing: true) { client, urlProtocol in
            if let error {
                client.urlProtocol(urlProtocol, didFailWithError: error)
            } else {
                client.urlProtocolDidFinishLoading(urlProtocol)
            }
        }
    }

    /// Runs `work` where client calls are safe after `startLoading` returned: the task's work
    /// queue. Work items run one after another, in the order they were handed over.
    func later(_ work: @escaping @Sendable () -> Void) {
        lock.lock()
        if laterQueue == nil {
            // Looked up on first use rather than up front: replays answer inline and never need it.
            laterQueue = Self.workQueue(of: urlProtocol.task) ?? DispatchQueue(label: "Cassette.ClientChannel")
        }
        let queue = laterQueue
        lock.unlock()
        queue?.async(execute: work)
    }

    private func send(closing: Bool = false, _ call: (URLProtocolClient, URLProtocol) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard isOpen, let client = urlProtocol.client else { return }
        if closing { isOpen = false }
        call(client, urlProtocol)
    }

    /// The serial queue on which FoundationNetworking itself calls the client for `task`
    /// (the internal `URLSessionTask.workQueue`), found by reflection; `nil` on Apple platforms.
    private static func workQueue(of task: URLSessionTask?) -> DispatchQueue? {
        #if canImport(FoundationNetworking)
        guard let task else { return nil }
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            for child in current.children where child.label == "workQueue" {
                return child.value as? DispatchQueue
            }
            mirror = current.superclassMirror
        }
        return nil
        #else
        return nil
        #endif
    }
}
