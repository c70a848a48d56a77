import CassetteXCTest
import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// XCTest test cases, as the README's XCTest example and the Guide write them: both forms of
// withCassette are the test case's own.

final class UserTests: XCTestCase {
    func testFetch() async throws {
        try await withCassette(
            "Users/fetch", folder: nil, bundle: nil, mode: .once, matching: .default, options: Tape.Options(), sharedSession: false
        ) { tape in
            let (data, _) = try await tape.session.data(from: URL(fileURLWithPath: "/"))
            XCTAssertFalse(data.isEmpty)
        }
    }

    func testFetchSynchronously() throws {
        let status = try withCassette("Users/fetchSynchronously", mode: .none) { tape in
            tape.reportSoFar.requests
        }
        XCTAssertEqual(status, 0)
    }
}
