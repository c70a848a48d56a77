import CassetteTestSupport
import CassetteTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stubs come first in the router (docs/Architecture.md, "The flow"): in a session with a cassette, a matching stub
/// answers and the cassette is neither consulted nor recorded; the cassette answers the rest.
@Suite struct StubAndCassetteTests {
    static func cassette() -> CassetteDocument {
        var interactions = (1...10).map { n in
            Interaction(
                request: .init(url: "https://api.example.com/items/\(n)"),
                response: .init(status: 200, headers: ["Content-Type": "text/plain"], body: .init(text: "item \(n)")))
        }
        interactions.append(
            Interaction(
                request: .init(url: "https://api.example.com/feed"),
                response: .init(status: 200, body: .init(text: "the recorded feed"))))
        return CassetteDocument(recordedWith: "hand-made", interactions: interactions)
    }

    /// The scenario: ten requests replay while a stub forces `/feed` to time out, and the
    /// cassette file is unchanged afterwards, in a mode that would record.
    @Test(arguments: [RecordMode.none, .newEpisodes])
    func aStubForcesOneEndpointToFailWhileTheCassetteReplaysTheRest(mode: RecordMode) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("day.json")
            try JSONCassetteCodec.encode(Self.cassette()).write(to: file)
            let before = try Data(contentsOf: file)

            let tape = try Tape(file: file, mode: mode, environment: .tests)
            tape.stubs.add(.path("/feed"), name: "feed times out", response: .error(.timedOut))
            let activations = Locked(0)
            tape.stubs.onActivation { _, _ in activations.withLock { $0 += 1 } }
            for n in 1...10 {
                let fetched = await Fetch.get("https://api.example.com/items/\(n)", on: tape.session)
                #expect(fetched.status == 200 && fetched.text == "item \(n)")
            }
            let feed = await Fetch.get("https://api.example.com/feed", on: tape.session)
            #expect(feed.errorCode == .timedOut)
            // A stubbed request that the cassette does not know is not recorded either.
            let unknown = await Fetch.get("https://api.example.com/feed?page=2", on: tape.session)
            #expect(unknown.errorCode == .timedOut)
            let report = try tape.eject()
            #expect(report.replayed == 10)
            #expect(report.recorded == 0)
            #expect(report.unmatched.isEmpty)
            #expect(report.unusedInteractions == ["#11 GET https://api.example.com/feed"])
            #expect(!report.saved)
            #expect(activations.withLock { $0 } == 2)
            #expect(try Data(contentsOf: file) == before)
        }
    }

    /// The traits combine: `.cassette` first, then `.stubs`, which installs on the test's tape.
    @Test(
        .cassette("StubAndCassetteTests/combined", mode: .none),
        .stubs { $0.add(.path("/stubbed-only"), response: .text("from a stub")) })
    func theTraitsCombine() async throws {
        let tape = try #require(Tape.current)
        #expect(StubSession.current == nil)
        #expect(tape.stubs.all.count == 1)
        #expect(await Fetch.get("https://api.example.com/stubbed-only", on: tape.session).text == "from a stub")
        #expect(await Fetch.get("https://api.example.com/items/1", on: tape.session).text == "item 1")
    }
}
