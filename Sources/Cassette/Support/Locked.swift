import Foundation

/// A value guarded by a lock, for state shared between URLSession's queues and test tasks.
///
/// `NSLock` rather than `Mutex` so the package builds on every Apple platform Cassette supports,
/// and `lock()`/`unlock()` rather than `NSLock.withLock`, which needs macOS 14.
/// `package` so the `cassette` tool uses this one too.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    package var current: Value { withLock { $0 } }
}

/// Carries a non-`Sendable` Foundation object (a `URLProtocol`, its client) into a closure that
/// runs on one of URLSession's queues. Only for objects whose thread-safety the caller ensures.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    package init(_ value: Value) { self.value = value }
}
