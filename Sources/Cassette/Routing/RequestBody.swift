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

    /// Finds the body of `request`, run by `task`. Returns it for every API but a streamed upload,
    /// whose stream the delegate gives later: then it returns nil and hands the body to `later`,
    /// on another queue.
    static func obtain(for request: URLRequest, task: URLSessionTask?,
                       later done: @escaping @Sendable (Result<RequestBody, URLError>) -> Void) -> Result<RequestBody, URLError>? {
        // Only an upload task keeps its body away from the request; reflection is for it alone.
        switch task is URLSessionUploadTask ? TaskInternals.knownBody(of: task) : .notFound {
        case .data(let data):
            return .success(RequestBody(data: data, form: .upload))
        case .empty:
            return .success(RequestBody(data: Data(), form: .upload))
        case .file(let url):
            return fromFile(url, request: request)
        case .stream(let stream):
            return fromStream(stream, request: request, form: .requestStream)
        case .absent:
            // uploadTask(withStreamedRequest:): the delegate gives the stream, as live. Read off the
            // delegate queue: a bound stream's writer may need it.
            let shown = UncheckedSendable(request)
            TaskDelegateCalls.newBodyStream(for: task) { stream in
                guard let stream = stream.value else { return done(.success(.none)) }
                let reading = UncheckedSendable(stream)
                DispatchQueue.global().async {
                    done(fromStream(reading.value, request: shown.value, form: .uploadStream))
                }
            }
            return nil
        case .notFound:
            if let body = request.httpBody {
                return .success(RequestBody(data: body, form: .request))
            }
            if let stream = request.httpBodyStream {
                return fromStream(stream, request: request, form: .requestStream)
            }
            if task is URLSessionUploadTask, (task?.countOfBytesExpectedToSend ?? 0) > 0 || TaskInternals.session(of: task) != nil {
                return .failure(unreachable(request))
            }
            return .success(.none)
        }
    }

    private static func fromFile(_ url: URL, request: URLRequest) -> Result<RequestBody, URLError> {
        do {
            let data = try Data(contentsOf: url)
            return .success(RequestBody(data: data, form: .upload))
        } catch {
            // The codes a live upload from a missing or unreadable file fails with.
            let missing = !FileManager.default.fileExists(atPath: url.path)
            return .failure(failure(missing ? .fileDoesNotExist : .noPermissionsToReadFile, request,
                                    "Cassette could not read the file to upload, \(url.path): \(error.localizedDescription)"))
        }
    }

    private static func fromStream(_ stream: InputStream, request: URLRequest, form: Form) -> Result<RequestBody, URLError> {
        let source = form == .uploadStream ? "the stream the delegate's needNewBodyStream gave" : "the request's httpBodyStream"
        do {
            return .success(RequestBody(data: try InputStreamReader.readAll(stream), form: form))
        } catch {
            return .failure(failure(.cannotDecodeRawData, request,
                                    "Cassette could not read the request body from \(source): \(error). "
                                        + "Nothing was sent or recorded; make the stream readable to its end."))
        }
    }

    private static func unreachable(_ request: URLRequest) -> URLError {
        failure(.requestBodyStreamExhausted, request,
                "Cassette cannot read the body of this upload task: the platform keeps it out of a URLProtocol's reach, so it "
                    + "would be sent and recorded empty. Nothing was sent. Send the body with data(for:) and httpBody (or "
                    + "httpBodyStream) instead, which Cassette reads on every platform.")
    }

    /// Without the failing URL: it is not redacted yet, and printing the error must not show a secret.
    private static func failure(_ code: URLError.Code, _ request: URLRequest, _ text: String) -> URLError {
        URLError(code, userInfo: [NSLocalizedDescriptionKey: text])
    }
}
