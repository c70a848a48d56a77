import Cassette

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening socket whose waiting for the next connection another thread can end, the same
/// way on every platform: the waiting thread polls the socket and a wake pipe, and ``wake()``
/// writes to the pipe. (`shutdown(2)` on a listening socket wakes a blocked `accept(2)` on Linux
/// but not on Darwin, where the thread, the port and the tape would stay behind.)
final class Listener: @unchecked Sendable {
    /// What ``next()`` found.
    enum Next: Equatable {
        /// A new connection's socket.
        case connection(Int32)
        /// Nothing this time (interrupted, or a connection gone before it was accepted): ask again.
        case again
        /// Out of descriptors: wait a little for connections to end, then ask again.
        case exhausted
        /// ``wake()`` was called, or the socket failed: stop accepting.
        case stopped
    }

    let descriptor: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    /// Whether the descriptors were closed: their numbers may then belong to other sockets.
    private let closed = Locked(false)

    /// Takes `descriptor`, a socket already listening; closes it when a wake pipe cannot be made.
    init(listening descriptor: Int32) throws(CassetteError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let reason = String(cString: strerror(errno))
            closeDescriptor(descriptor)
            throw .serverFailed("cannot make the pipe that stops the server: \(reason)")
        }
        self.descriptor = descriptor
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    /// Waits for the next connection, or for ``wake()``. Call from one thread at a time.
    func next() -> Next {
        var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        guard poll(&watched, nfds_t(watched.count), -1) >= 0 else { return errno == EINTR ? .again : .stopped }
        if watched[1].revents != 0 { return .stopped }
        if watched[0].revents & Int16(POLLNVAL | POLLERR) != 0 { return .stopped }
        guard watched[0].revents & Int16(POLLIN) != 0 else { return .again }
        let connection = accept(descriptor, nil, nil)
        if connection >= 0 { return .connection(connection) }
        switch errno {
        case EINTR, ECONNABORTED, EAGAIN: return .again
        case EMFILE, ENFILE: return .exhausted
        default: return .stopped
        }
    }

    /// Ends the wait of ``next()``, now or at its next call. Safe from any thread, more than once,
    /// and after ``close()`` (it then does nothing).
    func wake() {
        closed.withLock { closed in
            guard !closed else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    /// Closes the socket and the pipe, once; call once the waiting thread is done with them.
    func close() {
        closed.withLock { closed in
            guard !closed else { return }
            closed = true
            closeDescriptor(descriptor)
            closeDescriptor(wakeRead)
            closeDescriptor(wakeWrite)
        }
    }
}
