import Dispatch

/// Where a request is decided when other requests wait for FoundationNetworking's shared queue.
///
/// On Linux every session's `startLoading` runs on one process-wide serial queue, and so does
/// every client call (docs/Architecture.md, "Linux facts"). A request decided inside
/// `startLoading` — matched, its recording taken, its response head built — holds that queue
/// while the requests behind it wait. When others are waiting, the decision is made here instead,
/// on Cassette's own serial queue beside it, and the answer is played back on the task's work
/// queue (``ClientChannel/later(_:)``): the shared queue only delivers, and with 64 replays in
/// flight a first replay costs about what the floor's does (`replay_distinct_64`,
/// docs/Performance.md). A request alone, or one whose response head was built before, is
/// decided inline as before: the two trips between queues and their wake-ups would cost it more
/// than the work they move.
///
/// "Waiting" is counted, not guessed: FoundationNetworking makes a task's protocol inside
/// `resume()` and queues its `startLoading`, so a protocol of Cassette's made and not yet started
/// is a request behind this one (``protocolMade()``, ``protocolStarted()``). Apple's loading
/// system has no such queue and never counts one, so its requests are always decided inline.
///
/// Order is kept: once one request is decided here, every later one is too until its answer was
/// played, so requests are decided in the order their `startLoading` ran (one serial queue), as
/// a recording's repeated requests are answered in turn.
final class DecisionQueue: Sendable {
    /// The one queue: decisions of every tape in the process, in order.
    static let shared = DecisionQueue()

    private struct Counts {
        /// Protocols made for a task whose `startLoading` has not run yet.
        var waitingToStart = 0
        /// Requests decided here whose answer has not been acted on yet.
        var aside = 0
    }

    private let counts = Locked(Counts())
    private let queue: DispatchQueue
    private let marker = DispatchSpecificKey<Bool>()

    private init() {
        queue = DispatchQueue(label: "Cassette.decisions")
        queue.setSpecific(key: marker, value: true)
    }

    /// A protocol of Cassette's was made for a task: its `startLoading` is queued.
    func protocolMade() {
        counts.withLock { $0.waitingToStart += 1 }
    }

    /// A protocol counted by ``protocolMade()`` started loading, or went away without starting.
    func protocolStarted() {
        counts.withLock { $0.waitingToStart -= 1 }
    }

    /// Whether the request starting now is decided here: one decided here has not been acted on
    /// (so order is kept), or another request waits to start and this one is not cheap to decide
    /// inline (`isCheap`, asked only then: its response head was built before, so what is left
    /// costs less than the two trips between queues and the wake-ups they take). When true, the
    /// caller must call ``actedOn()`` once it acted on the decision.
    ///
    /// Called on the shared queue only (inside `startLoading` or on a task's work queue), as
    /// ``protocolMade()`` is, so between its two looks the counts can only fall (a protocol gone
    /// without starting, a cancelled request given up here): at worst one request is decided here
    /// that could have stayed.
    func takesNext(unlessCheap isCheap: () -> Bool) -> Bool {
        let (waiting, aside) = counts.withLock { ($0.waitingToStart, $0.aside) }
        guard aside > 0 || (waiting > 0 && !isCheap()) else { return false }
        counts.withLock { $0.aside += 1 }
        return true
    }

    /// Runs `decide` on the queue, after the decisions taken before it.
    func decide(_ decide: @escaping @Sendable () -> Void) {
        queue.async(execute: decide)
    }

    /// A request ``takesNext(unlessCheap:)`` took was acted on (its answer played, its recording
    /// started, its failure sent) or given up (cancelled before its decision): the next request
    /// alone may be decided inline again.
    func actedOn() {
        counts.withLock { $0.aside -= 1 }
    }

    /// Whether the caller runs on this queue: a decision made here (for tests).
    var isCurrent: Bool { DispatchQueue.getSpecific(key: marker) == true }
}
