import Cassette
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a URL leads back to the server itself: its host resolved to socket addresses and
/// compared with the one the server listens on (every address of the machine when that is a
/// wildcard), and its port with the server's. `cassette serve --upstream http://localhost:PORT` on
/// its own PORT would send each request round to itself forever; the guard once knew only
/// `127.0.0.1`, then compared addresses as strings.
///
/// Every spelling a client connects with is taken to where it connects: an IPv4-mapped IPv6
/// address (`::ffff:127.0.0.1`) to its IPv4 address, the unspecified addresses (`0.0.0.0`, `::`)
/// to this machine's loopback (where Linux and macOS connect them), `localhost` and every
/// `*.localhost` name to the loopback addresses (RFC 6761; curl and FoundationNetworking connect
/// them there whatever the resolver says), numeric forms (`127.1`, `0x7f000001`, `2130706433`) as
/// the resolver reads them.
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
        let targets = Self.destinations(of: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        if targets.contains(Self.destination(listening)) { return true }
        guard listening == "0.0.0.0" || listening == "::" else { return false }
        // A wildcard listens on every address of the machine, loopback included.
        let local = Self.localAddresses()
        return targets.contains { Self.isLoopback($0) || local.contains($0) }
    }

    /// Where a client connects for `host`: its addresses, each as ``destination(_:)`` reads it.
    static func destinations(of host: String) -> Set<String> {
        let name = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        var found = Set(addresses(of: host).map(destination))
        if name == "localhost" || name.hasSuffix(".localhost") { found.formUnion(["127.0.0.1", "::1"]) }
        return found
    }

    /// Where a connection to the numeric `address` goes: `::ffff:a.b.c.d` is `a.b.c.d`, the
    /// unspecified addresses are the loopback ones.
    static func destination(_ address: String) -> String {
        let lowered = address.lowercased()
        if lowered.hasPrefix("::ffff:"), lowered.dropFirst(7).contains(".") { return destination(String(lowered.dropFirst(7))) }
        if lowered == "0.0.0.0" { return "127.0.0.1" }
        if lowered == "::" { return "::1" }
        return lowered
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
