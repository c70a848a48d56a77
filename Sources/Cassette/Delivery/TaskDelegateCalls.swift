import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The calls Cassette makes to the caller's task delegate itself, because FoundationNetworking
/// makes them only for its own HTTP protocol (docs/Architecture.md, "Linux facts"): the body of a streamed upload
/// (`needNewBodyStream`), upload progress (`didSendBodyData`) and redirects
/// (`willPerformHTTPRedirection`; `wasRedirectedTo` is a fatal error on Linux).
///
/// Each call runs on the session's delegate queue, as the platform's would, so it keeps its
/// place among the calls the platform makes there (the response, the data, the end).
///
/// Redirects are asked on every platform: Cassette follows them hop by hop itself, also on
/// Apple platforms (a protocol's `wasRedirectedTo` there loses the 3xx when the delegate
/// refuses, and starts each hop with a new protocol, out of reach of the hop limit). Upload
/// progress is reported on every platform (Apple's loading system does not report it for a
/// protocol). The body stream is Linux's alone: Apple's loading system hands a protocol the
/// streamed body itself, and that method does nothing there. `known` is the session that runs
/// the task when Cassette made it (``Exchange/knownSession``), found without asking the task.
enum TaskDelegateCalls {
    /// Asks for the body of `uploadTask(withStreamedRequest:)`, as FoundationNetworking does:
    /// `nil` when the session has no task delegate, or the delegate gives none.
    static func newBodyStream(for task: URLSessionTask?, _ answer: @escaping @Sendable (UncheckedSendable<InputStream?>) -> Void) {
        #if canImport(FoundationNetworking)
        guard let task, let session = TaskInternals.session(of: task),
            let delegate = session.delegate as? URLSessionTaskDelegate
        else { return answer(UncheckedSendable(nil)) }
        let call = UncheckedSendable((session, task, delegate))
        session.delegateQueue.addOperation {
            let (session, task, delegate) = call.value
            delegate.urlSession(session, task: task) { stream in answer(UncheckedSendable(stream)) }
        }
        #else
        answer(UncheckedSendable(nil))
        #endif
    }

    /// Tells the task's progress delegate that `count` body bytes were sent, in the pieces a live
    /// upload reports: libcurl reads a body 64 KiB at a time. `expected` is the body's length when
    /// it was known up front (data and files), 0 for a stream, as live.
    static func sentBody(of task: URLSessionTask?, known: URLSession? = nil, count: Int, expected: Int64) {
        guard count > 0, let task, let session = TaskInternals.session(of: task, known: known),
            let delegate = TaskInternals.progressDelegate(of: task, known: known)
        else { return }
        let call = UncheckedSendable((session, task, delegate))
        session.delegateQueue.addOperation {
            let (session, task, delegate) = call.value
            var sent: Int64 = 0
            while sent < Int64(count) {
                let piece = min(Int64(uploadPieceSize), Int64(count) - sent)
                sent += piece
                tell(delegate, session, task, sent: piece, total: sent, expected: expected)
            }
        }
    }

    /// Reports bytes a live upload really sent (while recording), piece by piece as they went.
    static func sentBody(of task: URLSessionTask?, known: URLSession? = nil, piece: Int64, total: Int64, expected: Int64) {
        guard let task, let session = TaskInternals.session(of: task, known: known),
            let delegate = TaskInternals.progressDelegate(of: task, known: known)
        else { return }
        let call = UncheckedSendable((session, task, delegate))
        session.delegateQueue.addOperation {
            let (session, task, delegate) = call.value
            tell(delegate, session, task, sent: piece, total: total, expected: expected)
        }
    }

    /// `didSendBodyData`: an optional method on Apple platforms, asked only of a delegate that has it.
    private static func tell(
        _ delegate: URLSessionTaskDelegate, _ session: URLSession, _ task: URLSessionTask, sent: Int64, total: Int64, expected: Int64
    ) {
        #if canImport(FoundationNetworking)
        delegate.urlSession(session, task: task, didSendBodyData: sent, totalBytesSent: total, totalBytesExpectedToSend: expected)
        #else
        delegate.urlSession?(session, task: task, didSendBodyData: sent, totalBytesSent: total, totalBytesExpectedToSend: expected)
        #endif
    }

    /// How much of a body libcurl hands over at a time (its default upload buffer).
    static let uploadPieceSize = 65_536

    /// Asks the task's delegate whether to follow a redirect, as FoundationNetworking does for
    /// its own protocol: the answer is the request to send next, or nil to stop and deliver the
    /// redirect response itself. Without a delegate the redirect is followed as proposed.
    ///
    /// The delegate is ``TaskInternals/redirectDelegate(of:)``'s. Without the task's session
    /// (an Apple system where it cannot be found) nobody is asked and the redirect is followed.
    static func redirect(
        _ task: URLSessionTask?, known: URLSession? = nil, response: HTTPURLResponse, proposing next: URLRequest,
        _ answer: @escaping @Sendable (UncheckedSendable<URLRequest?>) -> Void
    ) {
        guard let task, let session = TaskInternals.session(of: task, known: known),
            let delegate = TaskInternals.redirectDelegate(of: task, known: known)
        else { return answer(UncheckedSendable(next)) }
        let call = UncheckedSendable((session, task, delegate, response, next))
        session.delegateQueue.addOperation {
            let (session, task, delegate, response, next) = call.value
            let reply: @Sendable (URLRequest?) -> Void = { chosen in answer(UncheckedSendable(chosen)) }
            #if canImport(FoundationNetworking)
            delegate.urlSession(session, task: task, willPerformHTTPRedirection: response, newRequest: next, completionHandler: reply)
            #else
            // An optional method there: a delegate without it follows the redirect, as live.
            guard let ask = delegate.urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:) else {
                return reply(next)
            }
            ask(session, task, response, next, reply)
            #endif
        }
    }

    /// Asks the delegate whether the session's cache stores `proposed`, as a live session asks
    /// before a data task completes: the task's own delegate when it is a data delegate, else the
    /// session's (on Apple platforms, whichever has the optional method). Its answer — the entry,
    /// another, or nil for none — is given to `answer`; without a delegate that would be asked,
    /// or without the task's session, `proposed` at once. Alamofire's `CachedResponseHandler`
    /// (`ResponseCacher.doNotCache`) answers here. The session is `known` when Cassette made it,
    /// else found through the task (``TaskInternals/session(of:known:)``).
    static func willCacheResponse(
        _ proposed: CachedURLResponse, of task: URLSessionTask?, known: URLSession? = nil,
        _ answer: @escaping @Sendable (UncheckedSendable<CachedURLResponse?>) -> Void
    ) {
        guard let dataTask = task as? URLSessionDataTask, let session = TaskInternals.session(of: task, known: known) else {
            return answer(UncheckedSendable(proposed))
        }
        let candidates = [dataTask.delegate as? URLSessionDataDelegate, session.delegate as? URLSessionDataDelegate].compactMap { $0 }
        #if canImport(FoundationNetworking)
        guard let delegate = candidates.first else { return answer(UncheckedSendable(proposed)) }
        let ask = { (reply: @escaping @Sendable (CachedURLResponse?) -> Void) in
            delegate.urlSession(session, dataTask: dataTask, willCacheResponse: proposed, completionHandler: reply)
        }
        #else
        guard let method = candidates.lazy.compactMap({ $0.urlSession(_:dataTask:willCacheResponse:completionHandler:) }).first else {
            return answer(UncheckedSendable(proposed))
        }
        let ask = { (reply: @escaping @Sendable (CachedURLResponse?) -> Void) in method(session, dataTask, proposed, reply) }
        #endif
        let call = UncheckedSendable(ask)
        session.delegateQueue.addOperation {
            call.value { chosen in answer(UncheckedSendable(chosen)) }
        }
    }

    /// Asks the caller's delegate to answer an authentication challenge the live server made
    /// while recording or passing through, as the platform asks it live: for a task-specific
    /// challenge (HTTP Basic, Digest) the task's own delegate first, else the session's; for a
    /// session-wide one (server trust, client certificate) the session delegate's
    /// `urlSession(_:didReceive:completionHandler:)` when it has one. Its answer goes to `reply`;
    /// with nobody to ask, the platform's default handling.
    static func challenge(
        _ challenge: URLAuthenticationChallenge, of task: URLSessionTask?, known: URLSession? = nil, _ reply: @escaping ChallengeReply
    ) {
        guard let task, let session = TaskInternals.session(of: task, known: known) else { return reply(.performDefaultHandling, nil) }
        let call = UncheckedSendable((session, task, challenge, [task.delegate, session.delegate as? URLSessionTaskDelegate]))
        session.delegateQueue.addOperation {
            let (session, task, challenge, delegates) = call.value
            #if canImport(FoundationNetworking)
            guard let delegate = delegates.compactMap({ $0 }).first else { return reply(.performDefaultHandling, nil) }
            delegate.urlSession(session, task: task, didReceive: challenge, completionHandler: reply)
            #else
            let method = challenge.protectionSpace.authenticationMethod
            let sessionWide = [NSURLAuthenticationMethodServerTrust, NSURLAuthenticationMethodClientCertificate].contains(method)
            if sessionWide, let ask = session.delegate?.urlSession(_:didReceive:completionHandler:) {
                return ask(session, challenge, reply)
            }
            guard let ask = delegates.lazy.compactMap({ $0?.urlSession(_:task:didReceive:completionHandler:) }).first else {
                return reply(.performDefaultHandling, nil)
            }
            ask(session, task, challenge, reply)
            #endif
        }
    }
}
