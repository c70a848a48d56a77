import Foundation

/// What the ``Router`` decided for one request: who answers it. A value, so that every executor
/// carries out the same decision — the session executor (``SessionExecutor``) through a
/// ``ClientChannel``, the wire executor (``TapeServer``) on a socket — and so that the decision
/// is tested without either (`RouterTests`).
enum Decision: Sendable {
    /// A stub answers.
    case stub(Answer)
    /// The cassette answers with a recording, prepared for this request.
    case replay(Answer)
    /// The request goes to the network, and what comes back is recorded. The request is as it
    /// was captured, its body readable.
    case record(Interaction.Request)
    /// Nobody may answer: the request fails.
    case refuse(RequestFailure)
    /// A recorded WebSocket conversation answers an upgrade: only the wire executor can carry it
    /// out, and the router decides it only when asked by one (`conversing`).
    case converse(ConversationReplay)

    /// The answer to play, for a stub or a replay.
    var answer: Answer? {
        switch self {
        case .stub(let answer), .replay(let answer): return answer
        case .record, .refuse, .converse: return nil
        }
    }
}
