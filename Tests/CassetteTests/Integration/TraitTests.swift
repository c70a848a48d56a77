import CassetteTestSupport
import CassetteTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `.cassette` trait, on cassettes committed in `Cassettes/`. These run in mode `once` locally
/// and `none` in CI; the cassettes exist, so both replay without network.
@Suite struct TraitTests {
    @Test(.cassette) func derivesTheCassetteNameFromTheTest() async throws {
        let tape = try #require(Tape.current)
        #expect(tape.file.path.hasSuffix("/Cassettes/TraitTests/derivesTheCassetteNameFromTheTest.json"))
        var request = URLRequest(url: URL(string: "https://api.example.com/users/7")!)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let fetched = await Fetch.run(request, on: tape.session, style: .async)
        #expect(fetched.status == 200)
        #expect(fetched.headers["Content-Type"] == "application/json")
        #expect(fetched.text == #"{"id":7,"name":"Grace Hopper"}"#)
    }

    /// A latency chosen on the trait is the tape's latency for that test (the environment's
    /// `CASSETTE_LATENCY` does not override a choice made in code).
    @Test(
        .cassette(
            "Shared/feed-outage", mode: .none, options: .init(allowsRepeatedReplays: true, latency: .fixed(firstByte: 0.2, duration: 0.3))))
    func theTraitChoosesTheLatencyForItsTest() throws {
        #expect(Tape.current?.latency == .fixed(firstByte: 0.2, duration: 0.3))
    }

    @Test(.cassette("Shared/feed-outage", mode: .none)) func aNamedCassetteReplaysAFailureThenAnError() async throws {
        let tape = try #require(Tape.current)
        #expect(tape.mode == .none)
        let first = await Fetch.get("https://api.example.com/feed", on: tape.session)
        #expect(first.status == 503)
        #expect(first.headers["Retry-After"] == "30")
        #expect(first.text == "down for maintenance")
        let second = await Fetch.get("https://api.example.com/feed", on: tape.session, style: .completionHandler)
        #expect(second.errorCode == .timedOut)
    }

    @Test func theDerivedNameIsSuiteSlashFunctionWithoutParentheses() throws {
        let test = try #require(Test.current)
        #expect(CassetteTrait.derivedName(for: test) == "TraitTests/theDerivedNameIsSuiteSlashFunctionWithoutParentheses")
    }

    /// Unmatched requests fail the test: checked through `withCassette`, which the trait also uses.
    @Test func unmatchedRequestsMakeWithCassetteThrowAfterEjecting() async throws {
        try await withScratchTape { scratch in
            try FileManager.default.copyItem(
                at: PackagePaths.examples.appendingPathComponent("users-api.json"),
                to: scratch.file("users.json"))
            var sawError: CassetteError?
            do {
                try await withCassette("users", folder: scratch.url.path, mode: .none) { tape in
                    _ = await Fetch.get("https://api.example.com/unknown", on: tape.session)
                }
            } catch let error as CassetteError {
                sawError = error
            }
            guard case .verificationFailed(let messages)? = sawError else {
                Issue.record("expected verificationFailed, got \(String(describing: sawError))")
                return
            }
            #expect(messages.count == 1)
            #expect(
                messages[0].description.hasPrefix(
                    "Cassette: no recorded interaction matches GET https://api.example.com/unknown in cassette "))
        }
    }

    /// When the body throws, its error wins and the tape is still ejected; what it recorded is
    /// saved only when the options say so (`savesWhenTestFails`).
    @Test func theBodysErrorWinsAndTheTapeIsStillEjected() async throws {
        struct Boom: Error {}
        try await withScratchTape { scratch in
            let server = scratch.server
            for saves in [false, true] {
                let name = saves ? "thrown-saved" : "thrown"
                var tapeSeen: Tape?
                await #expect(throws: Boom.self) {
                    try await withCassette(
                        name, folder: scratch.url.path, mode: .once, options: Tape.Options(savesWhenTestFails: saves).quiet,
                        environment: .tests
                    ) { tape in
                        tapeSeen = tape
                        _ = await Fetch.get(server.baseURL + "/status/200", on: tape.session)
                        throw Boom()
                    }
                }
                #expect(throws: CassetteError.alreadyEjected(file: scratch.file("\(name).json").path)) { try tapeSeen?.eject() }
                #expect(FileManager.default.fileExists(atPath: scratch.file("\(name).json").path) == saves)
            }
            let saved = try JSONCassetteCodec.decode(Data(contentsOf: scratch.file("thrown-saved.json")), file: "thrown-saved.json")
            #expect(saved.interactions.count == 1)
        }
    }

    @Test func namesAreRelativePathsInsideTheCassettesFolder() throws {
        for bad in ["", "/etc/passwd", "../outside", "a/../../b", "a//b"] {
            #expect(throws: CassetteError.invalidCassetteName(bad)) { try Tape(named: bad, environment: .tests) }
        }
        try withScratchTape { scratch in
            let tape = try Tape(
                named: "Users/fetch", folder: scratch.url.path, mode: .once, options: Tape.Options().quiet, environment: .tests)
            #expect(tape.file == scratch.url.appendingPathComponent("Users/fetch.json"))
            try tape.eject()
            #expect(FileManager.default.fileExists(atPath: scratch.file("Users/fetch.json").path), "nested names make sub-folders")
        }
    }
}
