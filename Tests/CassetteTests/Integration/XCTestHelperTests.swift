import Cassette
import CassetteTestSupport
import Foundation
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `withCassette` as XCTest users write it: a thrown error fails the test.
final class XCTestHelperTests: XCTestCase {
    func testAsyncWithCassetteReplaysAndSetsTheCurrentTape() async throws {
        let fetched = try await Cassette.withCassette("users-api", folder: PackagePaths.examples.path, mode: .none) { tape -> Fetched in
            XCTAssertTrue(Tape.current === tape)
            return await Fetch.get("https://api.example.com/users/42?fields=name,email", on: tape.session)
        }
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(fetched.text, #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com"}"#)
    }

    func testSynchronousWithCassetteRecordsAndSaves() throws {
        try withScratchTape { scratch in
            let server = scratch.server
            let status = try Cassette.withCassette("sync", folder: scratch.url.path, mode: .once, environment: .tests) { tape -> Int in
                let done = DispatchSemaphore(value: 0)
                let result = ResultBox()
                tape.session.dataTask(with: URL(string: server.baseURL + "/status/201")!) { _, response, _ in
                    result.status = (response as? HTTPURLResponse)?.statusCode ?? 0
                    done.signal()
                }.resume()
                done.wait()
                return result.status
            }
            XCTAssertEqual(status, 201)
            let saved = try JSONCassetteCodec.decode(Data(contentsOf: scratch.file("sync.json")), file: "sync.json")
            XCTAssertEqual(saved.interactions.map { $0.response?.status }, [201])
        }
    }

    /// `withStubSession` as XCTest users write it: stubs for the test, verified at its end.
    func testWithStubSessionAnswersWithStubsAndVerifies() async throws {
        let fetched = try await withStubSession { stubbed -> Fetched in
            stubbed.stubs.expect(.method("GET") && .path("/users/:id"), response: .json(["id": 42]))
            return await Fetch.get("https://api.example.com/users/42", on: stubbed.session)
        }
        XCTAssertEqual(fetched.status, 200)
        XCTAssertEqual(fetched.text, #"{"id":42}"#)
        do {
            try await withStubSession { stubbed in
                stubbed.stubs.expect(.path("/never"), name: "never", response: .text(""))
                _ = await Fetch.get("https://api.example.com/other", on: stubbed.session)
            }
            XCTFail("verification passed")
        } catch let error as StubVerificationError {
            XCTAssertEqual(error.unmet, [#"expected request "never" (path /never)"#])
            XCTAssertEqual(error.unexpected, ["GET https://api.example.com/other"])
        }
    }
}

private final class ResultBox: @unchecked Sendable {
    var status = 0
}
