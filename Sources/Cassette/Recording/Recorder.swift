import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects the interactions recorded while a cassette is in use, in a deterministic order.
///
/// Each recording gets its place when its request reaches Cassette, and the saved order is the
/// order in which the code under test started the requests, whatever order they finish in.
/// That order is the order the tasks were created (`URLSessionTask.taskIdentifier`, which a
/// session numbers one after another): FoundationNetworking does not call `startLoading` for
/// concurrent tasks strictly in the order they were resumed (measured: 200 tasks resumed in
/// order reached `startLoading` with neighbours swapped), but it does number them in order.
/// Tasks of different sessions are ordered by when each session's first request arrived; a
/// request whose task is unknown comes after the others of its session, in arrival order.
/// Thread-safe.
final class Recorder: Sendable {
    /// Where a recording goes: its session's rank, its task's number, its arrival.
    struct Place: Hashable, Comparable {
        var session: Int
        var task: Int
        var arrival: Int

        static func < (a: Place, b: Place) -> Bool {
            (a.session, a.task, a.arrival) < (b.session, b.task, b.arrival)
        }
    }

    private struct State {
        var arrivals = 0
        var sessions: [ObjectIdentifier: Int] = [:]
        var finished: [Place: Interaction] = [:]
        var pending: Set<Place> = []
    }

    private let state = Locked(State())
    /// What is kept of each live exchange.
    let policy: RecordingPolicy
    /// Sends the requests, made on first use.
    private let forwarder = Locked<LiveForwarder?>(nil)

    init(policy: RecordingPolicy) {
        self.policy = policy
    }

    /// The forwarder that sends live requests, made the first time a request is recorded (for a
    /// caller that is a task of FoundationNetworking's, `reportsOnClientQueue`: see ``LiveForwarder/init(reportsOnClientQueue:)``).
    func liveForwarder(reportsOnClientQueue: Bool) -> LiveForwarder {
        forwarder.withLock { forwarder in
            if let forwarder { return forwarder }
            let made = LiveForwarder(reportsOnClientQueue: reportsOnClientQueue)
            forwarder = made
            return made
        }
    }

    /// Stops recording: cancels live requests still running.
    func shutDown() {
        forwarder.withLock { forwarder in
            forwarder?.invalidate()
            forwarder = nil
        }
    }

    /// Settles the place `place` with what ``policy`` keeps of `outcome` (see
    /// ``RecordingPolicy/keep(_:of:recordedAt:cancelled:)``); returns the warning for a request
    /// that could not connect and was not kept.
    func settle(
        _ place: Place, outcome: LiveForwarder.Outcome, of request: Interaction.Request, recordedAt: Date,
        cancelled: Bool
    ) -> String? {
        switch policy.keep(outcome, of: request, recordedAt: recordedAt, cancelled: cancelled) {
        case .interaction(let interaction):
            finish(place, with: interaction)
            return nil
        case .nothing:
            abandon(place)
            return nil
        case .unsavedConnectionFailure(let warning):
            abandon(place)
            return warning
        }
    }

    /// Settles `place` with `interaction`, recorded by an executor of its own (the server's
    /// WebSocket relay), as ``policy`` keeps it (``RecordingPolicy/keep(_:)``).
    func keep(_ interaction: Interaction, at place: Place) {
        guard let kept = policy.keep(interaction) else { return abandon(place) }
        finish(place, with: kept)
    }

    /// Reserves a place in the recording, when a request reaches Cassette.
    ///
    /// - Parameters:
    ///   - session: the session running the request, if known.
    ///   - taskIdentifier: its task's `taskIdentifier`, if known.
    func begin(session: ObjectIdentifier?, taskIdentifier: Int?) -> Place {
        state.withLock { state in
            defer { state.arrivals += 1 }
            var rank = 0
            if let session {
                rank = state.sessions[session] ?? state.sessions.count
                state.sessions[session] = rank
            }
            let place = Place(session: rank, task: taskIdentifier ?? Int.max, arrival: state.arrivals)
            state.pending.insert(place)
            return place
        }
    }

    /// Stores the interaction in the place reserved for it.
    func finish(_ place: Place, with interaction: Interaction) {
        state.withLock { state in
            guard state.pending.remove(place) != nil else { return }
            state.finished[place] = interaction
        }
    }

    /// Gives up a place: the request was cancelled by the caller, or a hook left it out.
    func abandon(_ place: Place) {
        _ = state.withLock { $0.pending.remove(place) }
    }

    /// The finished recordings in the order their requests started.
    var interactions: [Interaction] {
        state.withLock { state in state.finished.keys.sorted().compactMap { state.finished[$0] } }
    }

    /// The finished recordings in the order their requests started, given up: the recorder keeps
    /// none of them after this (a tape's, once it is ejected, so that its bodies can be freed).
    func takeInteractions() -> [Interaction] {
        state.withLock { state in
            defer { state.finished = [:] }
            return state.finished.keys.sorted().compactMap { state.finished[$0] }
        }
    }
}
