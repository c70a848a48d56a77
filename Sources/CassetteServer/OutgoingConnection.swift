import Cassette
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
    /// - Throws: `CassetteError.serverFailed(_:)` saying why it could not connect.
    static func connect(host: String, port: Int) throws(CassetteError) -> ServerConnection {
        let outcome = SocketAddresses.first(host: host, port: port, passive: false) { descriptor, info in
            systemConnect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0
                ? .success(ServerConnection(socket: descriptor)) : .failure(.fromErrno)
        }
        switch outcome {
        case .found(let connection): return connection
        case .unresolved(let why): throw .serverFailed("cannot find \(host): \(why)")
        case .failed(let reason): throw .serverFailed("cannot connect to \(host):\(port): \(reason)")
        }
    }
}

/// `connect(2)`, out of reach of ``ServerConnection/connect(host:port:)``'s name.
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(descriptor, address, length)
}
