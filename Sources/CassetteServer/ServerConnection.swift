import Cassette
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One accepted TCP connection of ``TapeServer``: buffered reads with deadlines (`poll`), whole
/// writes, and the three ways a connection can end (close, reset, or held open until the peer
/// gives up). Used by one thread at a time; the server may `shutdown` it from another to stop.
final class ServerConnection: @unchecked Sendable {
    let socket: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// Whether the descriptor was closed: after that its number may belong to another socket (a
    /// listener, another connection), which ``shutDown()`` from another thread must never reach.
    private let closed = Locked(false)
    /// Where `recv` writes: allocated once per connection, not once per read.
    private var chunk = [UInt8](repeating: 0, count: 65_536)

    init(socket: Int32) {
        self.socket = socket
        var yes: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
        setsockopt(socket, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    deinit { close() }

    /// The peer's address as numbers (`127.0.0.1`, `::1`); empty when the socket has none.
    var peerAddress: String {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &length) }
        }
        guard found == 0 else { return "" }
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { TapeServer.numericAddress($0, length: length) }
        }
    }

    /// Bytes read but not consumed yet.
    var pending: ArraySlice<UInt8> { buffer[start...] }

    /// Drops `count` bytes from the front of ``pending``.
    func consume(_ count: Int) {
        start += count
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 65_536 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// What a read found.
    enum ReadResult {
        case data
        /// The peer closed its side (or the connection broke).
        case closed
        case timedOut
    }

    /// Reads what is available into ``pending``, waiting until `deadline`.
    func readMore(until deadline: Date) -> ReadResult {
        guard waitReadable(until: deadline) else { return .timedOut }
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count < 0, errno == EINTR || errno == EAGAIN { return .data }
        guard count > 0 else { return .closed }
        buffer.append(contentsOf: chunk[0..<count])
        return .data
    }

    /// Whether the socket has something to read (or was closed) before `deadline`.
    private func waitReadable(until deadline: Date) -> Bool {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return false }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(remaining * 1000, Double(Int32.max)).rounded(.up))
            let ready = poll(&descriptor, 1, max(1, milliseconds))
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { return true }  // recv reports what went wrong
        }
    }

    /// Writes all of `bytes`; false when the peer is gone.
    @discardableResult
    func write<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        if let written = bytes.withContiguousStorageIfAvailable({ write(UnsafeRawBufferPointer($0)) }) { return written }
        return Array(bytes).withUnsafeBytes { write($0) }
    }

    private func write(_ raw: UnsafeRawBufferPointer) -> Bool {
        var sent = 0
        while sent < raw.count {
            let count = send(socket, raw.baseAddress.map { $0 + sent }, raw.count - sent, Self.sendFlags)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    #if canImport(Darwin)
    private static let sendFlags: Int32 = 0
    #else
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// Waits until the peer closes the connection (or `deadline`, or the server stops and shuts
    /// the socket down): how a server that never answers looks to a client.
    func hold(until deadline: Date) {
        while readMore(until: deadline) == .data {
            consume(pending.count)
        }
    }

    /// Closes the connection with a reset (`SO_LINGER` 0): the client sees the connection refused
    /// or reset, as when a server cannot be reached.
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        close()
    }

    /// Ends both directions (from another thread: a blocked read returns). Nothing once the
    /// connection is closed.
    func shutDown() {
        closed.withLock { closed in
            if !closed { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    func close() {
        closed.withLock { closed in
            guard !closed else { return }
            closed = true
            closeDescriptor(socket)
        }
    }
}

/// `close(2)`, out of reach of ``ServerConnection/close()``'s name.
func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
