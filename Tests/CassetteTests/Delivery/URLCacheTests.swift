import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Tape.Options(urlCache:)`: a session that keeps its URL cache behaves as a live session with
/// that cache — live, recorded and replayed compared through async, completion-handler and
/// delegate calls. On Linux a live session caches nothing (FoundationNetworking's HTTP protocol
/// hands every response over as not cacheable): the first test pins that, and that Cassette does
/// the same. The second runs the caching Apple's loading system does (which Cassette carries out
/// there) on this platform, through the same executor.
@Suite struct URLCacheTests {
    /// One request of a scenario: a path and the header fields the caller sets.
    struct Step: Sendable {
        var path: String
        var fields: [String: String] = [:]
    }

    /// What the caller saw, with the loopback server's request numbers made relative to the
    /// run's first (`response #0`, `#1`, …), so that runs against one server compare.
    struct Seen: Equatable, CustomStringConvertible {
        var status: Int?
        var body: String
        var etag: String?
        var error: URLError.Code?
        var description: String { "\(status.map(String.init) ?? "error \(error?.rawValue ?? 0)") \(body) etag=\(etag ?? "-")" }
    }

    /// A response cached by `max-age`, then one revalidated by its `ETag`, then a request that
    /// carries its own `If-None-Match` (the app's own conditional request).
    static let steps = [
        Step(path: "/cache/max-age/60"), Step(path: "/cache/max-age/60"),
        Step(path: "/cache/etag/v1"), Step(path: "/cache/etag/v1"),
        Step(path: "/cache/etag/v2", fields: ["If-None-Match": #""v2""#]),
    ]

    /// A session of `style` whose configuration has a new in-memory cache, after `configure`.
    private static func session(_ style: FetchStyle, configure: @escaping (URLSessionConfiguration) -> Void) -> URLSession {
        let prepare: (URLSessionConfiguration) -> Void = { configuration in
            configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0, diskPath: nil)
            configure(configuration)
        }
        if style == .delegate { return Fetch.delegateSession(configuredBy: prepare) }
        let configuration = URLSessionConfiguration.ephemeral
        prepare(configuration)
        return URLSession(configuration: configuration)
    }

    /// Runs ``steps`` through `session`, one after another.
    private static func run(_ style: FetchStyle, on session: URLSession, base: String) async -> [Seen] {
        var seen: [Fetched] = []
        for step in steps {
            var request = URLRequest(url: URL(string: base + step.path)!)
            for (name, value) in step.fields { request.setValue(value, forHTTPHeaderField: name) }
            seen.append(await Fetch.run(request, on: session, style: style))
        }
        let numbers = seen.compactMap { Int($0.text.split(separator: "#").last ?? "") }
        let first = numbers.min() ?? 0
        return seen.map { fetched in
            var body = fetched.text
            if let number = Int(body.split(separator: "#").last ?? ""), body.hasPrefix("response #") {
                body = "response #\(number - first)"
            }
            return Seen(
                status: fetched.status, body: body, etag: fetched.headers["Etag"] ?? fetched.headers["ETag"], error: fetched.errorCode)
        }
    }

    /// What reached the loopback server since `count` requests: each path with its `If-None-Match`.
    private static func received(by server: LoopbackServer, after count: Int) -> [String] {
        server.received.dropFirst(count).map { "\($0.target) \($0.headers["if-none-match"] ?? "-")" }
    }

    @Test(arguments: FetchStyle.allCases)
    func aKeptCacheBehavesAsALiveSessionOnThisPlatform(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let live = await Self.run(style, on: Self.session(style) { _ in }, base: server.baseURL)
            let liveSent = Self.received(by: server, after: 0)

            let options = Tape.Options(urlCache: .kept)
            let recording = try scratch.tape(mode: .once, options: options)
            let recorded = await Self.run(style, on: Self.session(style, configure: recording.configure), base: server.baseURL)
            let recordedSent = Self.received(by: server, after: liveSent.count)
            #expect(try recording.eject().recorded == recordedSent.count)

            let replaying = try scratch.tape(mode: .none, options: options)
            let replayed = await Self.run(style, on: Self.session(style, configure: replaying.configure), base: server.baseURL)
            let report = try replaying.eject()

            // Measured on Linux: the live session sends every request; its cache stores nothing.
            #expect(URLCacheUse.kept.caches == URLCacheUse.platformCachesHTTP)
            if !URLCacheUse.platformCachesHTTP {
                #expect(
                    live == [
                        Seen(status: 200, body: "response #0"), Seen(status: 200, body: "response #1"),
                        Seen(status: 200, body: "response #2", etag: #""v1""#), Seen(status: 200, body: "response #3", etag: #""v1""#),
                        Seen(status: 304, body: "", etag: #""v2""#),
                    ])
                #expect(liveSent.count == 5)
            }
            #expect(recorded == live, "recorded, \(style)")
            #expect(replayed == live, "replayed, \(style)")
            #expect(recordedSent == liveSent)
            #expect(Self.received(by: server, after: liveSent.count + recordedSent.count).isEmpty, "the replay sent nothing")
            #expect(report.replayed == recordedSent.count && report.unmatched.isEmpty)
        }
    }

    /// Caching as Apple's loading system does it: a fresh response answers again without an
    /// interaction, a stale one is revalidated with its `ETag` and the `304` (recorded, then
    /// replayed) gives the caller the stored body; the app's own conditional request gets its
    /// `304`.
    @Test(arguments: FetchStyle.allCases)
    func cachingAsOnApplePlatformsStoresRevalidatesAndReplays(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let options = Tape.Options(urlCache: .keptCachingAsOnApplePlatforms)
            let expected = [
                Seen(status: 200, body: "response #0"), Seen(status: 200, body: "response #0"),
                Seen(status: 200, body: "response #1", etag: #""v1""#), Seen(status: 200, body: "response #1", etag: #""v1""#),
                Seen(status: 304, body: "", etag: #""v2""#),
            ]
            let recording = try scratch.tape(mode: .once, options: options)
            let recorded = await Self.run(style, on: Self.session(style, configure: recording.configure), base: server.baseURL)
            #expect(recorded == expected, "recorded, \(style)")
            #expect(
                Self.received(by: server, after: 0) == [
                    "/cache/max-age/60 -", "/cache/etag/v1 -", #"/cache/etag/v1 "v1""#, #"/cache/etag/v2 "v2""#,
                ])
            #expect(try recording.eject().recorded == 4)
            let saved = try JSONCassetteCodec.decode(Data(contentsOf: scratch.file)).interactions
            #expect(saved.map { $0.response?.status } == [200, 200, 304, 304])
            #expect(saved[2].request.headers["If-None-Match"] == #""v1""#, "the revalidation is recorded with its validator")

            let replaying = try scratch.tape(mode: .none, options: options)
            let replayed = await Self.run(style, on: Self.session(style, configure: replaying.configure), base: server.baseURL)
            let report = try replaying.eject()
            #expect(replayed == expected, "replayed, \(style)")
            #expect(report.replayed == 4 && report.unmatched.isEmpty, "\(report)")
            #expect(server.received.count == 4, "the replay sent nothing")
        }
    }

    /// The tape's own session has a cache of its own (empty for each tape), and
    /// `returnCacheDataDontLoad` with nothing stored fails as live, without a replay.
    @Test func theTapesOwnSessionCachesAndDontLoadFailsWhenNothingIsStored() async throws {
        try await withScratchTape { scratch in
            let options = Tape.Options(urlCache: .keptCachingAsOnApplePlatforms)
            let tape = try scratch.tape(mode: .once, options: options)
            var request = URLRequest(url: URL(string: scratch.url("/cache/max-age/60"))!)
            request.cachePolicy = .returnCacheDataDontLoad
            let refused = await Fetch.run(request, on: tape.session, style: .async)
            #expect(refused.errorCode == .resourceUnavailable)
            #expect(
                refused.errorDescription
                    == "Cassette: GET \(scratch.url("/cache/max-age/60")) is not in the session's URL cache, and its cache policy "
                    + "(returnCacheDataDontLoad) does not allow loading it, so nothing was sent or replayed, as live. Make the request "
                    + "once with a policy that loads, or use .returnCacheDataElseLoad.")
            #expect(await Fetch.get(scratch.url("/cache/max-age/60"), on: tape.session).text == "response #1")
            #expect(await Fetch.run(request, on: tape.session, style: .async).text == "response #1", "now it is stored")
            #expect(scratch.server.received.count == 1)
            #expect(try tape.eject().recorded == 1)

            let next = try scratch.tape(mode: .none, options: options)
            #expect(await Fetch.run(request, on: next.session, style: .async).errorCode == .resourceUnavailable, "a new tape, a new cache")
        }
    }

    /// Without the option nothing changes: the configuration's cache is removed.
    @Test func byDefaultTheCacheIsRemoved() throws {
        try withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            let configuration = URLSessionConfiguration.default
            configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
            tape.configure(configuration)
            #expect(configuration.urlCache == nil)
            #expect(tape.session.configuration.urlCache == nil)

            // Kept: the tape's cache stands in for the configuration's (URLCachePolicyTests).
            let keeping = try scratch.tape(mode: .once, options: Tape.Options(urlCache: .kept))
            configuration.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
            keeping.configure(configuration)
            #expect(configuration.urlCache is TapeURLCache)
            #expect(keeping.session.configuration.urlCache === configuration.urlCache)
        }
    }
}
