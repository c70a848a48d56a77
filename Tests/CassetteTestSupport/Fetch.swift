import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a caller received for one request, in a form tests can compare exactly.
public struct Fetched: Sendable, Equatable, CustomStringConvertible {
    public var status: Int?
    /// Header fields as `HTTPURLResponse.allHeaderFields` gave them.
    public var headers: [String: String]
    public var body: Data
    public var url: String?
    public var errorCode: URLError.Code?
    public var errorDescription: String?
    /// For a delegate: the size of each `didReceive(data:)`, in order.
    public var pieces: [Int] = []
    /// For a delegate: seconds from `resume()` to each `didReceive(data:)`, in order.
    public var pieceTimes: [TimeInterval] = []
    /// For a delegate: seconds from `resume()` to the response head.
    public var headAfter: TimeInterval?
    /// For a delegate: seconds from `resume()` to `didCompleteWithError`, measured on the delegate
    /// queue (so a busy cooperative pool, which delays the awaiting test, does not count).
    public var completedAfter: TimeInterval?

    public var text: String { String(decoding: body, as: UTF8.self) }

    public var description: String {
        if let errorCode { return "URLError(\(errorCode.rawValue)) \(errorDescription ?? "")" }
        return "\(status ?? 0) \(body.count) bytes \(headers)"
    }

    /// Everything but the error description, which may name a failing URL or a server detail.
    public func sameOutcome(as other: Fetched) -> Bool {
        status == other.status && headers == other.headers && body == other.body && url == other.url && errorCode == other.errorCode
    }

    init(response: URLResponse?, body: Data?, error: Error?) {
        let http = response as? HTTPURLResponse
        status = http?.statusCode
        var headers: [String: String] = [:]
        for (key, value) in http?.allHeaderFields ?? [:] { headers["\(key)"] = "\(value)" }
        self.headers = headers
        self.body = body ?? Data()
        url = response?.url?.absoluteString
        errorCode = (error as? URLError)?.code
        errorDescription = error.map { ($0 as NSError).localizedDescription }
    }
}

/// The three ways code sends a request through `URLSession`; tests run each.
public enum FetchStyle: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `try await session.data(for:)`.
    case async
    /// `session.dataTask(with:completionHandler:)`.
    case completionHandler
    /// `session.dataTask(with:)` on a session with a data delegate.
    case delegate

    public var description: String { rawValue }
}

public enum Fetch {
    /// Sends `request` through `session` in `style` and returns what the caller received.
    /// For `.delegate`, `session` must have been made by ``delegateSession(configuredBy:)``.
    public static func run(_ request: URLRequest, on session: URLSession, style: FetchStyle) async -> Fetched {
        switch style {
        case .async:
            do {
                let (data, response) = try await session.data(for: request)
                return Fetched(response: response, body: data, error: nil)
            } catch {
                return Fetched(response: nil, body: nil, error: error)
            }
        case .completionHandler:
            return await withCheckedContinuation { continuation in
                session.dataTask(with: request) { data, response, error in
                    continuation.resume(returning: Fetched(response: response, body: data, error: error))
                }.resume()
            }
        case .delegate:
            guard let delegate = session.delegate as? CollectingDelegate else {
                return Fetched(response: nil, body: nil, error: URLError(.unsupportedURL))
            }
            return await withCheckedContinuation { continuation in
                let task = session.dataTask(with: request)
                delegate.expect(task.taskIdentifier) { continuation.resume(returning: $0) }
                task.resume()
            }
        }
    }

    /// `GET url` through `session` with `data(for:)`.
    public static func get(_ url: String, on session: URLSession, style: FetchStyle = .async) async -> Fetched {
        guard let parsed = URL(string: url) else { return Fetched(response: nil, body: nil, error: URLError(.badURL)) }
        return await run(URLRequest(url: parsed), on: session, style: style)
    }

    /// The session a test uses with `tape` for `style`: the tape's own, or, for `.delegate`, one
    /// with a ``CollectingDelegate`` and a configuration the tape prepared.
    public static func session(of tape: Tape, style: FetchStyle) -> URLSession {
        style == .delegate ? delegateSession(configuredBy: tape.configure) : tape.session
    }

    /// A session with a ``CollectingDelegate``, after `configure` prepared its configuration.
    public static func delegateSession<Failure: Error>(
        configuredBy configure: (URLSessionConfiguration) throws(Failure) -> Void
    ) throws(Failure) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        try configure(configuration)
        return URLSession(configuration: configuration, delegate: CollectingDelegate(), delegateQueue: nil)
    }
}

/// A data delegate that collects each task's response, chunks and error.
public final class CollectingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Entry {
        var started = Date()
        var response: URLResponse?
        var headAfter: TimeInterval?
        var body = Data()
        var pieces: [Int] = []
        var pieceTimes: [TimeInterval] = []
        var done: (@Sendable (Fetched) -> Void)?
    }

    private let lock = NSLock()
    private var entries: [Int: Entry] = [:]

    /// Calls `done` with what the task `taskIdentifier` of this delegate's session received.
    public func expect(_ taskIdentifier: Int, done: @escaping @Sendable (Fetched) -> Void) {
        lock.lock()
        entries[taskIdentifier, default: Entry()].done = done
        entries[taskIdentifier]?.started = Date()
        lock.unlock()
    }

    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        lock.lock()
        var entry = entries[dataTask.taskIdentifier] ?? Entry()
        entry.response = response
        entry.headAfter = Date().timeIntervalSince(entry.started)
        entries[dataTask.taskIdentifier] = entry
        lock.unlock()
        completionHandler(.allow)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        entries[dataTask.taskIdentifier, default: Entry()].body.append(data)
        entries[dataTask.taskIdentifier]?.pieces.append(data.count)
        if let started = entries[dataTask.taskIdentifier]?.started {
            entries[dataTask.taskIdentifier]?.pieceTimes.append(Date().timeIntervalSince(started))
        }
        lock.unlock()
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        lock.lock()
        let entry = entries.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        var fetched = Fetched(response: entry?.response, body: entry?.body, error: error)
        fetched.pieces = entry?.pieces ?? []
        fetched.pieceTimes = entry?.pieceTimes ?? []
        fetched.headAfter = entry?.headAfter
        fetched.completedAfter = entry.map { Date().timeIntervalSince($0.started) }
        entry?.done?(fetched)
    }
}

/// A folder under the system's temporary folder, for cassettes a test writes.
public struct ScratchFolder: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cassette-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
