import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A port on 127.0.0.1 where nothing listens, held for as long as this value lives: a socket is
/// bound to it but never listens, so connecting is refused and no other test's server can take
/// the port meanwhile (as one could after a server was merely stopped).
public final class ClosedPort: @unchecked Sendable {
    public let port: Int
    private let socketDescriptor: Int32

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ServerError("socket() failed: \(errno)") }
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
        socketDescriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    deinit { close(socketDescriptor) }
}
