import CassetteTesting
import FeedClient
import Foundation
import Testing

/// A test that misses, on purpose: .ci/steps/ledger-suite copies it into the LedgerSuite package
/// after its own checks and runs it with `swift test --attachments-path`, to see the evidence a
/// failing tape attaches (the miss report, the misses as a cassette), named after its cassette.
@Suite(.cassette) struct EvidenceTests {
    /// Its cassette holds page 1; the test asks for page 2.
    @Test func missesTheOtherPage() async throws {
        let client = FeedClient(session: try #require(Tape.current).session)
        _ = try? await client.text("/feed?page=2")
    }
}
