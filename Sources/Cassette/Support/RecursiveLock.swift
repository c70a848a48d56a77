#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock the thread holding it may take again: FoundationNetworking may call `stopLoading` from
/// inside a client call that ``ClientChannel`` makes under its lock, on the same thread.
///
/// One allocation (a `ManagedBuffer` holding a recursive pthread mutex) where `NSRecursiveLock`
/// costs two: a channel is made for every request. Copies share the mutex.
struct RecursiveLock: @unchecked Sendable {
    private let buffer: Buffer

    init() { buffer = Buffer.make() }

    func lock() { buffer.withUnsafeMutablePointerToElements { _ = pthread_mutex_lock($0) } }

    func unlock() { buffer.withUnsafeMutablePointerToElements { _ = pthread_mutex_unlock($0) } }

    private final class Buffer: ManagedBuffer<Void, pthread_mutex_t> {
        static func make() -> Buffer {
            // `create` makes an instance of the class it is called on.
            let buffer = unsafeDowncast(create(minimumCapacity: 1) { _ in () }, to: Buffer.self)
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                var attributes = pthread_mutexattr_t()
                pthread_mutexattr_init(&attributes)
                pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
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
    }
}
