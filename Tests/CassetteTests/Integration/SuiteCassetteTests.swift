import CassetteTestSupport
import CassetteTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A suite's `.cassette` gives each of its tests a cassette named after the suite and the test;
/// a test's own `.cassette` replaces it (nothing is merged, and the suite's is not opened).
@Suite(.cassette(folder: PackagePaths.cassettes.path, mode: .none))
struct SuiteCassetteTests {
    static let user = "https://api.example.com/users/42?fields=name,email"

    @Test func usesTheSuiteCassette() async throws {
        let tape = try #require(Tape.current)
        #expect(
            tape.file.standardizedFileURL.path
                == PackagePaths.cassettes.appendingPathComponent("SuiteCassetteTests/usesTheSuiteCassette.json").standardizedFileURL.path)
        let fetched = await Fetch.get(Self.user, on: tape.session)
        #expect(fetched.status == 200)
    }

    @Test(.cassette("users-api", folder: PackagePaths.examples.path, mode: .none))
    func aTestsOwnCassetteReplacesTheSuites() async throws {
        let tape = try #require(Tape.current)
        #expect(tape.file.lastPathComponent == "users-api.json")
        #expect(tape.file.deletingLastPathComponent().lastPathComponent == "Examples")
        let fetched = await Fetch.get(Self.user, on: tape.session)
        #expect(fetched.status == 200)
        // Mode none with no file: had the suite's trait opened a tape too, it would have thrown.
        #expect(
            !FileManager.default.fileExists(
                atPath: PackagePaths.cassettes.appendingPathComponent("SuiteCassetteTests/aTestsOwnCassetteReplacesTheSuites.json").path))
    }

    /// `URLSession.shared` in-process, after other tests and XCTest made sessions: the trait
    /// registers while tests are discovered, ahead of FoundationNetworking's own protocols.
    @Test(.cassette("Shared/feed-outage", folder: PackagePaths.cassettes.path, mode: .none, sharedSession: true))
    func theSharedSessionTraitWorksWhateverRanBefore() async throws {
        let fetched = await Fetch.get("https://api.example.com/feed", on: URLSession.shared)
        #expect(fetched.status == 503 && fetched.text == "down for maintenance", "\(fetched)")
    }
}
