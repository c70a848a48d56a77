#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock, for state shared between URLSession's queues and test tasks.
///
/// The value and its mutex live in one allocation (a `ManagedBuffer`): every request makes a few
/// of these, and an `NSLock` beside the value cost two more allocations each (CassetteBench).
/// A pthread mutex rather than `Mutex` so the package builds on every Apple platform Cassette
/// supports. Copies share the value, as a reference would. `package` so the `cassette` tool
/// uses this one too.
package struct Locked<Value>: @unchecked Sendable {
    private let buffer: Buffer

    package init(_ value: Value) { buffer = Buffer.make(value) }

    /// Runs `body` with exclusive access to the value.
    @discardableResult
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try buffer.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    /// A copy of the current value.
    package var current: Value { withLock { $0 } }

    /// The value (the header) and its mutex (the one element).
    private final class Buffer: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: Value) -> Buffer {
            // `create` makes an instance of the class it is called on.
            let buffer = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: Buffer.self)
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                pthread_mutex_init(mutex, nil)
            }
            return buffer
        }

        deinit {
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }
    }
}

/// Carries a non-`Sendable` Foundation object (a `URLProtocol`, its client) into a closure that
/// runs on one of URLSession's queues. Only for objects whose thread-safety the caller ensures.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    package init(_ value: Value) { self.value = value }
}
