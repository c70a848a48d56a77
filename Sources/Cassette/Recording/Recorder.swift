import Foundation

/// Collects the interactions recorded while a cassette is in use.
///
/// Each recording gets its place when its request starts, so the saved order is the order in
/// which requests started, whatever order they finish in. Thread-safe.
final class Recorder: Sendable {
    private struct State {
        var nextTicket = 0
        var finished: [Int: Interaction] = [:]
        var pending: Set<Int> = []
    }

    private let state = Locked(State())

    /// Reserves the next place in the recording, when a request starts.
    func begin() -> Int {
        state.withLock { state in
            defer { state.nextTicket += 1 }
            state.pending.insert(state.nextTicket)
            return state.nextTicket
        }
    }

    /// Stores the interaction in the place reserved for it.
    func finish(_ ticket: Int, with interaction: Interaction) {
        state.withLock { state in
            guard state.pending.remove(ticket) != nil else { return }
            state.finished[ticket] = interaction
        }
    }

    /// Gives up a place: the request was cancelled by the caller and has nothing to record.
    func abandon(_ ticket: Int) {
        _ = state.withLock { $0.pending.remove(ticket) }
    }

    /// The finished recordings in the order their requests started.
    var interactions: [Interaction] {
        state.withLock { state in state.finished.keys.sorted().compactMap { state.finished[$0] } }
    }
}
