import CassetteTestSupport
import CassetteXCTest
import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
            Self.expectOneMissOfUser43(findings)
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

    /// A synchronous test case calls the member's synchronous form (before it existed, the
    /// async-only member hid the global synchronous `withCassette` here and this did not compile).
    func testTheSynchronousFormReplaysAndAMissFails() throws {
        let fetched = try withCassette("users-api", folder: PackagePaths.examples.path, mode: .none) { tape -> (Int?, String) in
            XCTAssertTrue(Tape.current === tape)
            return Self.fetchSynchronously("https://api.example.com/users/42?fields=name,email", on: tape.session)
        }
        XCTAssertEqual(fetched.0, 200)
        XCTAssertEqual(fetched.1, #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com"}"#)
        do {
            try withCassette("users-api", folder: PackagePaths.examples.path, mode: .none, environment: .tests) { tape in
                _ = Self.fetchSynchronously("https://api.example.com/users/43", on: tape.session)
            }
            XCTFail("a miss passed")
        } catch CassetteError.verificationFailed(let findings) {
            Self.expectOneMissOfUser43(findings)
        }
    }

    func testTheSynchronousFormRecordsAndSaves() throws {
        try withScratchTape { scratch in
            let status = try withCassette("recordedSync", folder: scratch.url.path, environment: .tests) { tape in
                Self.fetchSynchronously(scratch.url("/status/201"), on: tape.session).0
            }
            XCTAssertEqual(status, 201)
            let saved = try CassetteFile.read(scratch.file("recordedSync.json"))
            XCTAssertEqual(saved.interactions.map { $0.response?.status }, [201])
        }
    }

    /// A data task waited for on a semaphore, as a synchronous client does: the status and the body.
    static func fetchSynchronously(_ url: String, on session: URLSession) -> (Int?, String) {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<(Int?, String)>((nil, ""))
        guard let parsed = URL(string: url) else { return (nil, "") }
        session.dataTask(with: parsed) { data, response, _ in
            result.withLock { $0 = ((response as? HTTPURLResponse)?.statusCode, String(decoding: data ?? Data(), as: UTF8.self)) }
            done.signal()
        }.resume()
        done.wait()
        return result.withLock { $0 }
    }

    /// The findings of a tape that missed `GET https://api.example.com/users/43`, and nothing else.
    static func expectOneMissOfUser43(_ findings: [VerificationFinding]) {
        XCTAssertEqual(findings.count, 1)
        XCTAssertTrue(
            findings.first?.description.contains("no recorded interaction matches GET https://api.example.com/users/43") == true,
            "\(findings)")
    }
}
