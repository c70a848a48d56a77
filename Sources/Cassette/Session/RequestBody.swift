import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body a request carries, found wherever the caller's API put it, so that it reaches the
/// server, the cassette and the matcher exactly.
///
/// FoundationNetworking shows a protocol the body of `dataTask`/`data(for:)` (`httpBody`) and a
/// caller's `httpBodyStream`, but keeps the body of `uploadTask(with:from:)`, `upload(for:from:)`
/// and the `fromFile:` variants in the task (docs/Architecture.md, "Linux facts"), and asks the session delegate for the
/// body of `uploadTask(withStreamedRequest:)`. On Apple platforms bodies usually arrive as
/// `httpBodyStream`, also when the caller gave data: recording re-sends such a body as data,
/// with its `Content-Length`, as the caller's session would have (``source(_:)`` decides). A
/// body that cannot be obtained fails the request with a URLError saying so: never an empty
/// body sent or recorded in its place.
package struct RequestBody {
    /// How the caller's API hands the body to URLSession, which decides how it goes on the wire
    /// (libcurl adds a `Content-Type` to a `POST` whose request has a body, sends streams chunked,
    /// with `Expect: 100-continue` for a delegate's stream): recording sends it the same way.
    package enum Form {
        /// `httpBody`, or no body.
        case request
        /// The request's `httpBodyStream`.
        case requestStream
        /// `uploadTask(with:from:)` or `fromFile:`.
        case upload
        /// `uploadTask(withStreamedRequest:)`: the delegate's stream.
        case uploadStream
    }

    /// The bytes; nil for a request without a body.
    var data: Data?
    var form: Form

    package init(data: Data?, form: Form) {
        self.data = data
        self.form = form
    }
    /// The length URLSession announces to `didSendBodyData`: known for data and files, 0 for streams.
    var expectedLength: Int64 { form == .request || form == .upload ? Int64(data?.count ?? 0) : 0 }

    static let none = RequestBody(data: nil, form: .request)

    /// The body of `request` when the request itself holds it: the `httpBody`, or none, of a task
    /// that is not an upload. Nil when ``obtain(for:task:later:)`` must find it elsewhere.
    static func atHand(in request: URLRequest, task: URLSessionTask?) -> RequestBody? {
        guard !(task is URLSessionUploadTask) else { return nil }
        if let body = request.httpBody { return RequestBody(data: body, form: .request) }
        return request.httpBodyStream == nil ? RequestBody.none : nil
    }

    /// Finds the body of `request`, run by `task`, where ``source(_:)`` says it is. Returns it
    /// when it is already in memory (`httpBody`, `uploadTask(with:from:)`). A file or a stream —
    /// the request's, or the one a streamed upload's delegate gives — is read off the calling
    /// queue (`startLoading` runs on the queue every session shares, docs/Architecture.md, "Linux facts", and a bound
    /// stream's writer may need it): then this returns nil and hands the body to `later`, on
    /// another queue.
    static func obtain(
        for request: URLRequest, task: URLSessionTask?,
        later done: @escaping @Sendable (Result<RequestBody, URLError>) -> Void
    ) -> Result<RequestBody, URLError>? {
        let isUpload = task is URLSessionUploadTask
        // Only an upload task keeps its body away from the request; reflection is for it alone.
        let kept = isUpload ? TaskInternals.knownBody(of: task) : .notFound
        let evidence = Evidence(
            isUploadTask: isUpload, requestHasBody: request.httpBody != nil, requestHasStream: request.httpBodyStream != nil,
            callerGaveData: request.httpBodyStream != nil && task?.originalRequest?.httpBody != nil,
            expectedToSend: task?.countOfBytesExpectedToSend ?? -1, taskKeeps: kept.kind)
        switch source(evidence) {
        case .none:
            return .success(.none)
        case .request:
            return .success(RequestBody(data: request.httpBody, form: .request))
        case .stream(let form):
            guard let stream = request.httpBodyStream else { return .failure(unreachable()) }
            return elsewhere(done) { fromStream(stream, form: form) }
        case .taskData:
            if case .data(let data) = kept { return .success(RequestBody(data: data, form: .upload)) }
            return .success(RequestBody(data: Data(), form: .upload))
        case .taskFile:
            guard case .file(let url) = kept else { return .failure(unreachable()) }
            return elsewhere(done) { fromFile(url) }
        case .taskStream:
            guard case .stream(let stream) = kept else { return .failure(unreachable()) }
            return elsewhere(done) { fromStream(stream, form: .requestStream) }
        case .delegateStream:
            // uploadTask(withStreamedRequest:): the delegate gives the stream, as live.
            TaskDelegateCalls.newBodyStream(for: task) { stream in
                guard let stream = stream.value else { return done(.success(.none)) }
                _ = elsewhere(done) { fromStream(stream, form: .uploadStream) }
            }
            return nil
        case .unreachable:
            return .failure(unreachable())
        }
    }

    /// What the platform shows a protocol of a task's body: everything ``source(_:)`` decides from.
    struct Evidence: Equatable {
        /// Whether the task is an upload task (`uploadTask(with:from:)`, `fromFile:`, `withStreamedRequest:`).
        var isUploadTask: Bool
        /// Whether the request the protocol sees has an `httpBody`.
        var requestHasBody: Bool
        /// Whether the request the protocol sees has an `httpBodyStream`.
        var requestHasStream: Bool
        /// Whether the caller's own request (`task.originalRequest`) has an `httpBody` while the
        /// protocol sees a stream: the platform turned the caller's data into a stream (Apple
        /// platforms do, for every body).
        var callerGaveData: Bool
        /// `task.countOfBytesExpectedToSend`: the length of an upload's data or file, -1 when
        /// unknown (a stream). Only says how to re-send a stream, never whether a body exists.
        var expectedToSend: Int64
        /// What the task keeps of its body where a protocol cannot see it (FoundationNetworking's
        /// `knownBody`, by reflection); `.notFound` on Apple platforms.
        var taskKeeps: TaskInternals.KnownBody.Kind
    }

    /// Where a task's body is, and how recording re-sends it.
    enum Source: Equatable {
        /// No body.
        case none
        /// The request's `httpBody`.
        case request
        /// The request's `httpBodyStream`, read to its end; re-sent in `form`: ``Form/requestStream``
        /// (chunked) for a caller's own stream, ``Form/request`` or ``Form/upload`` (as data, with
        /// its `Content-Length`) for one the platform made of the caller's data or file, and
        /// ``Form/uploadStream`` for a streamed upload's.
        case stream(Form)
        /// The data of `uploadTask(with:from:)`, kept by the task.
        case taskData
        /// The file of `uploadTask(with:fromFile:)`, kept by the task.
        case taskFile
        /// A stream kept by the task.
        case taskStream
        /// `uploadTask(withStreamedRequest:)` on Linux: the session delegate's `needNewBodyStream`.
        case delegateStream
        /// An upload whose body the platform keeps out of reach: the request fails, loudly, and
        /// nothing is sent — never an empty body in its place.
        case unreachable
    }

    /// Decides where the body is: a pure function of what the platform shows, the same on every
    /// platform, so the Apple answers are tested on Linux.
    static func source(_ evidence: Evidence) -> Source {
        guard evidence.isUploadTask else {
            if evidence.requestHasBody { return .request }
            if evidence.requestHasStream { return .stream(evidence.callerGaveData ? .request : .requestStream) }
            return .none
        }
        switch evidence.taskKeeps {
        case .data, .empty: return .taskData
        case .file: return .taskFile
        case .stream: return .taskStream
        case .absent: return .delegateStream
        case .notFound:
            // Apple platforms (or a FoundationNetworking whose fields changed): only what the request shows.
            if evidence.requestHasBody { return .request }
            if evidence.requestHasStream {
                // A known length is the platform's stream of the task's data or file: sent as data.
                return .stream(evidence.expectedToSend >= 0 ? .upload : .uploadStream)
            }
            return .unreachable
        }
    }

    /// Runs `read` on a global queue and hands its result to `done`; returns nil, for `obtain`.
    private static func elsewhere(
        _ done: @escaping @Sendable (Result<RequestBody, URLError>) -> Void,
        _ read: @escaping () -> Result<RequestBody, URLError>
    ) -> Result<RequestBody, URLError>? {
        let read = UncheckedSendable(read)
        DispatchQueue.global().async { done(read.value()) }
        return nil
    }

    private static func fromFile(_ url: URL) -> Result<RequestBody, URLError> {
        do {
            let data = try Data(contentsOf: url)
            return .success(RequestBody(data: data, form: .upload))
        } catch {
            let missing = !FileManager.default.fileExists(atPath: url.path)
            return .failure(
                RequestFailure(.uploadFileUnreadable(path: url.path, missing: missing, why: error.localizedDescription)).urlError)
        }
    }

    private static func fromStream(_ stream: InputStream, form: Form) -> Result<RequestBody, URLError> {
        do {
            return .success(RequestBody(data: try InputStreamReader.readAll(stream), form: form))
        } catch {
            return .failure(RequestFailure(.bodyStreamUnreadable(fromDelegate: form == .uploadStream, why: "\(error)")).urlError)
        }
    }

    private static func unreachable() -> URLError {
        RequestFailure(.bodyOutOfReach).urlError
    }
}
