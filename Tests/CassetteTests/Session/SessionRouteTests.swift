import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each protocol class stands for one session configuration (``SlotBinding``), so a request knows its
/// session's configuration without asking the session — the only way there is on Apple
/// platforms, and the one the whole suite runs on Linux too: nothing reads a configuration by
/// reflection any more.
@Suite struct SessionRouteTests {
    static func session(for tape: Tape, style: FetchStyle, _ prepare: (URLSessionConfiguration) -> Void) throws -> URLSession {
        if style == .delegate {
            return Fetch.delegateSession { configuration in
                prepare(configuration)
                tape.configure(configuration)
            }
        }
        let configuration = URLSessionConfiguration.ephemeral
        prepare(configuration)
        tape.configure(configuration)
        return URLSession(configuration: configuration)
    }

    /// While recording, the live request carries the session's `httpAdditionalHeaders` (an API
    /// key in `Authorization`, a client header) and the cookies its storage holds: the server
    /// answers as it would live, not with a 401.
    @Test(arguments: FetchStyle.allCases)
    func recordingSendsTheConfiguredHeadersAndStoredCookies(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("configured.json")
            let url = try #require(URL(string: server.baseURL + "/bearer"))
            let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "cassette-route-\(UUID().uuidString)")
            let cookie = try #require(HTTPCookie(properties: [.name: "flavour", .value: "oatmeal", .domain: "127.0.0.1", .path: "/"]))
            storage.setCookie(cookie)

            let tape = try Tape(file: file, mode: .once, environment: .tests)
            let session = try Self.session(for: tape, style: style) { configuration in
                configuration.httpAdditionalHeaders = ["Authorization": "Bearer from-the-configuration", "X-Client": "route-tests"]
                configuration.httpCookieStorage = storage
            }
            let fetched = await Fetch.run(URLRequest(url: url), on: session, style: style)
            #expect(fetched.status == 200)
            #expect(fetched.text == #"{"authenticated":true,"token":"from-the-configuration"}"#)
            let received = try #require(server.received.last)
            #expect(received.headers["authorization"] == "Bearer from-the-configuration")
            #expect(received.headers["x-client"] == "route-tests")
            #expect(received.headers["cookie"] == "flavour=oatmeal")
            #expect(try tape.eject().recorded == 1)
            let saved = try CassetteFile.read(file).interactions
            #expect(saved.first?.request.headers["X-Client"] == "route-tests")
            #expect(saved.first?.request.headers["Authorization"] == "Bearer [REDACTED-1]")
        }
    }

    /// A replayed `Set-Cookie` is stored in the configuration's own storage, and the next request
    /// of the session carries it, as live.
    @Test(arguments: FetchStyle.allCases)
    func aReplayedSetCookieIsStoredInTheConfiguredStorage(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("cookies.json")
            try CassetteFile.write(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(method: "GET", url: "https://api.example.com/login"),
                        response: .init(status: 200, headers: ["Set-Cookie": "sid=s3ss10n; Path=/"], body: .init(text: "in"))),
                    Interaction(
                        request: .init(method: "GET", url: "https://api.example.com/me", headers: ["Cookie": "sid=s3ss10n"]),
                        response: .init(status: 200, body: .init(text: "me"))),
                ]), to: file)
            let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "cassette-route-\(UUID().uuidString)")
            let tape = try Tape(file: file, mode: .none, matching: .default.includingHeaders("Cookie"), environment: .tests)
            let session = try Self.session(for: tape, style: style) { $0.httpCookieStorage = storage }
            let login = await Fetch.run(
                URLRequest(url: try #require(URL(string: "https://api.example.com/login"))), on: session, style: style)
            #expect(login.text == "in")
            #expect(storage.cookies?.map { "\($0.name)=\($0.value)" } == ["sid=s3ss10n"])
            let me = await Fetch.run(URLRequest(url: try #require(URL(string: "https://api.example.com/me"))), on: session, style: style)
            #expect(me.status == 200)
            #expect(me.text == "me")
            #expect(try tape.eject().replayed == 2)
        }
    }

    /// A session made from a configuration a tape routed outlives the tape: its requests fail
    /// with "already ejected", and never reach the next tape, even when the next tape could
    /// answer them.
    @Test func aSessionOfAnEjectedTapeFailsAndNeverReachesTheNextTape() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("outlived.json")
            try CassetteFile.write(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(method: "GET", url: "https://api.example.com/feed"),
                        response: .init(status: 200, body: .init(text: "feed")))
                ]), to: file)
            let first = try Tape(file: file, mode: .none, options: .init(allowsRepeatedReplays: true), environment: .tests)
            let configuration = URLSessionConfiguration.ephemeral
            first.configure(configuration)
            let outlived = URLSession(configuration: configuration)
            #expect(await Fetch.get("https://api.example.com/feed", on: outlived).text == "feed")
            try first.eject()

            // Later tapes, each with a session of its own and a configured one: none takes the old class.
            var later: [Tape] = []
            for _ in 0..<3 {
                let tape = try Tape(file: file, mode: .none, options: .init(allowsRepeatedReplays: true), environment: .tests)
                tape.configure(URLSessionConfiguration.ephemeral)
                later.append(tape)
            }
            let fetched = await Fetch.get("https://api.example.com/feed?key=secret", on: outlived)
            #expect(fetched.status == nil)
            #expect(fetched.errorCode == .resourceUnavailable)
            #expect(
                fetched.errorDescription == "Cassette: GET https://api.example.com/feed was made through the session of a cassette that "
                    + "was already ejected; use a session of a cassette in use")
            for tape in later {
                let report = try tape.eject()
                #expect(report.replayed == 0 && report.unmatched.isEmpty)
            }
        }
    }
}

extension SessionRouteTests {
    /// A stub session's pass-through goes through the recording path but never saves: it keeps
    /// nothing, so a long stub session's memory does not grow with its traffic.
    @Test func aStubSessionsPassThroughKeepsNothing() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let stubbed = StubSession(unmatched: .passThrough)
        defer { stubbed.invalidate() }
        for index in 0..<20 {
            let fetched = await Fetch.get(server.baseURL + "/echo?n=\(index)", on: stubbed.session)
            #expect(fetched.status == 200)
        }
        #expect(server.received.count == 20)
        #expect(stubbed.router.progress().recorded == 0)
    }
}
