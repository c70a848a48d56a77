import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How a ``TapeServer`` listens: a socket bound to its host and port, and the addresses it says.
extension TapeServer {
    /// Binds a listening socket to `host` (an IPv4 or IPv6 address, or a name resolved once here:
    /// its first address that can be bound) and `port`; returns the socket, the port bound and
    /// the numeric address bound.
    static func listen(host: String, port: Int) throws -> (Int32, Int, String) {
        let outcome = SocketAddresses.first(host: host, port: port, passive: true) {
            descriptor, info -> Result<(Int32, Int, String), SocketAddresses.Failure> in
            var yes: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            guard bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, systemListen(descriptor, 512) == 0 else {
                return .failure(.fromErrno)
            }
            return .success(
                (descriptor, boundPort(descriptor), numericAddress(info.pointee.ai_addr, length: info.pointee.ai_addrlen)))
        }
        switch outcome {
        case .found(let listening):
            return listening
        case .unresolved(let why):
            throw CassetteError.serverFailed(
                "cannot listen on \(host): no such address or host name (\(why)); "
                    + "use an IP address (127.0.0.1, ::1, 0.0.0.0 for every interface) or a name this machine resolves (localhost)")
        case .failed(let reason):
            throw CassetteError.serverFailed("cannot listen on \(host):\(port): \(reason)")
        }
    }

    /// The port `descriptor` is bound to.
    private static func boundPort(_ descriptor: Int32) -> Int {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        if Int32(address.ss_family) == AF_INET6 {
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// `address` written as numbers: `127.0.0.1`, `::1`.
    static func numericAddress(_ address: UnsafeMutablePointer<sockaddr>?, length: socklen_t) -> String {
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { return "127.0.0.1" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The host of a URL a client on this machine can reach the server at, listening on
    /// `address`: the loopback address for a wildcard (every interface), in brackets for IPv6.
    static func reachable(_ address: String) -> String {
        switch address {
        case "0.0.0.0": "127.0.0.1"
        case "::": "[::1]"
        default: address.contains(":") ? "[\(address)]" : address
        }
    }
}

/// `listen(2)`, out of reach of ``TapeServer``'s own `listen`.
private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
    listen(descriptor, backlog)
}
