import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// Cancels `tasks`, the session's tasks in flight as Cassette knows them, and invalidates the
    /// session, as `invalidateAndCancel()` does, on every platform without crashing: how Cassette
    /// ends a session it made.
    ///
    /// On Linux, FoundationNetworking reads the session's task registry off the work queue that
    /// changes it — `invalidateAndCancel()` on the caller's thread, `getAllTasks` and
    /// `getTasksWithCompletionHandler` on the delegate queue — so when a task has answered its
    /// caller but its removal from the registry is still queued (a test that ejects right after
    /// its last request) the read traps and the test process dies (seen in `CassetteBench`'s suite
    /// benchmark: `invalidateAndCancel` twice in about 125 quick runs, `getAllTasks` once in about
    /// 80,000 tapes ejected). There the tasks the caller names are cancelled from a global queue (a
    /// task is never cancelled from the session's work queue, which a delegate queue running
    /// callbacks where they are handed over would be), and the session is invalidated once every
    /// task has finished (`finishTasksAndInvalidate()`, which reads the registry on its queue).
    /// Apple platforms: `invalidateAndCancel()` itself.
    package func cancelTasksAndInvalidate(_ tasks: [URLSessionTask]) {
        #if canImport(FoundationNetworking)
        Self.cancel(tasks)
        finishTasksAndInvalidate()
        #else
        invalidateAndCancel()
        #endif
    }

    /// Cancels the session's tasks, listed by `getAllTasks`, and invalidates it: only for a
    /// session whose delegate queue runs each callback where FoundationNetworking hands it over
    /// (``InlineOperationQueue``, the recording session's), so that the list is read on the
    /// session's work queue. Any other session names its tasks (``cancelTasksAndInvalidate(_:)``).
    package func cancelListedTasksAndInvalidate() {
        #if canImport(FoundationNetworking)
        getAllTasks { tasks in Self.cancel(tasks) }
        finishTasksAndInvalidate()
        #else
        invalidateAndCancel()
        #endif
    }

    /// Cancels `tasks` from a global queue, never from the caller's (which may be a session's
    /// work queue).
    static func cancel(_ tasks: [URLSessionTask]) {
        guard !tasks.isEmpty else { return }
        let cancelled = UncheckedSendable(tasks)
        DispatchQueue.global().async { for task in cancelled.value { task.cancel() } }
    }
}
