import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension ServerConnection {
    /// Opens a TCP connection to `host`:`port` (a name resolved here, or an address), for the
    /// server's own upstream client (the WebSocket relay): the same buffered reads and whole
    /// writes as an accepted connection.
    ///
    /// - Throws: ``CassetteError/serverFailed(_:)`` saying why it could not connect.
    static func connect(host: String, port: Int) throws(CassetteError) -> ServerConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let first = found else {
            throw .serverFailed("cannot find \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(found) }
        var reason = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let descriptor = systemSocket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard descriptor >= 0 else {
                reason = String(cString: strerror(errno))
                continue
            }
            guard systemConnect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
                reason = String(cString: strerror(errno))
                closeDescriptor(descriptor)
                continue
            }
            return ServerConnection(socket: descriptor)
        }
        throw .serverFailed("cannot connect to \(host):\(port): \(reason)")
    }
}

/// `connect(2)`, out of reach of ``ServerConnection/connect(host:port:)``'s name.
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(descriptor, address, length)
}

/// `socket(2)`, out of reach of ``ServerConnection/socket``.
private func systemSocket(_ domain: Int32, _ type: Int32, _ proto: Int32) -> Int32 {
    socket(domain, type, proto)
}
