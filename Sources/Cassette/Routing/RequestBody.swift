import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body a request carries, found wherever the caller's API put it, so that it reaches the
/// server, the cassette and the matcher exactly.
///
/// FoundationNetworking shows a protocol the body of `dataTask`/`data(for:)` (`httpBody`) and a
/// caller's `httpBodyStream`, but keeps the body of `uploadTask(with:from:)`, `upload(for:from:)`
/// and the `fromFile:` variants in the task (DESIGN §5), and asks the session delegate for the
/// body of `uploadTask(withStreamedRequest:)`. On Apple platforms bodies usually arrive as
/// `httpBodyStream`. A body that cannot be obtained fails the request with a URLError saying so:
/// never an empty body sent or recorded in its place.
struct RequestBody {
    /// How the caller's API hands the body to URLSession, which decides how it goes on the wire
    /// (libcurl adds a `Content-Type` to a `POST` whose request has a body, sends streams chunked,
    /// with `Expect: 100-continue` for a delegate's stream): recording sends it the same way.
    enum Form {
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

    /// Finds the body of `request`, run by `task`. Returns it when it is already in memory
    /// (`httpBody`, `uploadTask(with:from:)`). A file or a stream — the request's, or the one a
    /// streamed upload's delegate gives — is read off the calling queue (`startLoading` runs on
    /// the queue every session shares, DESIGN §5, and a bound stream's writer may need it): then
    /// this returns nil and hands the body to `later`, on another queue.
    static func obtain(for request: URLRequest, task: URLSessionTask?,
                       later done: @escaping @Sendable (Result<RequestBody, URLError>) -> Void) -> Result<RequestBody, URLError>? {
        // Only an upload task keeps its body away from the request; reflection is for it alone.
        switch task is URLSessionUploadTask ? TaskInternals.knownBody(of: task) : .notFound {
        case .data(let data):
            return .success(RequestBody(data: data, form: .upload))
        case .empty:
            return .success(RequestBody(data: Data(), form: .upload))
        case .file(let url):
            return elsewhere(done) { fromFile(url) }
        case .stream(let stream):
            return elsewhere(done) { fromStream(stream, form: .requestStream) }
        case .absent:
            // uploadTask(withStreamedRequest:): the delegate gives the stream, as live.
            TaskDelegateCalls.newBodyStream(for: task) { stream in
                guard let stream = stream.value else { return done(.success(.none)) }
                _ = elsewhere(done) { fromStream(stream, form: .uploadStream) }
            }
            return nil
        case .notFound:
            if let body = request.httpBody {
                return .success(RequestBody(data: body, form: .request))
            }
            if let stream = request.httpBodyStream {
                return elsewhere(done) { fromStream(stream, form: .requestStream) }
            }
            if task is URLSessionUploadTask, (task?.countOfBytesExpectedToSend ?? 0) > 0 || TaskInternals.session(of: task) != nil {
                return .failure(unreachable())
            }
            return .success(.none)
        }
    }

    /// Runs `read` on a global queue and hands its result to `done`; returns nil, for `obtain`.
    private static func elsewhere(_ done: @escaping @Sendable (Result<RequestBody, URLError>) -> Void,
                                  _ read: @escaping () -> Result<RequestBody, URLError>) -> Result<RequestBody, URLError>? {
        let read = UncheckedSendable(read)
        DispatchQueue.global().async { done(read.value()) }
        return nil
    }

    private static func fromFile(_ url: URL) -> Result<RequestBody, URLError> {
        do {
            let data = try Data(contentsOf: url)
            return .success(RequestBody(data: data, form: .upload))
        } catch {
            // The codes a live upload from a missing or unreadable file fails with.
            let missing = !FileManager.default.fileExists(atPath: url.path)
            return .failure(failure(missing ? .fileDoesNotExist : .noPermissionsToReadFile,
                                    "Cassette could not read the file to upload, \(url.path): \(error.localizedDescription)"))
        }
    }

    private static func fromStream(_ stream: InputStream, form: Form) -> Result<RequestBody, URLError> {
        let source = form == .uploadStream ? "the stream the delegate's needNewBodyStream gave" : "the request's httpBodyStream"
        do {
            return .success(RequestBody(data: try InputStreamReader.readAll(stream), form: form))
        } catch {
            return .failure(failure(.cannotDecodeRawData,
                                    "Cassette could not read the request body from \(source): \(error). "
                                        + "Nothing was sent or recorded; make the stream readable to its end."))
        }
    }

    private static func unreachable() -> URLError {
        failure(.requestBodyStreamExhausted,
                "Cassette cannot read the body of this upload task: the platform keeps it out of a URLProtocol's reach, so it "
                    + "would be sent and recorded empty. Nothing was sent. Send the body with data(for:) and httpBody (or "
                    + "httpBodyStream) instead, which Cassette reads on every platform.")
    }

    /// Without the failing URL: it is not redacted yet, and printing the error must not show a secret.
    private static func failure(_ code: URLError.Code, _ text: String) -> URLError {
        URLError(code, userInfo: [NSLocalizedDescriptionKey: text])
    }
}
