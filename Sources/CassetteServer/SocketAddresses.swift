import Cassette
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The addresses of a host and port for a stream socket, tried in turn: how the server listens
/// (``TapeServer``) and how its own client connects upstream (``ServerConnection/connect(host:port:)``).
enum SocketAddresses {
    /// What trying them came to.
    enum Outcome<Value> {
        /// The first address that worked, and what `attempt` made of it.
        case found(Value)
        /// The host did not resolve: the resolver's reason.
        case unresolved(String)
        /// No address worked: why the last one did not.
        case failed(String)
    }

    /// Resolves `host`:`port` (`passive`: for listening) and calls `attempt` with a new socket
    /// for each address in turn, until one returns a value; a socket whose attempt failed (a
    /// reason) is closed here.
    static func first<Value>(
        host: String, port: Int, passive: Bool,
        _ attempt: (_ descriptor: Int32, _ address: UnsafeMutablePointer<addrinfo>) -> Result<Value, Failure>
    ) -> Outcome<Value> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        if passive { hints.ai_flags = AI_PASSIVE }
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let first = found else { return .unresolved(String(cString: gai_strerror(resolved))) }
        defer { freeaddrinfo(found) }
        var reason = "no address"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard descriptor >= 0 else {
                reason = "cannot create a socket: \(String(cString: strerror(errno)))"
                continue
            }
            switch attempt(descriptor, info) {
            case .success(let value):
                return .found(value)
            case .failure(let failure):
                reason = failure.reason
                closeDescriptor(descriptor)
            }
        }
        return .failed(reason)
    }

    /// Why an address did not work.
    struct Failure: Error {
        var reason: String

        /// The reason `errno` gives now.
        static var fromErrno: Failure { Failure(reason: String(cString: strerror(errno))) }
    }
}
