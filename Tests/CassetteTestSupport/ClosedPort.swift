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
        (socketDescriptor, port) = try LoopbackSocket.bound(reusingAddress: false)
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    deinit { close(socketDescriptor) }
}
