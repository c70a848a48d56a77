import CassetteTesting
import FeedClient
import XCTest

/// XCTest, with `withCassette`: `swift test --parallel` runs each test in a process of its own.
final class AccountTests: XCTestCase {
    func testSignIn() async throws {
        try await withCassette("AccountTests/signIn") { tape in
            let text = try await FeedClient(session: tape.session).text("/account")
            XCTAssertEqual(text, #"{"signedIn":true}"#)
        }
    }

    func testSignOut() async throws {
        try await withCassette("AccountTests/signOut") { tape in
            let text = try await FeedClient(session: tape.session).text("/account/sign-out")
            XCTAssertEqual(text, "bye")
        }
    }
}
