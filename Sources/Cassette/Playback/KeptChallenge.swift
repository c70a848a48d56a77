import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP authentication challenge as a cassette keeps it (``Interaction/Challenge``): taken from
/// the platform's challenge while recording, asked of the caller's delegate again on replay, and
/// what the replay does with the answer.
///
/// A replay asks each recorded challenge in order, as a live session asks after each challenged
/// response. An answer like the recorded one goes on to the next challenge, and after the last the
/// recorded answer plays. Another answer ends it there (``Next``): a cancel ends with `cancelled`
/// (after the challenged response where the platform hands it over before asking:
/// ``ChallengeRules``); the default handling or a rejected protection space plays the challenged
/// response as the answer, as Apple's loading system does (FoundationNetworking never ends such a
/// task: measured); a credential where none was given when recording is a request the cassette
/// does not hold, and fails like a miss.
enum KeptChallenge {
    /// How a delegate answered, as a cassette keeps it: a credential-less `useCredential` is the
    /// platform's default handling.
    static func answer(_ disposition: URLSession.AuthChallengeDisposition, credential: URLCredential?) -> Interaction.Challenge.Answer {
        switch disposition {
        case .useCredential: return credential == nil ? .performDefaultHandling : .useCredential
        case .cancelAuthenticationChallenge: return .cancelAuthenticationChallenge
        case .rejectProtectionSpace: return .rejectProtectionSpace
        default: return .performDefaultHandling
        }
    }

    /// `challenge` as a cassette keeps it, answered with `answer`, when it is HTTP authentication
    /// answered by a `401` or `407` (server trust and client certificates belong to the connection,
    /// which a replay has none of: nil). `body` is what arrived of the challenged response before
    /// the platform asked (FoundationNetworking hands it over; Apple's loading system does not).
    static func recorded(
        _ challenge: URLAuthenticationChallenge, answer: Interaction.Challenge.Answer, body: Data
    ) -> Interaction.Challenge? {
        let space = challenge.protectionSpace
        guard let response = challenge.failureResponse as? HTTPURLResponse, [401, 407].contains(response.statusCode),
            space.authenticationMethod.hasPrefix(methodPrefix)
        else { return nil }
        let method = String(space.authenticationMethod.dropFirst(methodPrefix.count))
        guard Interaction.Challenge.knownMethods.contains(method) else { return nil }
        var challenged = Interaction.Response(response, body: body, requestURL: "")
        challenged.url = nil
        return Interaction.Challenge(method: method, realm: space.realm, answer: answer, response: challenged)
    }

    /// The challenge a replay asks for `recorded`, the `round`th (from 0) of a request to `url`:
    /// the protection space of the request's host, port and scheme with the recorded method and
    /// realm, the challenged response as the failure response, `previousFailureCount` the round,
    /// and as proposed credential `proposed`: the one the delegate gave in the round before, where
    /// the platform proposes the credential that failed (none is ever stored). Nil for a URL
    /// without a host.
    static func question(
        _ recorded: Interaction.Challenge, round: Int, url: URL, proposed: URLCredential? = nil
    ) -> URLAuthenticationChallenge? {
        guard let host = url.host, let scheme = url.scheme?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" || scheme == "wss" ? 443 : 80)
        let space = URLProtectionSpace(
            host: host, port: port, protocol: scheme, realm: recorded.realm, authenticationMethod: methodPrefix + recorded.method)
        return URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: proposed, previousFailureCount: round,
            failureResponse: recorded.response.urlResponse(for: url), error: nil, sender: AnsweredByCompletionHandler())
    }

    /// What a replay does once the delegate answered a recorded challenge.
    enum Next: Equatable {
        /// Answered as recorded: the next challenge is asked, or after the last the recorded answer plays.
        case asRecorded
        /// The challenged response is the answer.
        case challengedResponse
        /// Cancelled: the request ends with `cancelled` and nothing more (Apple's cancel disposition
        /// "cancels the entire request"; FoundationNetworking handed the challenged response over
        /// before asking, where it does, and then ends).
        case cancelled
        /// Answered with a credential the recording was not answered with: the request sent with
        /// it is not in the cassette.
        case unrecorded
    }

    /// What follows `given` where `recorded` was the answer.
    static func next(recorded: Interaction.Challenge.Answer, given: Interaction.Challenge.Answer) -> Next {
        switch given {
        case .cancelAuthenticationChallenge: return .cancelled
        case _ where given == recorded: return .asRecorded
        case .useCredential: return .unrecorded
        case .performDefaultHandling, .rejectProtectionSpace: return .challengedResponse
        }
    }

    /// Whether FoundationNetworking takes `response`, finished normally by a protocol for a
    /// request to `url`, for a challenge of its own: a `401` with a `WWW-Authenticate` field from an
    /// `http` or `https` URL. It then asks the session's delegate and never ends the task without a
    /// credential (no delegate, the default handling: measured on 6.3.1), and, as its
    /// `_ProtocolClient` reads, sends the request again live through its own HTTP protocol (a
    /// credential) or stops the process (a nil credential; Digest or another scheme it has no
    /// handler for). Such
    /// an answer ends with ``RequestFailure/Reason/challengeNotEndable`` after its head and body
    /// instead. False on Apple platforms, where the `401` is the answer.
    static func takenForAChallengeOnThisPlatform(_ response: Interaction.Response?, url: URL?) -> Bool {
        #if canImport(FoundationNetworking)
        guard let response, response.status == 401, let scheme = (response.url.flatMap(URL.init(string:)) ?? url)?.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        else { return false }
        return response.headers.values(for: "WWW-Authenticate").contains { !$0.allSatisfy(\.isWhitespace) }
        #else
        return false
        #endif
    }

    private static let methodPrefix = "NSURLAuthenticationMethod"
}

/// The sender of a replayed challenge. A `URLSession` delegate answers through its completion
/// handler, never the sender; the methods are here because the protocol has them.
private final class AnsweredByCompletionHandler: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
