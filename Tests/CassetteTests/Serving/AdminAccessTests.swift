import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// Who may use a server's admin interface, decided from the peer's address and the token header.
@Suite struct AdminAccessTests {
    @Test func withoutATokenOnlyLoopbackPeersAreAdmitted() {
        let access = AdminAccess(token: nil)
        for peer in ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"] {
            #expect(access.admits(peer: peer, presented: nil), "\(peer)")
            #expect(access.admits(peer: peer, presented: "anything"), "\(peer)")
        }
        // Documentation addresses (RFC 5737, RFC 3849), never contacted.
        for peer in ["192.0.2.10", "2001:db8::1", "::ffff:192.0.2.10", "", "127.0.0", "1127.0.0.1", "127.0.0.256"] {
            #expect(!access.admits(peer: peer, presented: nil), "\(peer)")
        }
    }

    @Test func withATokenEveryPeerMustCarryIt() {
        let access = AdminAccess(token: "s3cret-token")
        #expect(access.admits(peer: "192.0.2.10", presented: "s3cret-token"))
        #expect(access.admits(peer: "127.0.0.1", presented: "s3cret-token"))
        #expect(!access.admits(peer: "127.0.0.1", presented: nil))
        #expect(!access.admits(peer: "192.0.2.10", presented: nil))
        for wrong in ["", "s3cret-toke", "s3cret-tokenX", "S3cret-token", "x3cret-token"] {
            #expect(!access.admits(peer: "192.0.2.10", presented: wrong), "\(wrong)")
        }
    }

    @Test func theComparisonIsExact() {
        #expect(AdminAccess.sameInConstantTime("", ""))
        #expect(AdminAccess.sameInConstantTime("abc", "abc"))
        #expect(!AdminAccess.sameInConstantTime("abc", "abd"))
        #expect(!AdminAccess.sameInConstantTime("abc", "ab"))
        #expect(!AdminAccess.sameInConstantTime("ab", "abc"))
        #expect(!AdminAccess.sameInConstantTime("\u{0}", ""))
        #expect(!AdminAccess.sameInConstantTime("", "\u{0}"))
    }
}
