import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where ``ClientChannel`` calls the `URLProtocolClient` once `startLoading` has returned — the
/// one thing delivery does differently on each platform, and the only place that knows it.
///
/// - Linux: on the task's own work queue (``TaskInternals/workQueue(of:)``), where
///   FoundationNetworking itself calls the client; a call from any other thread races with the
///   session's task registry (docs/Architecture.md, "Linux facts"). Timers fire on that queue directly.
/// - Apple platforms: on the run loop of the thread that called `startLoading`, as the URL
///   loading system requires of a protocol, in the mode it was running in then (a synchronous
///   loader runs its own private mode) as well as the common modes. Timers fire on a private
///   queue and hand their work to that run loop. (Not run here: no Apple platform is available
///   to this project's CI; ``modes(current:common:)`` is tested on Linux.)
struct ClientThread: Sendable {
    /// The queue delivery timers run on.
    let timerQueue: DispatchQueue
    /// Whether work running on ``timerQueue`` may call the client directly.
    let timersAreOnIt: Bool
    private let perform: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// Runs `work` where client calls are safe, after the work handed over before it.
    func run(_ work: @escaping @Sendable () -> Void) { perform(work) }

    /// Runs `work`, which a timer on ``timerQueue`` is running now, where client calls are safe.
    func runFromTimer(_ work: @escaping @Sendable () -> Void) {
        if timersAreOnIt { work() } else { perform(work) }
    }

    /// What must be captured inside `startLoading` (Apple platforms: its run loop and mode); cheap.
    struct Origin: @unchecked Sendable {
        #if !canImport(FoundationNetworking)
        let runLoop = CFRunLoopGetCurrent()
        let mode = CFRunLoopCopyCurrentMode(CFRunLoopGetCurrent()).map { $0.rawValue as String }
        #endif
    }

    /// The run-loop modes client calls are scheduled in: the common modes, and the mode
    /// `startLoading` ran in when it is another (a caller waiting in a private mode hears back).
    static func modes(current: String?, common: String) -> [String] {
        guard let current, current != common else { return [common] }
        return [common, current]
    }

    /// The thread for the client of `task`, whose protocol started loading at `origin`. Found
    /// on first use: an instant replay answers inside `startLoading` and never needs it.
    static func make(origin: Origin, task: URLSessionTask?) -> ClientThread {
        #if canImport(FoundationNetworking)
        let queue = TaskInternals.workQueue(of: task) ?? DispatchQueue(label: "Cassette.ClientChannel")
        return ClientThread(timerQueue: queue, timersAreOnIt: true, perform: { queue.async(execute: $0) })
        #else
        let runLoop = UncheckedSendable(origin.runLoop)
        let modes = UncheckedSendable(modes(current: origin.mode, common: CFRunLoopMode.commonModes.rawValue as String) as CFArray)
        return ClientThread(
            timerQueue: DispatchQueue(label: "Cassette.ClientChannel.timers"), timersAreOnIt: false,
            perform: { work in
                CFRunLoopPerformBlock(runLoop.value, modes.value, work)
                CFRunLoopWakeUp(runLoop.value)
            })
        #endif
    }
}
