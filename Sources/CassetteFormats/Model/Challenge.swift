import Foundation

extension Interaction {
    /// An HTTP authentication challenge the server made before the answer an interaction keeps:
    /// the challenged response (a `401` or `407`), what the client's delegate was asked, and how it
    /// answered. An interaction keeps its challenges in order, the first at
    /// `previousFailureCount` 0.
    ///
    /// A replay asks the caller's delegate each challenge again, as a live session would: answered
    /// as recorded, the next challenge is asked and then the recorded answer plays; answered
    /// otherwise, the challenged response is the answer (see the Recipes article, "Authentication
    /// challenges"). The credential itself is never stored: it is a secret, and any credential
    /// answers a recorded `useCredential`.
    ///
    /// ```json
    /// "challenges": [
    ///   { "method": "HTTPBasic", "realm": "api", "answer": "useCredential",
    ///     "response": { "status": 401, "headers": { "WWW-Authenticate": "Basic realm=\"api\"" } } }
    /// ]
    /// ```
    public struct Challenge: Sendable, Equatable {
        /// The authentication method the delegate was asked about, as the platform names it
        /// without its `NSURLAuthenticationMethod` prefix: `HTTPBasic`, `HTTPDigest`, `NTLM`,
        /// `Negotiate`, `HTMLForm`, `Default`.
        public var method: String
        /// The protection space's realm, as the server named it; nil when it named none.
        public var realm: String?
        /// How the delegate answered.
        public var answer: Answer
        /// The challenged response: its status, header fields (`WWW-Authenticate`) and body, as far
        /// as the platform handed them over before asking (Apple's loading system hands over no
        /// body: it is stored empty).
        public var response: Response

        /// A challenge from its parts.
        public init(method: String, realm: String? = nil, answer: Answer, response: Response) {
            self.method = method
            self.realm = realm
            self.answer = answer
            self.response = response
        }

        /// How a delegate answered a challenge: the cases of `URLSession.AuthChallengeDisposition`,
        /// by their Swift names. A `useCredential` without a credential is stored as
        /// `performDefaultHandling`, which is what the platform makes of it.
        public enum Answer: String, Sendable, Equatable, CaseIterable {
            /// With a credential: the request was sent again, with it.
            case useCredential
            /// The platform's own handling (a stored default credential, else none).
            case performDefaultHandling
            /// The task was cancelled.
            case cancelAuthenticationChallenge
            /// This protection space was declined, and the next one asked.
            case rejectProtectionSpace
        }

        /// The authentication methods a challenge may name.
        package static let knownMethods = ["HTTPBasic", "HTTPDigest", "NTLM", "Negotiate", "HTMLForm", "Default"]
    }
}
