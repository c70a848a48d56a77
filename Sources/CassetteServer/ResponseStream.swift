import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a recording the server makes receives (`LiveRecording`), handed from where the live
/// request reports to the connection's thread, which writes it to the wire as it comes.
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
