import CassetteTesting
import Foundation
import Testing

// Swift Testing's traits, as the README's first example and the Guide write them.

@Suite(.cassette) struct FeedTests {
    @Test(
        .cassette(
            "Feed/first", folder: "Cassettes", bundle: nil, mode: .none, matching: .default, options: Tape.Options(), sharedSession: false))
    func loadsTheFirstPage() async throws {
        let tape = try #require(Tape.current)
        _ = try await tape.session.data(from: URL(fileURLWithPath: "/"))
    }

    @Test(.stubs) func showsNothingOffline() {
        StubSession.current?.stubs.add(.always, response: .error(.notConnectedToInternet))
    }

    @Test(.stubs(unmatched: .fail) { stubs in stubs.add(.path("/feed"), response: .json(["items": [String]()])) })
    func showsAnEmptyFeed() {}
}

/// The traits' types, named as a helper that builds one names them.
func traits() -> (CassetteTrait, CassetteTrait, StubsTrait, StubsTrait) {
    (.cassette, CassetteTrait.cassette("Users/fetch"), .stubs, StubsTrait.stubs(unmatched: .passThrough) { _ in })
}
