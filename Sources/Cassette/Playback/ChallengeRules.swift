import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a platform's loading system goes through an HTTP authentication challenge, where Apple's
/// and FoundationNetworking's differ: data that the recording and the replay read, so that the
/// Linux suite runs Apple's rules too (a tape's are its platform's; the tests set the other's).
///
/// - Apple (`URLAuthenticationChallenge.proposedCredential`: "the most recent failed credential"
///   after a failure; the cancel disposition "cancels the entire request"; the default handling
///   answers with the configuration's credential storage).
/// - FoundationNetworking 6.3.1 (measured): no proposed credential; the challenged `401`'s head
///   and body reach a delegate that hears every piece before it is asked (so a cancel leaves it
///   with that `401` and then `cancelled`); the default handling never ends such a task, stored
///   credential or not.
package struct ChallengeRules: Sendable, Equatable {
    /// Whether a challenge after a failed attempt proposes the credential that failed.
    package var proposesFailedCredential: Bool
    /// Whether the challenged response's head and body reach a caller that hears every piece
    /// (a data delegate) before its delegate is asked; else the caller sees none of it, and a
    /// cancel is `cancelled` alone.
    package var handsChallengedResponseBeforeAsking: Bool
    /// Whether the default handling answers with the default credential the caller's
    /// configuration's `urlCredentialStorage` keeps for the protection space (first attempt only).
    package var defaultHandlingUsesStoredCredential: Bool

    /// Apple's loading system.
    package static let apple = ChallengeRules(
        proposesFailedCredential: true, handsChallengedResponseBeforeAsking: false, defaultHandlingUsesStoredCredential: true)
    /// FoundationNetworking's.
    package static let foundationNetworking = ChallengeRules(
        proposesFailedCredential: false, handsChallengedResponseBeforeAsking: true, defaultHandlingUsesStoredCredential: false)

    /// The rules of the platform this runs on.
    package static var platform: ChallengeRules {
        #if canImport(FoundationNetworking)
        foundationNetworking
        #else
        apple
        #endif
    }

    /// The credential the default handling answers `challenge` with, by these rules, from
    /// `storage` (the caller's configuration's); nil: the default handling has none to give.
    func storedCredential(for challenge: URLAuthenticationChallenge, in storage: URLCredentialStorage?) -> URLCredential? {
        guard defaultHandlingUsesStoredCredential, challenge.previousFailureCount == 0, let storage else { return nil }
        let space = challenge.protectionSpace
        if let found = storage.defaultCredential(for: space) { return found }
        // FoundationNetworking compares protection spaces by identity (measured on 6.3.1: two made
        // with the same fields are not equal), so its storage is searched field by field.
        let same = storage.allCredentials.keys.first {
            $0.host.lowercased() == space.host.lowercased() && $0.port == space.port && $0.protocol == space.protocol
                && $0.realm == space.realm && $0.authenticationMethod == space.authenticationMethod
        }
        return same.flatMap { storage.defaultCredential(for: $0) }
    }
}
