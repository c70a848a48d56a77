import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Record against the loopback server, stop it, replay offline: the caller must receive the same
/// status, headers and bytes, through every way of sending a request, whatever the cassette's
/// format (chosen by the file's extension).
@Suite struct EndToEndTests {
    /// Requests covering the server's behaviours: plain, binary, compressed, chunked, redirected,
    /// repeated header fields, slow, and bodies from `httpBody` and `httpBodyStream`.
    static func requests(_ base: String) -> [URLRequest] {
        var requests = [
            "/echo?b=2&a=1", "/status/418", "/bytes/4096", "/gzip", "/deflate", "/chunked/5",
            "/redirect/3", "/headers", "/delay/50", "/status/204",
        ].map { URLRequest(url: URL(string: base + $0)!) }
        var post = URLRequest(url: URL(string: base + "/echo")!)
        post.httpMethod = "POST"
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        post.httpBody = Data(#"{"name":"Ada","tags":["a","b"]}"#.utf8)
        requests.append(post)
        var streamed = URLRequest(url: URL(string: base + "/echo?via=stream")!)
        streamed.httpMethod = "PUT"
        streamed.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        streamed.httpBodyStream = InputStream(data: Data("streamed body".utf8))
        requests.append(streamed)
        return requests
    }

    @Test(arguments: FetchStyle.allCases, CassetteFormat.allCases)
    func recordThenReplayOfflineGivesTheSameResults(style: FetchStyle, format: CassetteFormat) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("end-to-end.\(format.fileExtension)")
            let server = scratch.server

            // Redaction off: this compares every byte of what was recorded with what replays
            // (RedactionTests covers what redaction changes).
            let recording = try Tape(file: file, mode: .once, options: .init(redaction: .none), environment: .tests)
            let liveSession = style == .delegate ? Fetch.delegateSession(configuredBy: recording.configure) : recording.session
            var live: [Fetched] = []
            for request in Self.requests(server.baseURL) {
                live.append(await Fetch.run(request, on: liveSession, style: style))
            }
            let recordReport = try recording.eject()
            #expect(recordReport.recorded == live.count + 3, "each redirect hop is an interaction")
            #expect(recordReport.saved)
            server.stop()
            // Each request reached the server once; the redirect's three hops add three.
            #expect(server.received.count == live.count + 3)

            // What the live caller received is what the server sent.
            #expect(live[0].status == 200)
            #expect(live[1].status == 418 && live[1].text == "status 418")
            #expect(live[2].body == Data((0..<4096).map { UInt8($0 % 251) }))
            #expect(live[3].body == LoopbackRoutes.compressedJSON && live[3].headers["Content-Encoding"] == "gzip")
            #expect(live[4].body == LoopbackRoutes.compressedJSON && live[4].headers["Content-Encoding"] == "deflate")
            #expect(live[5].text == "chunk 0\nchunk 1\nchunk 2\nchunk 3\nchunk 4\n")
            #expect(live[6].text == "arrived" && live[6].url == server.baseURL + "/redirect/0")
            #expect(live[7].headers["Set-Cookie"] == "a=1; Path=/, b=2; Path=/")
            #expect(live[8].text == "delayed 50 ms")
            #expect(live[9].status == 204 && live[9].body.isEmpty)
            #expect(server.received.first { $0.method == "POST" }?.body == Data(#"{"name":"Ada","tags":["a","b"]}"#.utf8))
            #expect(server.received.first { $0.method == "PUT" }?.body == Data("streamed body".utf8))
            // Recorded request bodies are written in their readable form.
            let saved = try format.decode(Data(contentsOf: file), file: file.path)
            #expect(saved.interactions.count == live.count + 3)
            #expect(saved.interactions.first { $0.request.method == "POST" }?.request.body.form == .json)
            #expect(saved.interactions.first { $0.request.method == "PUT" }?.request.body.form == .text)

            let replaying = try Tape(file: file, mode: .none, environment: .tests)
            let replaySession = style == .delegate ? Fetch.delegateSession(configuredBy: replaying.configure) : replaying.session
            for (index, request) in Self.requests(server.baseURL).enumerated() {
                let replayed = await Fetch.run(request, on: replaySession, style: style)
                #expect(
                    replayed.sameOutcome(as: live[index]),
                    "request \(index) \(request.url!.path): live \(live[index]), replayed \(replayed)")
            }
            let replayReport = try replaying.eject()
            #expect(replayReport.replayed == live.count + 3)
            #expect(replayReport.unmatched.isEmpty)
            #expect(!replayReport.saved)
        }
    }

    /// Recording is transparent: the caller receives what a session without Cassette receives.
    /// (`/headers` sets cookies, which Cassette does not store yet; see the known issue below.)
    @Test(arguments: FetchStyle.allCases)
    func recordingGivesTheCallerWhatAPlainSessionGets(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let plain = style == .delegate ? Fetch.delegateSession { _ in } : URLSession(configuration: .ephemeral)
            let tape = try Tape(file: scratch.file("transparent.json"), mode: .once, environment: .tests)
            let recording = Fetch.session(of: tape, style: style)
            let withoutCookies = { Self.requests(server.baseURL).filter { $0.url?.path != "/headers" } }
            for (direct, through) in zip(withoutCookies(), withoutCookies()) {
                let expected = await Fetch.run(direct, on: plain, style: style)
                let received = await Fetch.run(through, on: recording, style: style)
                #expect(
                    received.sameOutcome(as: expected), "\(direct.url!.path): without Cassette \(expected.text), recording \(received.text)"
                )
            }
            try tape.eject()
        }
    }

    /// A live session stores the cookies a response sets, so the next request carries them.
    /// FoundationNetworking does not do it for a protocol's response: Cassette does, recording
    /// and replaying.
    @Test func setCookieIsStoredInTheCallersCookieStorageRecordingAndReplaying() async throws {
        try await withScratchTape(cassette: "cookies.json") { scratch in
            let (file, server) = (scratch.file, scratch.server)
            // Redaction off, so the stored cookies keep their values (by default they are [REDACTED]).
            let recording = try Tape(file: file, mode: .once, options: .init(redaction: .none), environment: .tests)
            _ = await Fetch.get(server.baseURL + "/headers", on: recording.session)
            let echoed = await Fetch.get(server.baseURL + "/echo", on: recording.session)
            #expect(Self.cookieHeader(in: echoed) == ["a=1", "b=2"], "\(echoed.text)")
            try recording.eject()
            server.stop()

            let replaying = try Tape(file: file, mode: .none, environment: .tests)
            let storage = try #require(replaying.session.configuration.httpCookieStorage)
            #expect(storage.cookies(for: try #require(URL(string: server.baseURL)))?.isEmpty ?? true)
            _ = await Fetch.get(server.baseURL + "/headers", on: replaying.session)
            let stored = storage.cookies(for: try #require(URL(string: server.baseURL))) ?? []
            #expect(stored.map { "\($0.name)=\($0.value)" }.sorted() == ["a=1", "b=2"])
            let replayedEcho = await Fetch.get(server.baseURL + "/echo", on: replaying.session)
            #expect(replayedEcho.text == echoed.text)
            #expect(try replaying.eject().unmatched.isEmpty)
        }
    }

    /// The cookies the loopback server's `/echo` saw, sorted (cookie storage keeps no order).
    static func cookieHeader(in echoed: Fetched) -> [String] {
        let object = try? JSONSerialization.jsonObject(with: echoed.body) as? [String: Any]
        let cookie = (object?["headers"] as? [String: String])?["cookie"] ?? ""
        return cookie.components(separatedBy: "; ").filter { !$0.isEmpty }.sorted()
    }

    /// No cookie is stored when the accept policy or the request says not to, as live.
    /// (`httpShouldSetCookies` off still stores them and only keeps them off requests, as live:
    /// `TaskKindsTests` compares that with a live session.)
    @Test(arguments: ["httpCookieAcceptPolicy", "httpShouldHandleCookies"])
    func cookiesAreNotStoredWhenTheConfigurationOrRequestRefusesThem(refusedBy setting: String) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("set-cookie.json")
            try Data(
                """
                { "version": 1, "interactions": [ {
                  "request": { "method": "GET", "url": "https://api.example.com/login" },
                  "response": { "status": 200, "headers": { "Set-Cookie": ["session=abc; Path=/", "theme=dark; Path=/"] } }
                } ] }
                """.utf8
            ).write(to: file)
            let tape = try Tape(file: file, mode: .none, options: .init(allowsRepeatedReplays: true), environment: .tests)
            let configuration = URLSessionConfiguration.ephemeral
            let storage = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "cassette-\(setting)-\(UUID())")
            configuration.httpCookieStorage = storage
            var request = URLRequest(url: try #require(URL(string: "https://api.example.com/login")))
            switch setting {
            case "httpCookieAcceptPolicy": configuration.httpCookieAcceptPolicy = .never
            default: request.httpShouldHandleCookies = false
            }
            tape.configure(configuration)
            let session = URLSession(configuration: configuration)
            let (_, response) = try await session.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(storage.cookies?.isEmpty ?? true, "\(storage.cookies ?? [])")

            // The same cassette, with cookies allowed: both are stored.
            let allowed = URLSessionConfiguration.ephemeral
            allowed.httpCookieStorage = storage
            tape.configure(allowed)
            _ = try await URLSession(configuration: allowed).data(from: try #require(URL(string: "https://api.example.com/login")))
            #expect((storage.cookies ?? []).map(\.name).sorted() == ["session", "theme"])
            _ = try tape.eject()
        }
    }

    /// Transport errors are recorded as `error` entries (connection failures when asked to) and
    /// replay as the same `URLError`.
    @Test(arguments: FetchStyle.allCases, CassetteFormat.allCases)
    func transportErrorsReplayAsTheSameURLError(style: FetchStyle, format: CassetteFormat) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("errors.\(format.fileExtension)")
            let server = scratch.server
            let closed = try ClosedPort()
            defer { withExtendedLifetime(closed) {} }  // the port stays taken until the test ends
            let urls = [server.baseURL + "/drop", server.baseURL + "/drop-mid-body", closed.baseURL + "/refused"]

            let recording = try Tape(file: file, mode: .once, options: .init(savesConnectionFailures: true), environment: .tests)
            let liveSession = style == .delegate ? Fetch.delegateSession(configuredBy: recording.configure) : recording.session
            var live: [Fetched] = []
            for url in urls { live.append(await Fetch.get(url, on: liveSession, style: style)) }
            try recording.eject()
            server.stop()
            // FoundationNetworking reports a connection closed before the head as badServerResponse,
            // and one closed mid-body as badServerResponse or unknown, depending on timing.
            #expect(live[0].errorCode == .badServerResponse)
            #expect(live[1].errorCode == .badServerResponse || live[1].errorCode == .unknown)
            #expect(live[2].errorCode == .cannotConnectToHost)

            let saved = try format.decode(Data(contentsOf: file), file: file.path)
            #expect(saved.interactions.map { $0.error.map { $0.code.rawValue } } == live.map { $0.errorCode?.rawValue })
            #expect(saved.interactions[0].response == nil)
            #expect(saved.interactions[1].response?.status == 200, "the head arrived before the connection dropped")

            let replaying = try Tape(file: file, mode: .none, environment: .tests)
            let replaySession = style == .delegate ? Fetch.delegateSession(configuredBy: replaying.configure) : replaying.session
            for (index, url) in urls.enumerated() {
                let replayed = await Fetch.get(url, on: replaySession, style: style)
                #expect(replayed.sameOutcome(as: live[index]), "\(url): live \(live[index]), replayed \(replayed)")
            }
            try replaying.eject()
        }
    }
}
