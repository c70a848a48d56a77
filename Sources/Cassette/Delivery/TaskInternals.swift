import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What FoundationNetworking keeps private about a task and Cassette needs, found by
/// reflection (`Mirror`), with a safe answer when a field is not found. On Apple platforms
/// none of these fields exist and every lookup gives its fallback.
///
/// Measured on Swift 6.3.1 (DESIGN §5): a task's `workQueue` targets its session's `workQueue`,
/// which is also where the session mutates its task registry; reading the registry is
/// therefore safe only from `startLoading` or from work running on the task's `workQueue`.
enum TaskInternals {
    /// The serial queue on which FoundationNetworking calls the client for `task`; nil on Apple
    /// platforms. An immutable field: safe to read from any thread.
    static func workQueue(of task: URLSessionTask?) -> DispatchQueue? {
        #if canImport(FoundationNetworking)
        return task.flatMap { field("workQueue", of: $0) as? DispatchQueue }
        #else
        return nil
        #endif
    }

    /// The configuration of the session that runs `task`, or nil where it cannot be found
    /// (Apple platforms). Safe to read from any thread: the session's configuration never changes.
    static func configuration(of task: URLSessionTask?) -> URLSessionConfiguration? {
        session(of: task)?.configuration
    }

    /// The session that runs `task`, or nil where it cannot be found (Apple platforms). An
    /// immutable field: safe to read from any thread.
    static func session(of task: URLSessionTask?) -> URLSession? {
        #if canImport(FoundationNetworking)
        return task.flatMap { field("session", of: $0) as? URLSession }
        #else
        return nil
        #endif
    }

    /// Whether every `didLoad` reaches the caller: true when the task reports to a session
    /// delegate. Completion handlers and `data(for:)` on Linux keep only the last `didLoad`
    /// (DESIGN §5), so for them, and whenever the answer cannot be found, this is false. On Apple
    /// platforms, where the loading system gathers the pieces for every API, it is true.
    ///
    /// Call only from `startLoading` or from the task's work queue (see the type's notes).
    static func deliversEveryChunk(_ task: URLSessionTask?) -> Bool {
        #if canImport(FoundationNetworking)
        guard let task,
              let session = field("session", of: task) as? URLSession,
              let registry = field("taskRegistry", of: session),
              let behaviours = field("behaviours", of: registry) as? [Int: Any],
              let behaviour = behaviours[task.taskIdentifier]
        else { return false }
        return String(describing: behaviour).hasSuffix("callDelegate")
        #else
        return true
        #endif
    }

    /// The stored property `label` of `value`, searched up the superclasses.
    private static func field(_ label: String, of value: Any) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: value)
        while let current = mirror {
            for child in current.children where child.label == label {
                return unwrapped(child.value)
            }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// `value` without its `Optional` wrapping, or nil for `.none`.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}
