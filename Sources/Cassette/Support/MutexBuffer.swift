#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value and the pthread mutex that guards it, in one allocation: the storage of ``Locked`` and
/// ``RecursiveLock``. Every request makes a few locks, and an `NSLock` or `NSRecursiveLock` costs
/// two allocations of its own (an object and its mutex) where this costs none beyond the buffer.
final class MutexBuffer<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    /// A buffer holding `value`; `recursive` lets the thread holding the mutex take it again.
    static func make(_ value: Value, recursive: Bool = false) -> MutexBuffer {
        // `create` makes an instance of the class it is called on.
        let buffer = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: MutexBuffer.self)
        buffer.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            if recursive { pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE)) }
            pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
        }
        return buffer
    }

    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }

    func lock() { withUnsafeMutablePointerToElements { _ = pthread_mutex_lock($0) } }

    func unlock() { withUnsafeMutablePointerToElements { _ = pthread_mutex_unlock($0) } }

    /// Runs `body` with the value, holding the mutex.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
