import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket bound to a free port on 127.0.0.1: the start of ``LoopbackServer`` (which then
/// listens) and of ``ClosedPort`` (which never does).
enum LoopbackSocket {
    /// The socket and its port; the caller owns the socket and closes it.
    static func bound(reusingAddress: Bool) throws -> (descriptor: Int32, port: Int) {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw ServerError("socket() failed: \(errno)") }
        if reusingAddress {
            var yes: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(descriptor)
            throw ServerError("bind on 127.0.0.1 failed: \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Writes all of `data` to `socket`; false when the peer is gone (never a `SIGPIPE`: Linux
    /// is told with each send, Darwin with the socket's `SO_NOSIGPIPE`, as the tape's server does).
    @discardableResult
    static func write(_ data: Data, to socket: Int32) -> Bool {
        #if canImport(Darwin)
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        return data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                let count = send(socket, base + offset, raw.count - offset, flags)
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
    }
}
