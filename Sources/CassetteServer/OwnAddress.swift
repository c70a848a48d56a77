import Cassette
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a URL leads back to the server itself: its host resolved to addresses and compared
/// with the one the server listens on (every address of the machine when that is a wildcard),
/// and its port with the server's. `cassette serve --upstream http://localhost:PORT` on its own
/// PORT would send each request round to itself forever; the guard knew only `127.0.0.1`.
struct OwnAddress: Sendable {
    /// The numeric address the server listens on (`127.0.0.1`, `0.0.0.0`, `::`).
    let listening: String
    let port: Int

    /// Whether `url` reaches this server.
    func isReached(by url: URL) -> Bool {
        guard let host = url.host else { return false }
        let scheme = url.scheme?.lowercased()
        let port = url.port ?? (scheme == "https" || scheme == "wss" ? 443 : 80)
        guard port == self.port else { return false }
        let targets = Self.addresses(of: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        if targets.contains(listening) { return true }
        guard listening == "0.0.0.0" || listening == "::" else { return false }
        // A wildcard listens on every address of the machine, loopback included.
        let local = Self.localAddresses()
        return targets.contains { Self.isLoopback($0) || local.contains($0) }
    }

    private static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    /// The numeric addresses `host` resolves to (none when it does not).
    static func addresses(of host: String) -> Set<String> {
        var found = Set<String>()
        _ = SocketAddresses.first(host: host, port: 0, passive: false) { _, info -> Result<Void, SocketAddresses.Failure> in
            found.insert(TapeServer.numericAddress(info.pointee.ai_addr, length: info.pointee.ai_addrlen))
            return .failure(SocketAddresses.Failure(reason: "only listing"))
        }
        return found
    }

    /// The addresses of this machine's interfaces.
    static func localAddresses() -> Set<String> {
        var found = Set<String>()
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return found }
        defer { freeifaddrs(list) }
        var entry = list
        while let current = entry {
            entry = current.pointee.ifa_next
            guard let address = current.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            found.insert(TapeServer.numericAddress(address, length: length))
        }
        return found
    }
}
