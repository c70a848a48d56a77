import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a server's `URLSession` task receives, handed from the session's delegate queue to the
/// connection's thread, which writes it to the wire as it comes.
final class ResponseStream: @unchecked Sendable {
    enum Event {
        case head(HTTPURLResponse)
        case data(Data)
        case end(URLError?)
    }

    private let lock = NSCondition()
    private var events: [Event] = []

    func push(_ event: Event) {
        lock.lock()
        events.append(event)
        lock.signal()
        lock.unlock()
    }

    /// The next event, waiting as long as it takes (the task always ends: completed, failed or
    /// cancelled when the server stops).
    func next() -> Event {
        lock.lock()
        defer { lock.unlock() }
        while events.isEmpty { lock.wait() }
        return events.removeFirst()
    }
}

/// The delegate of a server's session: hands each task's events to its ``ResponseStream``, and
/// refuses to follow redirects (the client behind the server follows them, if it wants to).
final class ServerSessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let streams = Locked<[Int: ResponseStream]>([:])

    func register(_ stream: ResponseStream, for task: URLSessionTask) {
        streams.withLock { $0[task.taskIdentifier] = stream }
    }

    private func stream(_ task: URLSessionTask) -> ResponseStream? {
        streams.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse { stream(dataTask)?.push(.head(http)) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        stream(dataTask)?.push(.data(data))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let stream = streams.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        stream?.push(.end(error.map { ($0 as? URLError) ?? URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "\($0)"]) }))
    }
}
