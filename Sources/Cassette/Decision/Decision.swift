import Foundation

/// What the ``Router`` decided for one request: who answers it. A value, so that every executor
/// carries out the same decision — the session executor (``SessionExecutor``) through a
/// ``ClientChannel``, the wire executor (`TapeServer`) on a socket — and so that the decision
/// is tested without either (`RouterTests`).
package enum Decision: Sendable {
    /// A stub answers.
    case stub(Answer)
    /// The cassette answers with a recording, prepared for this request.
    case replay(Answer)
    /// The request goes to the network, and what comes back is recorded. The request is as it
    /// was captured, its body readable.
    case record(Interaction.Request)
    /// The request goes to the network and nothing is kept: a live run (``Tape/isLive``) or an
    /// ignored request (``IgnoredRequests``). The request is as captured, its body readable.
    case passThrough(Interaction.Request)
    /// Nobody may answer: the request fails.
    case refuse(RequestFailure)

    /// The answer to play, for a stub or a replay.
    var answer: Answer? {
        switch self {
        case .stub(let answer), .replay(let answer): return answer
        case .record, .passThrough, .refuse: return nil
        }
    }
}

/// What the ``Router`` decided for a WebSocket upgrade that the wire executor (`TapeServer`)
/// asks about: a recorded conversation answers it, or it is decided as any request is. Only the
/// wire executor can hold a conversation, so only it is given this; the session executor gets a
/// ``Decision``, where a recorded conversation is a refusal that says why.
package enum UpgradeDecision: Sendable {
    /// A recorded WebSocket conversation answers the upgrade.
    case converse(ConversationReplay)
    /// No conversation: a stub, a replayed answer (an upgrade recorded as refused), recording
    /// (relaying to the upstream), or a refusal.
    case decided(Decision)
}
