/// A lock the thread holding it may take again: FoundationNetworking may call `stopLoading` from
/// inside a client call that ``ClientChannel`` makes under its lock, on the same thread.
///
/// One allocation (a ``MutexBuffer``) where `NSRecursiveLock` costs two: a channel is made for
/// every request. Copies share the mutex.
struct RecursiveLock: @unchecked Sendable {
    private let buffer = MutexBuffer.make((), recursive: true)

    func lock() { buffer.lock() }

    func unlock() { buffer.unlock() }
}
