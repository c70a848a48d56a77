import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one way a request the router decided to record (``Decision/record(_:)``) is recorded, by
/// either executor: its place in the recording reserved when it arrives (``Recorder``), the request
/// sent live (``LiveForwarder``), what comes back kept by the recording policy (a connection failure
/// noted in the tape's report), and handed to the executor as it arrives and when it ends. The
/// server's WebSocket relay, which talks to the upstream itself, keeps what it recorded through
/// the same place.
package struct LiveRecording: Sendable {
    private let request: Interaction.Request
    private let access: ExecutorAccess
    /// Where the recording goes; nil when nothing is kept (``Decision/passThrough(_:)``).
    private let place: Recorder.Place?
    private let recordedAt: Date
    /// Whether the caller is a task of FoundationNetworking's, whose sessions all work on one queue.
    private let callerOnClientQueue: Bool

    /// Reserves the place of `request` (as captured) now: recordings are saved in the order their
    /// requests arrived, whatever order they finish in.
    ///
    /// - Parameters:
    ///   - keeping: false to send the request live and keep nothing (``Decision/passThrough(_:)``).
    ///   - task: the caller's task, when a URLSession's (it orders the recording among its
    ///     session's; nil on the wire).
    ///   - known: the session that runs `task`, when Cassette made it (``Exchange/knownSession``).
    package init(
        _ request: Interaction.Request, access: ExecutorAccess, task: URLSessionTask? = nil, known: URLSession? = nil, keeping: Bool = true
    ) {
        self.request = request
        self.access = access
        place =
            keeping
            ? access.recorder.begin(
                session: TaskInternals.session(of: task, known: known).map(ObjectIdentifier.init), taskIdentifier: task?.taskIdentifier)
            : nil
        recordedAt = access.clock()
        callerOnClientQueue = TaskInternals.workQueue(of: task) != nil
    }

    /// Sends `outgoing` with `body`. What arrives goes to `progress`; at the end, `judge` says what
    /// the caller saw (a resource timeout that cut the exchange, a cancellation), the policy keeps
    /// that, and `onEnd` gets it. Never on URLSession's shared queue (see ``LiveForwarder/forward(_:body:progress:onEnd:)``).
    package func send(
        _ outgoing: URLRequest, body: RequestBody, progress: LiveForwarder.Progress,
        judge: @escaping @Sendable (LiveForwarder.Outcome) -> (outcome: LiveForwarder.Outcome, cancelled: Bool) = { ($0, false) },
        onEnd: @escaping @Sendable (LiveForwarder.Outcome) -> Void
    ) -> LiveForwarder.Forwarding {
        let (request, access, place, recordedAt) = (request, access, place, recordedAt)
        return access.recorder.liveForwarder(reportsOnClientQueue: callerOnClientQueue).forward(
            outgoing, body: body, progress: progress,
            onEnd: { received in
                let (outcome, cancelled) = judge(received)
                if let place,
                    let warning = access.recorder.settle(place, outcome: outcome, of: request, recordedAt: recordedAt, cancelled: cancelled)
                {
                    access.noteConnectionFailure(warning)
                }
                onEnd(outcome)
            })
    }

    /// Keeps `interaction`, recorded by the executor itself (the relay of a WebSocket), in this
    /// place, as the policy keeps it.
    package func keep(_ interaction: Interaction) {
        guard let place else { return }
        access.recorder.keep(interaction, at: place)
    }

    /// Gives up the place: nothing was sent, or nothing is to be kept.
    package func abandon() {
        guard let place else { return }
        access.recorder.abandon(place)
    }
}
