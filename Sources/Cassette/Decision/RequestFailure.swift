import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every way a request can fail inside Cassette — not an error a server or a recording gave, but
/// Cassette's own refusal — with its `URLError` code and its message, built here and nowhere else.
///
/// The session executor fails the task with ``urlError``; the wire executor (`TapeServer`)
/// answers each case with a status of its own (an unmatched request gets the miss report), by
/// case, never by the message's text. Messages say what happened, to which request, and what to
/// do next; they name the request as the cassette holds it (redacted), so printing one never shows
/// a secret.
package struct RequestFailure: Error, Sendable {
    package enum Reason: Sendable {
        /// No recorded interaction matches, and the mode may not record.
        case unmatched(UnmatchedRequest)
        /// A ``StubSession`` without pass-through: no stub answers.
        case noStub(installed: Int)
        /// The request came through a session whose protocol has no route: its tape was ejected,
        /// or (the explanation says which) no tape was current when its configuration was made.
        case noRoute(explanation: String)
        /// The request came through a configuration Cassette cannot route (a background one:
        /// ``CassetteError/backgroundSessionNotRoutable(identifier:)``); the explanation says why.
        case notRoutable(explanation: String)
        /// A download task on Linux, which FoundationNetworking cannot complete from a protocol.
        case downloadOnLinux
        /// The file an upload task sends could not be read (`missing`: it does not exist).
        case uploadFileUnreadable(path: String, missing: Bool, why: String)
        /// The request's `httpBodyStream`, or the stream the delegate's `needNewBodyStream` gave,
        /// could not be read to its end.
        case bodyStreamUnreadable(fromDelegate: Bool, why: String)
        /// The platform keeps an upload task's body out of a protocol's reach.
        case bodyOutOfReach
        /// More redirects than URLSession follows.
        case tooManyRedirects
        /// The session's `timeoutIntervalForResource` passed.
        case resourceTimeout(seconds: TimeInterval)
        /// A replay or a stub waits longer than the request's timeout.
        case waitedTooLong(what: String, timeout: TimeInterval)
        /// A recorded response declares more body than it holds (a hand edit): the connection is
        /// lost after the bytes it holds, as it would be live.
        case bodyShorterThanDeclared(declared: Int, holds: Int, cassette: URL?)
        /// No `HTTPURLResponse` can be made with this status.
        case unbuildableStatus(Int, stub: Bool)
        /// The request's cache policy is `returnCacheDataDontLoad` and the session's URL cache
        /// holds no response for it.
        case notInCache
        /// The recording that matches is a WebSocket conversation (a `101` and its messages),
        /// which neither a `URLSession` task nor, yet, the replay server can carry.
        case webSocketConversation(cassette: URL?)
        /// The replay server was to record a WebSocket over TLS (`wss://`), which its own client cannot speak.
        case webSocketOverTLS
        /// The replay server could not open the WebSocket it was to record upstream.
        case webSocketUpstreamUnreachable(why: String)
        /// A body pattern of the redaction rules did not finish on this request's body: it ran past
        /// its budget (in seconds), or the engine gave up (no budget).
        case redactionFailed(pattern: String, budget: TimeInterval?)
        /// A replay's challenge answered with a credential where the recording has another answer.
        case challengeAnsweredOtherwise(Interaction.Challenge, round: Int, cassette: URL?)
        /// A `401` FoundationNetworking would take for a challenge it cannot end (``KeptChallenge/takenForAChallengeOnThisPlatform(_:url:)``).
        case challengeNotEndable
    }

    package var reason: Reason
    /// The request's method and URL, as errors show them (redacted); nil when the failure comes
    /// before the request could be redacted (no route, a body that cannot be read).
    var method: String?
    var url: String?

    package init(_ reason: Reason, method: String? = nil, url: String? = nil) {
        self.reason = reason
        self.method = method
        self.url = url
    }

    init(_ reason: Reason, request: Interaction.Request) {
        self.init(reason, method: request.method, url: request.url)
    }

    /// The `URLError` code the task fails with.
    var code: URLError.Code {
        switch reason {
        case .unmatched, .noStub, .noRoute, .notRoutable, .challengeAnsweredOtherwise: return Self.unmatchedCode
        case .downloadOnLinux: return .cannotCreateFile
        // The codes a live upload from a missing or unreadable file or stream fails with.
        case .uploadFileUnreadable(_, let missing, _): return missing ? .fileDoesNotExist : .noPermissionsToReadFile
        case .bodyStreamUnreadable: return .cannotDecodeRawData
        case .bodyOutOfReach: return .requestBodyStreamExhausted
        case .tooManyRedirects: return .httpTooManyRedirects
        case .resourceTimeout, .waitedTooLong: return .timedOut
        case .bodyShorterThanDeclared: return .networkConnectionLost
        case .challengeNotEndable: return .userAuthenticationRequired
        case .unbuildableStatus: return .badServerResponse
        case .notInCache: return .resourceUnavailable
        case .webSocketConversation: return .unsupportedURL
        case .webSocketOverTLS: return .secureConnectionFailed
        case .webSocketUpstreamUnreachable: return .cannotConnectToHost
        case .redactionFailed: return .cannotDecodeRawData
        }
    }

    /// The code of a request nobody may answer (``Tape/unmatchedRequestErrorCode``).
    static let unmatchedCode = URLError.Code.resourceUnavailable

    /// What the caller reads in `localizedDescription`.
    package var message: String {
        let request = "\(method ?? "GET") \(url ?? "")"
        switch reason {
        case .unmatched(let miss):
            return miss.description
        case .noStub(let installed):
            return "Cassette: no stub matches \(request) (\(installed) stub\(installed == 1 ? "" : "s") installed). Add a stub whose "
                + "condition this request meets, or create the StubSession with unmatched: .passThrough to let such requests reach "
                + "the network."
        case .noRoute(let explanation):
            return explanation
        case .notRoutable(let explanation):
            return "Cassette did not send the request: " + explanation
        case .downloadOnLinux:
            return "Cassette cannot complete the download task for \(request) on Linux: FoundationNetworking gives a download "
                + "answered by a URLProtocol no file (it reads a property only its own HTTP protocol can set), so the task would end "
                + "without a file or crash the process. Nothing was sent or recorded. Use data(for:) or a data task and write the "
                + "body to a file yourself, or point the download task at tape.serve() (a real HTTP server answering from the "
                + "cassette); on Apple platforms download tasks record and replay."
        case .uploadFileUnreadable(let path, _, let why):
            return "Cassette could not read the file to upload, \(path): \(why)"
        case .bodyStreamUnreadable(let fromDelegate, let why):
            let source = fromDelegate ? "the stream the delegate's needNewBodyStream gave" : "the request's httpBodyStream"
            return "Cassette could not read the request body from \(source): \(why). Nothing was sent or recorded; make the stream "
                + "readable to its end."
        case .bodyOutOfReach:
            return "Cassette cannot read the body of this upload task: the platform keeps it out of a URLProtocol's reach, so it would "
                + "be sent and recorded empty. Nothing was sent. Send the body with data(for:) and httpBody (or httpBodyStream) "
                + "instead, which Cassette reads on every platform."
        case .tooManyRedirects:
            return "too many HTTP redirects (more than \(Redirect.mostHops)): Cassette stopped following, as URLSession does"
        case .resourceTimeout(let seconds):
            return "Cassette: the request took longer than the session's timeoutIntervalForResource of "
                + "\(JSONCassetteCodec.formatSeconds(seconds)) s"
        case .waitedTooLong(let what, let timeout):
            return "Cassette: \(request) timed out: \(what) waits longer than the request's timeout of "
                + "\(JSONCassetteCodec.formatSeconds(timeout)) s"
        case .bodyShorterThanDeclared(let declared, let holds, let cassette):
            return "Cassette: the recorded response to \(request) declares Content-Length \(declared) but its body holds \(holds) "
                + "bytes, so the connection is lost after them, as it would be live. If the body was edited, correct or remove its "
                + "Content-Length in \(cassette?.path ?? "the cassette")."
        case .unbuildableStatus(let status, let stub):
            return stub
                ? "Cassette stub: cannot build a response with status \(status)"
                : "Cassette could not build a response for status \(status)"
        case .webSocketConversation(let cassette):
            return "Cassette: the recording in \(cassette?.path ?? "the cassette") that matches \(request) is a WebSocket conversation "
                + "(a 101 Switching Protocols and its messages). A URLSession task cannot receive it: URLSessionWebSocketTask does "
                + "not go through a URLProtocol, and a data task cannot be answered with a 101. Nothing was replayed. Point the "
                + "WebSocket client at the tape's server instead (tape.serve(), or cassette serve): it replays the conversation."
        case .webSocketOverTLS:
            return "Cassette cannot record the WebSocket at \(url ?? ""): it is over TLS (wss://), and the recording server speaks "
                + "WebSocket through its own client, which has no TLS; FoundationNetworking's URLSessionWebSocketTask cannot take its "
                + "place (on Linux it answers \"WebSockets not supported by libcurl\"). Record against a ws:// server (a local or "
                + "staging one: --upstream http://HOST:PORT), then replay the cassette as usual."
        case .webSocketUpstreamUnreachable(let why):
            return "Cassette could not record the WebSocket at \(url ?? ""): \(why). Nothing was recorded."
        case .redactionFailed(let pattern, .some(let budget)):
            return "Cassette: \(request) was not answered: the redaction body pattern \"\(pattern)\" ran longer than its budget of "
                + "\(JSONCassetteCodec.formatSeconds((budget * 100).rounded() / 100)) s on the request's body and was stopped (it backtracks without end on "
                + "this input). Make the pattern linear — no nested or overlapping repetition like (a|aa)+ — and anchor what it can."
        case .redactionFailed(let pattern, .none):
            return "Cassette: \(request) was not answered: the regular expression engine gave up on the redaction body pattern "
                + "\"\(pattern)\" over the request's body (its backtracking ran out of stack on this input), so no part of the body "
                + "could be kept. Write the pattern with one character class per repetition — [A-Za-z0-9-]+ rather than "
                + "(?:[A-Za-z0-9]|-)+ — which matches without backtracking."
        case .challengeAnsweredOtherwise(let challenge, let round, let cassette):
            let realm = challenge.realm.map { ", realm \"\($0)\"" } ?? ""
            return "Cassette: the delegate answered challenge \(round + 1) to \(request) (\(challenge.method)\(realm)) with "
                + "useCredential, but when it was recorded it was answered with \(challenge.answer.rawValue), so "
                + "\(cassette?.path ?? "the cassette") holds no answer to the request sent with a credential. Record the interaction "
                + "again (delete it, or record with mode .all) with the delegate that answers with a credential."
        case .challengeNotEndable:
            return "Cassette: the answer to \(request) is a 401 with WWW-Authenticate, which FoundationNetworking takes for a "
                + "challenge when a URLProtocol delivers it: it would ask the session's delegate and then never end the task (no "
                + "delegate, or the default handling), send the request live around the cassette (a credential), or stop the process "
                + "(Digest, or a scheme it has no handler for). Cassette ended the task with this error after the 401 instead; on "
                + "Apple platforms the 401 is the answer. To replay it on Linux, answer the challenge in the delegate when recording "
                + "(a recorded challenge is asked again on replay), or remove WWW-Authenticate from the recorded response."
        case .notInCache:
            return "Cassette: \(request) is not in the session's URL cache, and its cache policy (returnCacheDataDontLoad) does not "
                + "allow loading it, so nothing was sent or replayed, as live. Make the request once with a policy that loads, or use "
                + ".returnCacheDataElseLoad."
        }
    }

    /// The error the task fails with.
    package var urlError: URLError {
        guard let url else { return URLError(code, userInfo: [NSLocalizedDescriptionKey: message]) }
        return Self.urlError(code, url: url, message)
    }

    /// An error for the caller: a recorded or stubbed error (`description` nil, or the stub's), or
    /// one of the cases above. `url` is the request's URL as the cassette would hold it
    /// (redacted): printing the error must not show a secret.
    static func urlError(_ code: URLError.Code, url: String, _ description: String? = nil) -> URLError {
        var info: [String: Any] = [:]
        if let url = URL(string: url) {
            info[NSURLErrorFailingURLErrorKey] = url
        }
        if let description { info[NSLocalizedDescriptionKey] = description }
        return URLError(code, userInfo: info)
    }
}
