import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The kinds of URLSession task a differential test runs: each sends its body a different way.
public enum TaskKind: Sendable, CustomStringConvertible {
    /// A data task; the body, if any, in the request (`httpBody` or `httpBodyStream`).
    case data(URLRequest)
    /// `upload(for:from:)`, `uploadTask(with:from:)`.
    case uploadData(URLRequest, Data)
    /// `upload(for:fromFile:)`, `uploadTask(with:fromFile:)`.
    case uploadFile(URLRequest, URL)
    /// `uploadTask(withStreamedRequest:)`: the delegate's `needNewBodyStream` gives these bytes.
    /// Delegate sessions only: the API has no other form.
    case uploadStream(URLRequest, Data)
    /// `download(for:)`, `downloadTask(with:completionHandler:)`, `downloadTask(with:)`.
    case download(URLRequest)

    public var description: String {
        switch self {
        case .data: "data task"
        case .uploadData: "upload from Data"
        case .uploadFile: "upload from a file"
        case .uploadStream: "streamed upload"
        case .download: "download"
        }
    }
}

/// The three ways a caller hears about a task.
public enum TaskCall: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The async API (`data(for:delegate:)`, `upload(for:from:delegate:)`, …) with a task delegate.
    case async
    /// A completion handler, on a session whose delegate is asked about redirects.
    case completionHandler
    /// A task reporting everything to its session's delegate.
    case delegate

    public var description: String { rawValue }
}

/// Everything a caller can observe of one task, compared field by field between live,
/// recorded and replayed runs.
public struct Observed: Sendable, Equatable, Codable, CustomStringConvertible {
    public var status: Int?
    /// Header fields as `HTTPURLResponse.allHeaderFields` presents them.
    public var headers: [String: String] = [:]
    public var body = Data()
    public var url: String?
    public var errorDomain: String?
    public var errorCode: Int?
    public var errorDescription: String?
    /// The session's cookie storage afterwards, `name=value`, sorted.
    public var cookies: [String] = []
    /// The delegate's callbacks, in order (runs of `didSendBodyData` shown as their last total).
    public var events: [String] = []

    public var text: String { String(decoding: body, as: UTF8.self) }

    public var description: String {
        "status \(status.map(String.init) ?? "-") url \(url ?? "-") error \(errorDomain ?? "-") \(errorCode.map(String.init) ?? "-") "
            + "body \(body.count) bytes cookies \(cookies) events \(events) headers \(headers.sorted { $0.key < $1.key })"
    }

    /// Equal in everything but the error's text, which may name a server detail or Cassette's advice.
    public func sameOutcome(as other: Observed) -> Bool {
        var mine = self
        var theirs = other
        mine.errorDescription = nil
        theirs.errorDescription = nil
        return mine == theirs
    }
}

/// A session and task delegate that logs what a caller is told, and answers redirects, streamed
/// bodies and authentication challenges as a test asks.
public final class EventDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, @unchecked Sendable {
    /// What to answer `willPerformHTTPRedirection`.
    public enum Redirects: Sendable {
        case follow
        /// Answer nil: the redirect response is the task's response.
        case refuse
        /// Send this request instead of the proposed one.
        case rewrite(@Sendable (URLRequest) -> URLRequest)
    }

    private let lock = NSLock()
    private let redirects: Redirects
    private let streamedBody: Data?
    /// Who answers a challenge (noted as `challenge N`, N its `previousFailureCount`); nil: the default handling.
    private let challenges: (any URLSessionTaskDelegate)?
    /// Whether each piece of the body is noted too, as `data <its text>`.
    private let notesData: Bool
    private var log: [String] = []
    private var received = Data()
    private var downloadedBody: Data?
    private var response: URLResponse?
    private var completed = false
    private var failure: Error?
    private var waiter: CheckedContinuation<Void, Never>?

    public init(
        redirects: Redirects, streamedBody: Data? = nil, challenges: (any URLSessionTaskDelegate)? = nil, notesData: Bool = false
    ) {
        self.redirects = redirects
        self.streamedBody = streamedBody
        self.challenges = challenges
        self.notesData = notesData
    }

    public var events: [String] { lock.withLock { log } }

    private func note(_ event: String) {
        lock.withLock {
            if event.hasPrefix("sent "), log.last?.hasPrefix("sent ") == true { log.removeLast() }
            log.append(event)
        }
    }

    /// Waits for `didCompleteWithError`.
    public func completion() async {
        await withCheckedContinuation { continuation in
            let done = lock.withLock { () -> Bool in
                if completed { return true }
                waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    public func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        note("sent \(totalBytesSent) of \(totalBytesExpectedToSend)")
    }

    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let target = request.url.map { $0.path + ($0.query.map { "?" + $0 } ?? "") } ?? "-"
        note("redirect \(response.statusCode) to \(request.httpMethod ?? "GET") \(target)")
        switch redirects {
        case .follow: completionHandler(request)
        case .refuse: completionHandler(nil)
        case .rewrite(let change): completionHandler(change(request))
        }
    }

    public func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        note("needNewBodyStream")
        completionHandler(streamedBody.map { InputStream(data: $0) })
    }

    public func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        note("response \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        lock.withLock { self.response = response }
        completionHandler(.allow)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if notesData { note("data \(String(decoding: data, as: UTF8.self))") }
        lock.withLock { received.append(data) }
    }

    public func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        note("challenge \(challenge.previousFailureCount)")
        guard let answer = challenges?.urlSession(_:task:didReceive:completionHandler:) else {
            return completionHandler(.performDefaultHandling, nil)
        }
        answer(session, task, challenge, completionHandler)
    }

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        note("finished downloading")
        let data = try? Data(contentsOf: location)
        lock.withLock { downloadedBody = data }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        note("complete \((error as NSError?).map { "\($0.domain) \($0.code)" } ?? "ok")")
        let waiter = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            completed = true
            failure = error
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume()
    }

    /// The body as the delegate received it: data pieces, or the downloaded file's bytes.
    var body: Data { lock.withLock { downloadedBody ?? received } }

    /// The error `didCompleteWithError` gave.
    var error: Error? { lock.withLock { failure } }
}

/// Runs one task of `kind` the way `call` says, on a new session made from `configuration`.
public enum TaskRun {
    public static func observe(
        _ kind: TaskKind, call: TaskCall, configuration: URLSessionConfiguration,
        redirects: EventDelegate.Redirects = .follow, challenges: (any URLSessionTaskDelegate)? = nil, notesData: Bool = false
    ) async -> Observed {
        var streamed: Data?
        if case .uploadStream(_, let body) = kind { streamed = body }
        let delegate = EventDelegate(redirects: redirects, streamedBody: streamed, challenges: challenges, notesData: notesData)
        let session = URLSession(configuration: configuration, delegate: call == .async ? nil : delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var outcome: (body: Data?, response: URLResponse?, error: Error?)
        switch call {
        case .async:
            do {
                switch kind {
                case .data(let request):
                    let (data, response) = try await session.data(for: request, delegate: delegate)
                    outcome = (data, response, nil)
                case .uploadData(let request, let body):
                    let (data, response) = try await session.upload(for: request, from: body, delegate: delegate)
                    outcome = (data, response, nil)
                case .uploadFile(let request, let file):
                    let (data, response) = try await session.upload(for: request, fromFile: file, delegate: delegate)
                    outcome = (data, response, nil)
                case .uploadStream:
                    outcome = (nil, nil, URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: "no async streamed upload"]))
                case .download(let request):
                    let (file, response) = try await session.download(for: request, delegate: delegate)
                    outcome = (try? Data(contentsOf: file), response, nil)
                }
            } catch {
                outcome = (nil, nil, error)
            }
        case .completionHandler:
            let box = await withCheckedContinuation {
                (continuation: CheckedContinuation<UncheckedBox<(Data?, URLResponse?, Error?)>, Never>) in
                let handler: @Sendable (Data?, URLResponse?, Error?) -> Void = { data, response, error in
                    continuation.resume(returning: UncheckedBox((data, response, error)))
                }
                switch kind {
                case .data(let request): session.dataTask(with: request, completionHandler: handler).resume()
                case .uploadData(let request, let body): session.uploadTask(with: request, from: body, completionHandler: handler).resume()
                case .uploadFile(let request, let file):
                    session.uploadTask(with: request, fromFile: file, completionHandler: handler).resume()
                case .uploadStream:
                    handler(
                        nil, nil, URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: "no completion-handler streamed upload"]))
                case .download(let request):
                    session.downloadTask(with: request) { file, response, error in
                        handler(file.flatMap { try? Data(contentsOf: $0) }, response, error)
                    }.resume()
                }
            }
            outcome = box.value
        case .delegate:
            let task: URLSessionTask
            switch kind {
            case .data(let request): task = session.dataTask(with: request)
            case .uploadData(let request, let body): task = session.uploadTask(with: request, from: body)
            case .uploadFile(let request, let file): task = session.uploadTask(with: request, fromFile: file)
            case .uploadStream(let request, _): task = session.uploadTask(withStreamedRequest: request)
            case .download(let request): task = session.downloadTask(with: request)
            }
            task.resume()
            await delegate.completion()
            outcome = (delegate.body, delegate.error == nil ? task.response : nil, delegate.error)
        }
        // Callbacks still queued on the (serial) delegate queue belong to this task too: the async
        // API may return before they ran.
        await withCheckedContinuation { continuation in session.delegateQueue.addOperation { continuation.resume() } }
        var observed = Observed()
        if let http = outcome.response as? HTTPURLResponse {
            observed.status = http.statusCode
            for (key, value) in http.allHeaderFields { observed.headers["\(key)"] = "\(value)" }
            observed.url = http.url?.absoluteString
            observed.body = outcome.body ?? Data()
        }
        if let error = outcome.error as NSError? {
            observed.errorDomain = error.domain
            observed.errorCode = error.code
            observed.errorDescription = error.localizedDescription
        }
        observed.cookies = (configuration.httpCookieStorage?.cookies ?? []).map { "\($0.name)=\($0.value)" }.sorted()
        observed.events = delegate.events
        return observed
    }
}

/// Carries a non-`Sendable` value (a task, a completion handler's arguments) into or out of a
/// `@Sendable` closure; the test owns its thread-safety.
public struct UncheckedBox<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}
