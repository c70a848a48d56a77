import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session configuration, honoured as URLSession documents it while recording and replaying:
/// `timeoutIntervalForResource` bounds the whole task (FoundationNetworking's own HTTP code
/// ignores it, measured on Swift 6.3.1; Apple platforms enforce it). Additional header fields and
/// `timeoutIntervalForRequest` are in ``TaskKindsTests``'s table.
@Suite(.timingIsolated) struct SessionConfigurationTests {
    static func configuration(_ tape: Tape, resourceTimeout: TimeInterval) throws -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForResource = resourceTimeout
        tape.configure(configuration)
        return configuration
    }

    /// A configuration routed through a tape (or stubs) has no URL cache: every request is the
    /// cassette's, even when another session left a response for it in the cache it had.
    @Test func aCachedResponseNeverAnswersInsteadOfTheCassette() async throws {
        try await withScratchTape { scratch in
            let url = try #require(URL(string: "https://api.example.com/cached"))
            let file = scratch.file("cached.json")
            try CassetteFile.write(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(method: "GET", url: url.absoluteString),
                        response: .init(status: 200, headers: ["Content-Type": "text/plain"], body: .init(text: "from the cassette")))
                ]), to: file)
            let cache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
            let cached = try #require(
                HTTPURLResponse(
                    url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                    headerFields: ["Content-Type": "text/plain", "Cache-Control": "max-age=3600"]))
            cache.storeCachedResponse(CachedURLResponse(response: cached, data: Data("from the cache".utf8)), for: URLRequest(url: url))

            let tape = try Tape(file: file, mode: .none, environment: .tests)
            let configuration = URLSessionConfiguration.default
            configuration.urlCache = cache
            configuration.requestCachePolicy = .returnCacheDataElseLoad
            tape.configure(configuration)
            #expect(configuration.urlCache == nil)
            let fetched = await Fetch.get(url.absoluteString, on: URLSession(configuration: configuration))
            #expect(fetched.text == "from the cassette")
            #expect(try tape.eject().replayed == 1)
            let stubs = StubSession()
            let stubbed = URLSessionConfiguration.default
            stubbed.urlCache = cache
            stubs.configure(stubbed)
            #expect(stubbed.urlCache == nil && tape.session.configuration.urlCache == nil)
        }
    }

    @Test func aResourceTimeoutCutsARecordingAndIsSavedAsTheCallerSawIt() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("resource-timeout.json")
            let url = server.baseURL + "/delay/3000"

            let recording = try Tape(file: file, mode: .once, environment: .tests)
            let session = URLSession(configuration: try Self.configuration(recording, resourceTimeout: 0.5 * TimingIsolation.scale))
            let started = Date()
            let recorded = await Fetch.get(url, on: session)
            #expect(recorded.errorCode == .timedOut)
            #expect(
                recorded.errorDescription?.hasPrefix("Cassette: the request took longer than the session's timeoutIntervalForResource of")
                    == true)
            #expect(Date().timeIntervalSince(started) < 2.5 * TimingIsolation.scale)
            // The live request was cancelled; what is saved is what the caller saw.
            try await Task.sleep(nanoseconds: 100_000_000)
            #expect(try recording.eject().recorded == 1)
            let saved = try CassetteFile.read(file).interactions
            #expect(saved.count == 1 && saved.first?.response == nil && saved.first?.error?.code == .timedOut)

            let replaying = try Tape(file: file, mode: .none, environment: .tests)
            let replayed = await Fetch.get(url, on: URLSession(configuration: try Self.configuration(replaying, resourceTimeout: 0.5)))
            #expect(replayed.errorCode == .timedOut)
            _ = try replaying.eject()
        }
    }

    @Test(arguments: FetchStyle.allCases)
    func aResourceTimeoutCutsASlowReplay(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("slow.json")
            try Data(
                #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://api.example.com/slow"}, "response": {"status": 200, "body": {"text": "late"}}, "timing": {"firstByte": 0.2, "duration": 3}}]}"#
                    .utf8
            ).write(to: file)
            let tape = try Tape(file: file, mode: .none, options: .init(latency: .recorded), environment: .tests)
            let configuration = try Self.configuration(tape, resourceTimeout: 0.6 * TimingIsolation.scale)
            let session =
                style == .delegate
                ? URLSession(configuration: configuration, delegate: CollectingDelegate(), delegateQueue: nil)
                : URLSession(configuration: configuration)
            let started = Date()
            let replayed = await Fetch.get("https://api.example.com/slow", on: session, style: style)
            let elapsed = Date().timeIntervalSince(started)
            #expect(replayed.errorCode == .timedOut)
            #expect(replayed.errorDescription?.contains("timeoutIntervalForResource of") == true)
            #expect(elapsed >= 0.5 * TimingIsolation.scale && elapsed < 2.5 * TimingIsolation.scale)
            _ = try tape.eject()
        }
    }
}
