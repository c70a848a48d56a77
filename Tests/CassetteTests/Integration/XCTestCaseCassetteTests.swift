import CassetteTestSupport
import CassetteXCTest
import Foundation
import XCTest

/// `XCTestCase.withCassette` (`CassetteXCTest`): the global `withCassette`'s behaviour from a test
/// case, which also knows the test's failures and attaches the evidence (Apple platforms: the
/// attachment itself is docs/AppleVerification.md's to check; XCTest on Linux has none).
final class XCTestCaseCassetteTests: XCTestCase {
    func testItReplaysAndAMissFailsTheTestWithTheReport() async throws {
        let fetched = try await withCassette("users-api", folder: PackagePaths.examples.path, mode: .none) { tape -> Fetched in
            XCTAssertTrue(Tape.current === tape)
            return await Fetch.get("https://api.example.com/users/42?fields=name,email", on: tape.session)
        }
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(fetched.text, #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com"}"#)
        do {
            try await withCassette("users-api", folder: PackagePaths.examples.path, mode: .none, environment: .tests) { tape in
                _ = await Fetch.get("https://api.example.com/users/43", on: tape.session)
            }
            XCTFail("a miss passed")
        } catch CassetteError.verificationFailed(let findings) {
            XCTAssertEqual(findings.count, 1)
            XCTAssertTrue(
                findings.first?.description.contains("no recorded interaction matches GET https://api.example.com/users/43") == true,
                "\(findings)")
        }
    }

    func testItRecordsAndSavesWhenTheTestPasses() async throws {
        try await withScratchTape { scratch in
            let status = try await withCassette("recorded", folder: scratch.url.path, environment: .tests) { tape in
                await Fetch.get(scratch.url("/status/201"), on: tape.session).status
            }
            XCTAssertEqual(status, 201)
            let saved = try CassetteFile.read(scratch.file("recorded.json"))
            XCTAssertEqual(saved.interactions.map { $0.response?.status }, [201])
        }
    }
}
