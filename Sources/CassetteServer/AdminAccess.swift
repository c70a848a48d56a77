import Cassette
import Foundation

/// Who may use a ``TapeServer``'s admin interface: clients on this machine (a loopback peer
/// address) when no token is set; with a token, every admin request must carry it in
/// ``TapeServer/adminTokenHeader``, from wherever it comes. A pure decision: the peer address and
/// the header field are its input.
struct AdminAccess: Sendable, Equatable {
    /// The token every admin request must carry; nil: loopback clients only.
    var token: String?

    /// Whether a request from `peer` (its address as numbers: `127.0.0.1`, `::1`) carrying
    /// `presented` (the token header's value, or nil) may use the admin interface.
    func admits(peer: String, presented: String?) -> Bool {
        guard let token else { return Self.isLoopback(peer) }
        guard let presented else { return false }
        return Self.sameInConstantTime(presented, token)
    }

    /// Whether `address` is a loopback address: `127.0.0.0/8`, `::1`, or `127.x` mapped into IPv6.
    static func isLoopback(_ address: String) -> Bool {
        var address = address.lowercased()
        if address.hasPrefix("::ffff:") { address.removeFirst("::ffff:".count) }
        if address == "::1" { return true }
        let parts = address.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// Whether `a` and `b` are equal, taking as long whatever the first difference is (the time
    /// depends only on the length of `a`): a token cannot be guessed byte by byte from timing.
    static func sameInConstantTime(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        var difference = UInt8(truncatingIfNeeded: left.count ^ right.count) | (left.count == right.count ? 0 : 1)
        for index in left.indices {
            difference |= left[index] ^ (index < right.count ? right[index] : 0)
        }
        return difference == 0
    }
}
