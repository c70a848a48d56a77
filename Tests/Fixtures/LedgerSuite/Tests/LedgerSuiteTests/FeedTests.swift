import CassetteTesting
import FeedClient
import Foundation
import Testing

/// Swift Testing, one cassette per test.
@Suite(.cassette) struct FeedTests {
    /// Its cassette holds three recordings; the test asks for one.
    @Test func loads() async throws {
        let client = FeedClient(session: try #require(Tape.current).session)
        #expect(try await client.text("/feed") == #"{"items":[1,2,3]}"#)
    }

    /// Its cassette was recorded in 2020.
    @Test func profile() async throws {
        let client = FeedClient(session: try #require(Tape.current).session)
        #expect(try await client.text("/me") == #"{"name":"Ada"}"#)
    }
}
