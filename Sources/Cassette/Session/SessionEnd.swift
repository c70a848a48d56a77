import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// Cancels the session's tasks and invalidates it, as `invalidateAndCancel()` does, on every
    /// platform without crashing: how Cassette ends every session it made.
    ///
    /// On Linux, FoundationNetworking's `invalidateAndCancel()` reads the session's task registry
    /// off the queue that changes it: when a task has answered its caller but its removal from
    /// the registry is still queued — a test that ejects right after its last request — the read
    /// traps and the test process dies (seen in `CassetteBench`'s suite benchmark: twice in about
    /// 125 quick runs). There the tasks are listed where the registry is changed (`getAllTasks`), cancelled
    /// from a global queue (a task is never cancelled from the session's own queue, which a
    /// delegate queue running callbacks where they are handed over would be), and the session is
    /// invalidated when they have finished (`finishTasksAndInvalidate()`, which reads the registry
    /// on its queue). Apple platforms: `invalidateAndCancel()` itself.
    package func cancelTasksAndInvalidate() {
        #if canImport(FoundationNetworking)
        getAllTasks { tasks in
            guard !tasks.isEmpty else { return }
            let cancelled = UncheckedSendable(tasks)
            DispatchQueue.global().async { for task in cancelled.value { task.cancel() } }
        }
        finishTasksAndInvalidate()
        #else
        invalidateAndCancel()
        #endif
    }
}
