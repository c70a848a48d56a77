import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What URLSession does with a redirect response: which statuses it follows, the request it
/// sends next, and when it gives up. Cassette plays redirects hop by hop — each hop a request
/// the ``Router`` answers (stub, recording or the network) — so that the caller's redirect
/// policy decides, the cookies of every hop are kept, and a cassette shows the whole chain.
/// Apple platforms take the same path: the redirect is not handed to the loading system
/// (`wasRedirectedTo`), where a refusing delegate loses the 3xx and each hop would start a new
/// protocol, out of reach of the hop limit.
///
/// The rules are URLSession's, and RFC 9110 §15.4's:
/// - 301 and 302 turn a `POST` into a `GET` without a body; 303 turns any method into `GET`;
/// - 305, 307 and 308 (and 301/302 for other methods) keep the method and the body;
/// - the `Location` may be relative; without one the response is not a redirect;
/// - after ``mostHops`` redirects the task fails with `httpTooManyRedirects` (``RequestFailure``).
///
/// FoundationNetworking's own protocol sends a 307/308 hop without its body and, when a delegate
/// is asked, without the cookies the previous hop set (measured on Swift 6.3.1). Cassette keeps
/// both, as Apple platforms and the RFC do, so a recording made on Linux holds what an iPhone
/// would send.
enum Redirect {
    /// Darwin's and FoundationNetworking's limit.
    static let mostHops = 20

    /// What the tape's report says when a redirect of `request` is followed without asking a
    /// delegate that may exist: the task has none of its own and its session could not be found
    /// (on Apple platforms, a session the caller made that does not answer the `session`
    /// selector). Nil when the delegate could be asked, or there is none to ask.
    static func unaskedDelegateWarning(for request: Interaction.Request, taskHasDelegate: Bool, sessionFound: Bool) -> String? {
        guard !taskHasDelegate, !sessionFound else { return nil }
        return "\(request.method) \(request.url) was redirected without asking the session's delegate, if it has one: Cassette "
            + "could not find the session that runs the task. Make the session with tape.makeSession(configuration:delegate:"
            + "delegateQueue:), so that Cassette knows it."
    }

    /// The request that follows `response` to `request`, or nil when `response` is not a redirect
    /// URLSession follows.
    static func nextRequest(after response: HTTPURLResponse, to request: URLRequest, body: Data?) -> URLRequest? {
        guard [301, 302, 303, 305, 307, 308].contains(response.statusCode),
            let location = response.value(forHTTPHeaderField: "Location"),
            let target = URL(string: location, relativeTo: request.url)?.absoluteURL
        else { return nil }
        var next = request
        next.url = target
        next.httpBodyStream = nil
        let method = request.httpMethod ?? "GET"
        if response.statusCode == 303 || (response.statusCode <= 302 && method == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
        } else {
            next.httpBody = body
        }
        return next
    }
}
