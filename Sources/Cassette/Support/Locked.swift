/// A value guarded by a lock, for state shared between URLSession's queues and test tasks.
///
/// The value and its mutex live in one allocation (``MutexBuffer``): every request makes a few of
/// these, and an `NSLock` beside the value cost two more allocations each (CassetteBench). A
/// pthread mutex rather than `Mutex` so the package builds on every Apple platform Cassette
/// supports. Copies share the value, as a reference would. `package` so the `cassette` tool uses
/// this one too.
package struct Locked<Value>: @unchecked Sendable {
    private let buffer: MutexBuffer<Value>

    package init(_ value: Value) { buffer = MutexBuffer.make(value) }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try buffer.withLock(body)
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
