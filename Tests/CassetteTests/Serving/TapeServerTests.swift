import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer
@testable import CassetteTools

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tape.serve()`: the tape over real HTTP, driven by clients nobody here wrote (curl, URLSession's
/// download task) and by raw sockets for what no polite client sends.
@Suite(.timingIsolated) struct TapeServerTests {
    static let json = #"{"id":42,"name":"Ada Lovelace"}"#

    /// A cassette for `https://api.example.com`: JSON with two cookies, a gzip body stored
    /// decoded, a POST, and three faults.
    static func cassette(in scratch: ScratchTape) throws -> URL {
        let file = scratch.file("api.json")
        try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [
                Interaction(
                    request: .init(url: "https://api.example.com/users/42"),
                    response: .init(
                        status: 200,
                        headers: Interaction.Headers([
                            ("Content-Type", "application/json"), ("Set-Cookie", "a=1; Path=/"),
                            ("Set-Cookie", "b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT"), ("Content-Length", "\(json.utf8.count)"),
                        ]), body: .init(text: json))),
                Interaction(
                    request: .init(method: "HEAD", url: "https://api.example.com/users/42"),
                    response: .init(status: 200, headers: ["Content-Type": "application/json", "Content-Length": "\(json.utf8.count)"])),
                Interaction(
                    request: .init(url: "https://api.example.com/gzip"),
                    response: .init(
                        status: 200, headers: ["Content-Type": "text/plain", "Content-Encoding": "gzip", "Content-Length": "31"],
                        body: .init(text: "decoded, as URLSession hands it over"))),
                Interaction(
                    request: .init(
                        method: "POST", url: "https://api.example.com/items", headers: ["Content-Type": "application/json"],
                        body: .init(text: #"{"name":"pen"}"#)),
                    response: .init(status: 201, headers: ["Content-Type": "application/json"], body: .init(text: #"{"id":7}"#))),
                Interaction(request: .init(url: "https://api.example.com/hang"), error: .init(code: .timedOut)),
                Interaction(
                    request: .init(url: "https://api.example.com/cut"),
                    response: .init(status: 200, headers: ["Content-Length": "100"], body: .init(text: "0123456789")),
                    error: .init(code: .networkConnectionLost, afterBytes: 10)),
                Interaction(request: .init(url: "https://api.example.com/down"), error: .init(code: .cannotConnectToHost)),
            ])
        ).write(to: file)
        return file
    }

    #if os(Linux) || os(macOS)  // starts a process
    static func curl(_ arguments: [String]) -> (status: Int32, out: Data, err: String) {
        do {
            let result = try SpawnedProcess.run(executable: "/usr/bin/env", ["curl", "-s", "--no-progress-meter"] + arguments)
            return (result.status, result.output, String(decoding: result.errors, as: UTF8.self))
        } catch {
            return (-1, Data(), "\(error)")
        }
    }
    #endif

    // MARK: Replaying on the wire

    #if os(Linux) || os(macOS)  // starts a process
    @Test func curlReceivesTheRecordingAsTheWireCarriesIt() throws {
        try withScratchTape { scratch in
            let tape = try Tape(
                file: try Self.cassette(in: scratch), mode: .none, options: .init(allowsRepeatedReplays: true), environment: .tests)
            let server = try tape.serve()
            let base = server.baseURL.absoluteString

            let user = Self.curl(["-i", base + "/users/42"])
            #expect(user.status == 0, "\(user.err)")
            #expect(
                String(decoding: user.out, as: UTF8.self) == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + "Set-Cookie: a=1; Path=/\r\nSet-Cookie: b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT\r\nContent-Length: \(Self.json.utf8.count)\r\n\r\n"
                    + Self.json)

            // Stored decoded: no Content-Encoding on the wire, and a length that fits the decoded body.
            let gzip = Self.curl(["-i", base + "/gzip"])
            #expect(
                String(decoding: gzip.out, as: UTF8.self)
                    == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "decoded, as URLSession hands it over")

            let body = scratch.file("item.json")
            try Data(#"{"name":"pen"}"#.utf8).write(to: body)
            let post = Self.curl(["-i", "-H", "Content-Type: application/json", "--data-binary", "@\(body.path)", base + "/items"])
            #expect(String(decoding: post.out, as: UTF8.self).hasPrefix("HTTP/1.1 201 Created\r\n"))
            let chunked = Self.curl([
                "-i", "-H", "Content-Type: application/json", "-H", "Transfer-Encoding: chunked", "--data-binary", "@\(body.path)",
                base + "/items",
            ])
            #expect(
                String(decoding: chunked.out, as: UTF8.self).hasSuffix(#"{"id":7}"#),
                "a chunked upload matches the same recording: \(chunked)")

            let head = Self.curl(["-I", base + "/users/42"])
            #expect(String(decoding: head.out, as: UTF8.self).contains("Content-Length: \(Self.json.utf8.count)\r\n"), "\(head)")

            // Keep-alive: curl sends both requests on one connection, the first it opened (curl says
            // "Connection #0 … left intact" after each; how it words the reuse changes between versions).
            let twice = Self.curl(["-v", base + "/users/42", base + "/gzip"])
            #expect(twice.err.components(separatedBy: "Connection #0 to host").count == 3, "\(twice.err)")
            #expect(!twice.err.contains("Connection #1"), "\(twice.err)")
            #expect(String(decoding: twice.out, as: UTF8.self) == Self.json + "decoded, as URLSession hands it over")

            let report = try tape.eject()
            #expect(report.unmatched.isEmpty && report.replayed == 7)
            // Ejecting stopped the server.
            #expect(Self.curl([base + "/users/42"]).status == 7, "curl: could not connect")
        }
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    /// With a stub installed, requests cross the tape's session (stubs read the `URLRequest`);
    /// without, a replay goes straight from the router to the wire. Both put the same bytes on it.
    @Test func stubsAnswerTooAndBothPathsWriteTheSameBytes() throws {
        try withScratchTape { scratch in
            let file = try Self.cassette(in: scratch)
            let direct = try Tape(file: file, mode: .none, options: .init(allowsRepeatedReplays: true), environment: .tests)
            let directServer = try direct.serve()
            let viaSession = try Tape(file: file, mode: .none, options: .init(allowsRepeatedReplays: true), environment: .tests)
            viaSession.stubs.add(.path("/stubbed"), response: .text("from a stub"))
            let sessionServer = try viaSession.serve()
            for path in ["/users/42", "/gzip", "/cut"] {
                let a = Self.curl(["-i", directServer.baseURL.absoluteString + path])
                let b = Self.curl(["-i", sessionServer.baseURL.absoluteString + path])
                #expect(
                    a.out == b.out && a.status == b.status,
                    "\(path): \(String(decoding: a.out, as: UTF8.self)) / \(String(decoding: b.out, as: UTF8.self))")
            }
            let stubbed = Self.curl([sessionServer.baseURL.absoluteString + "/stubbed"])
            #expect(String(decoding: stubbed.out, as: UTF8.self) == "from a stub")
            try direct.eject()
            try viaSession.eject()
        }
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    @Test func faultsLookOnTheWireAsTheyDidToTheCaller() throws {
        try withScratchTape { scratch in
            let tape = try Tape(file: try Self.cassette(in: scratch), mode: .none, environment: .tests)
            let server = try tape.serve()
            let base = server.baseURL.absoluteString

            let start = Date()
            let hang = Self.curl(["--max-time", "1", base + "/hang"])
            #expect(hang.status == 28, "curl: operation timed out (\(hang.err))")
            #expect(Date().timeIntervalSince(start) >= 0.9)

            let cut = Self.curl([base + "/cut"])
            #expect(cut.status == 18, "curl: partial file (\(cut.err))")
            #expect(cut.out == Data("0123456789".utf8))

            let down = Self.curl([base + "/down"])
            #expect(down.status == 56 || down.status == 52, "curl: connection reset (\(down.status): \(down.err))")
            try tape.eject()
        }
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    @Test func anUnmatchedRequestGetsTheReportWithAMarkedStatus() throws {
        try withScratchTape { scratch in
            let misses = Locked<[String]>([])
            let tape = try Tape(file: try Self.cassette(in: scratch), mode: .none, environment: .tests)
            let server = try tape.serve(
                .init(unmatchedStatus: 599, onUnmatched: { miss in misses.withLock { $0.append(miss.request.url) } }))
            let miss = Self.curl(["-i", server.baseURL.absoluteString + "/users/43"])
            let text = String(decoding: miss.out, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 599 "))
            #expect(text.contains("X-Cassette-Unmatched: true\r\n"))
            #expect(text.contains("Cassette: no recorded interaction matches GET https://api.example.com/users/43 in cassette "))
            #expect(text.contains(#"- path: recorded "/users/42", requested "/users/43""#) || text.contains("/users/42"), "\(text)")
            #expect(misses.current == ["https://api.example.com/users/43"])
            #expect(try tape.eject().unmatched.count == 1)
        }
    }
    #endif

    /// A download task on Linux cannot be replayed in-process (FoundationNetworking keeps the
    /// file's URL to itself): pointed at the server, it downloads the recorded body.
    @Test func aDownloadTaskPointedAtTheServerDownloadsTheRecording() async throws {
        try await withScratchTape { scratch in
            let tape = try Tape(file: try Self.cassette(in: scratch), mode: .none, environment: .tests)
            let server = try tape.serve()
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }
            let (file, response) = try await session.download(from: server.baseURL.appendingPathComponent("users/42"))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(try Data(contentsOf: file) == Data(Self.json.utf8))
            try? FileManager.default.removeItem(at: file)
            try tape.eject()
        }
    }

    // MARK: Recording as a reverse proxy

    #if os(Linux) || os(macOS)  // starts a process
    @Test func recordedThroughTheServerThenReplayedGivesTheSameBytes() throws {
        try withScratchTape { scratch in
            let upstream = try LoopbackServer()
            let file = scratch.file("proxy.json")
            let upload = scratch.file("upload.bin")
            try Data((0..<3000).map { UInt8($0 % 251) }).write(to: upload)
            func run(_ base: String) -> [Data] {
                [
                    Self.curl(["-i", base + "/echo?x=1"]).out,
                    Self.curl(["-i", "--data-binary", "@\(upload.path)", "-H", "Content-Type: application/octet-stream", base + "/echo"])
                        .out,
                    Self.curl(["-i", "-H", "Transfer-Encoding: chunked", "--data-binary", "name=Ada", base + "/echo?form=1"]).out,
                    Self.curl(["-i", base + "/gzip"]).out,
                    Self.curl(["-i", base + "/status/418"]).out,
                    Self.curl(["-i", base + "/bytes/300"]).out,
                    Self.curl(["-i", base + "/headers"]).out,
                ]
            }
            // Without redaction, so that live and replayed bytes can be compared whole.
            let recorder = try Tape(file: file, mode: .once, options: .init(redaction: .none), environment: .tests)
            let upstreamURL = try #require(URL(string: upstream.baseURL))
            let proxy = try recorder.serve(.init(upstream: upstreamURL))
            let live = run(proxy.baseURL.absoluteString)
            let report = try recorder.eject()
            #expect(report.recorded == 7 && report.saved)
            #expect(upstream.received.count == 7)
            upstream.stop()
            #expect(String(decoding: live[0], as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(String(decoding: live[4], as: UTF8.self).hasPrefix("HTTP/1.1 418 I'm a teapot\r\n"))

            let player = try Tape(file: file, mode: .none, options: .init(redaction: .none), environment: .tests)
            let replay = try player.serve(.init(upstream: upstreamURL))
            let replayed = run(replay.baseURL.absoluteString)
            for (index, (a, b)) in zip(live, replayed).enumerated() {
                #expect(
                    a == b,
                    "request \(index): live \(String(decoding: a, as: UTF8.self).debugDescription), replayed \(String(decoding: b, as: UTF8.self).debugDescription)"
                )
            }
            #expect(try player.eject().replayed == 7)
        }
    }
    #endif

    @Test func aRecordingModeWithNowhereToRecordFromRefusesToStart() throws {
        try withScratchTape { scratch in
            let tape = try Tape(file: scratch.file("new.json"), mode: .once, options: Tape.Options().quiet, environment: .tests)
            #expect {
                try tape.serve()
            } throws: { error in
                (error as? CassetteError)?.description
                    == "Cassette: the replay server cannot start: record mode once records what the cassette "
                    + "cannot answer, but there is nowhere to record from: give an upstream (cassette serve --upstream https://api.example.com), "
                    + "or replay with mode none"
            }
            try tape.eject()
        }
    }

    /// `stop()` returns with the accepting thread gone and the port closed: the same port can be
    /// listened on again at once (only the accept loop closes the listening socket, as it ends).
    /// The loop waits with `poll` on the socket and a wake pipe, which works on Darwin too, where
    /// `shutdown` does not wake a blocked `accept`.
    /// A plain request (no upgrade) whose recording is a WebSocket conversation is answered 501
    /// with why, not reset; an upgrade whose handshake is malformed gets RFC 6455's answer (426
    /// with the version spoken). (The conversation itself: `WebSocketServingTests`.)
    @Test func aConversationAskedForWithoutAnUpgradeGets501WithWhy() throws {
        try withScratchTape { scratch in
            let file = scratch.file("live.json")
            try CassetteFile.write(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(url: "https://api.example.com/live"), response: .init(status: 101),
                        webSocket: .init(messages: [.text("hi", from: .server, at: 0.1)]))
                ]), to: file)
            let tape = try Tape(file: file, mode: .none, options: Tape.Options(allowsRepeatedReplays: true), environment: .tests)
            let server = try tape.serve()
            let client = try RawHTTP(port: server.port)
            #expect(client.send("GET /live HTTP/1.1\r\nHost: x\r\n\r\n"))
            let response = try #require(client.receiveResponse())
            #expect(response.head.hasPrefix("HTTP/1.1 501 Not Implemented\r\n"))
            #expect(String(decoding: response.body, as: UTF8.self).contains("is a WebSocket conversation"))

            let old = try RawHTTP(port: server.port)
            #expect(old.send("GET /live HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"))
            let refused = try #require(old.receiveResponse())
            #expect(refused.head.hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
            #expect(refused.head.contains("\r\nSec-WebSocket-Version: 13\r\n"))
            #expect(String(decoding: refused.body, as: UTF8.self) == "426 Upgrade Required: only WebSocket version 13 is spoken here\n")
            server.stop()
            _ = try tape.eject()
        }
    }

    /// Once a server is stopped and its tape ejected, nothing keeps either alive — not the
    /// threads that served it — so a process that exits next (`cassette serve`) holds no cassette.
    @Test func aStoppedServerAndItsTapeAreFreed() throws {
        try withScratchTape { scratch in
            let file = try Self.cassette(in: scratch)
            weak var weakTape: Tape?
            weak var weakServer: TapeServer?
            try {
                let tape = try Tape(file: file, mode: .none, environment: .tests)
                let server = try tape.serve()
                let client = try RawHTTP(port: server.port)
                #expect(client.send("GET /users/42 HTTP/1.1\r\nHost: x\r\n\r\n"))
                #expect(client.receiveResponse()?.head.hasPrefix("HTTP/1.1 200") == true)
                let unmatched = try RawHTTP(port: server.port)
                #expect(unmatched.send("GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n"))
                #expect(unmatched.receiveResponse()?.head.hasPrefix("HTTP/1.1 500") == true)
                server.stop()
                _ = try tape.eject()
                (weakTape, weakServer) = (tape, server)
            }()
            let deadline = Date(timeIntervalSinceNow: 2)
            while weakTape != nil || weakServer != nil, Date() < deadline { usleep(5_000) }
            #expect(weakServer == nil)
            #expect(weakTape == nil)
        }
    }

    @Test func stoppingFreesThePortAtOnce() throws {
        try withScratchTape { scratch in
            let file = scratch.file("stop.json")
            try CassetteFile.write(CassetteDocument(interactions: []), to: file)
            for _ in 0..<20 {
                // An empty cassette nothing asks: a server that is only started and stopped.
                let first = try Tape(file: file, mode: .none, options: Tape.Options(expectsRequests: false), environment: .tests)
                let server = try first.serve()
                let port = server.port
                // A client connected and idle when the server stops.
                let idle = try RawHTTP(port: port)
                server.stop()
                let stoppedAt = Date()
                let second = try Tape(file: file, mode: .none, options: Tape.Options(expectsRequests: false), environment: .tests)
                var again: TapeServer?
                while again == nil, Date().timeIntervalSince(stoppedAt) < 0.1 {
                    again = try? second.serve(TapeServer.Options(port: port))
                }
                #expect(again?.port == port, "port \(port) was not free within 100 ms of stop()")
                try first.eject()
                try second.eject()
                withExtendedLifetime(idle) {}
            }
        }
    }

    // MARK: Timing

    @Test func recordedLatencyIsRealDelayOnTheWire() throws {
        try withScratchTape { scratch in
            let file = scratch.file("slow.json")
            try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(url: "https://api.example.com/slow"),
                        response: .init(
                            status: 200, headers: ["Content-Length": "4000"], body: .init(text: String(repeating: "x", count: 4000))),
                        timing: .init(firstByte: 0.4, duration: 1.0))
                ])
            ).write(to: file)
            let tape = try Tape(file: file, mode: .none, options: .init(latency: .recorded), environment: .tests)
            let server = try tape.serve()
            let client = try RawHTTP(port: server.port)
            let start = Date()
            client.send("GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            // The head at the recorded first byte, then the body spread until the recorded duration.
            let first = client.receiveFirstBytes(timeout: 10)
            let headAfter = Date().timeIntervalSince(start)
            #expect(String(decoding: first.prefix(15), as: UTF8.self) == "HTTP/1.1 200 OK")
            #expect(headAfter >= 0.35 && headAfter < 0.85, "the head came after \(headAfter) s")
            let rest = client.receiveUntilClosed(timeout: 10).data
            let elapsed = Date().timeIntervalSince(start)
            let whole = first + rest
            let body = whole.range(of: Data("\r\n\r\n".utf8)).map { whole[$0.upperBound...] } ?? Data()
            #expect(body.count == 4000)
            #expect(elapsed >= 0.9 && elapsed < 8, "\(elapsed) s")
            try tape.eject()
        }
    }

    // MARK: Robustness

    struct Hostile: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: Data
        /// The status line expected, or nil when the server should close without one.
        var status: String?
        var halfClose = false
        var testDescription: String { name }
    }

    static let hostile: [Hostile] = {
        func request(_ text: String) -> Data { Data(text.utf8) }
        return [
            .init(name: "not HTTP", bytes: request("GARBAGE\r\n\r\n"), status: "HTTP/1.1 400 Bad Request"),
            .init(
                name: "HTTP/2.0 request line", bytes: request("GET / HTTP/2.0\r\n\r\n"), status: "HTTP/1.1 505 HTTP Version Not Supported"),
            .init(
                name: "huge request line", bytes: request("GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\n\r\n"),
                status: "HTTP/1.1 414 URI Too Long"),
            .init(
                name: "huge header", bytes: request("GET / HTTP/1.1\r\nX-Big: " + String(repeating: "b", count: 70_000) + "\r\n\r\n"),
                status: "HTTP/1.1 431 Request Header Fields Too Large"),
            .init(name: "header without colon", bytes: request("GET / HTTP/1.1\r\nBad Header\r\n\r\n"), status: "HTTP/1.1 400 Bad Request"),
            .init(name: "space before colon", bytes: request("GET / HTTP/1.1\r\nHost : x\r\n\r\n"), status: "HTTP/1.1 400 Bad Request"),
            .init(
                name: "Content-Length not a number", bytes: request("POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n"),
                status: "HTTP/1.1 400 Bad Request"),
            .init(
                name: "two Content-Lengths", bytes: request("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello"),
                status: "HTTP/1.1 400 Bad Request"),
            .init(
                name: "negative Content-Length", bytes: request("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"),
                status: "HTTP/1.1 400 Bad Request"),
            .init(
                name: "Content-Length and chunked",
                bytes: request("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"),
                status: "HTTP/1.1 400 Bad Request"),
            .init(
                name: "unknown transfer coding", bytes: request("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"),
                status: "HTTP/1.1 501 Not Implemented"),
            .init(
                name: "invalid chunk size", bytes: request("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"),
                status: "HTTP/1.1 400 Bad Request"),
            .init(
                name: "chunk longer than its size",
                bytes: request("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcdef\r\n0\r\n\r\n"),
                status: "HTTP/1.1 400 Bad Request"),
            .init(
                name: "chunk size overflowing",
                bytes: request("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n"),
                status: "HTTP/1.1 400 Bad Request"),
            .init(
                name: "body over the limit", bytes: request("POST / HTTP/1.1\r\nContent-Length: 5000\r\n\r\n"),
                status: "HTTP/1.1 413 Content Too Large"),
            .init(
                name: "chunked body over the limit",
                bytes: request(
                    "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + String(repeating: "c", count: 2048) + "\r\n0\r\n\r\n"),
                status: "HTTP/1.1 413 Content Too Large"),
            .init(
                name: "folded header", bytes: request("GET / HTTP/1.1\r\nX-A: 1\r\n  continued\r\n\r\n"), status: "HTTP/1.1 400 Bad Request"
            ),
            .init(
                name: "invalid UTF-8 in a header",
                bytes: Data("GET / HTTP/1.1\r\nX-A: ".utf8) + Data([0xFF, 0xFE]) + Data("\r\n\r\n".utf8),
                status: "HTTP/1.1 400 Bad Request"),
            .init(name: "target without a slash", bytes: request("GET users HTTP/1.1\r\n\r\n"), status: "HTTP/1.1 400 Bad Request"),
            .init(name: "method that is not a token", bytes: request("GE(T / HTTP/1.1\r\n\r\n"), status: "HTTP/1.1 400 Bad Request"),
            .init(
                name: "head cut by a half-close", bytes: request("GET /users/42 HTTP/1.1\r\nHost: x\r\n"),
                status: "HTTP/1.1 400 Bad Request", halfClose: true),
            .init(
                name: "body cut by a half-close", bytes: request("POST /items HTTP/1.1\r\nContent-Length: 50\r\n\r\nshort"),
                status: "HTTP/1.1 400 Bad Request",
                halfClose: true),
            .init(name: "only empty lines, then a half-close", bytes: request("\r\n\r\n\r\n"), status: nil, halfClose: true),
            .init(
                name: "slowloris: a head that never ends", bytes: request("GET /users/42 HTTP/1.1\r\nHost: x\r\n"),
                status: "HTTP/1.1 408 Request Timeout"),
        ]
    }()

    @Test(arguments: hostile)
    func hostileInputIsAnsweredOrDroppedAndTheServerKeepsServing(_ input: Hostile) throws {
        try withScratchTape { scratch in
            let tape = try Tape(file: try Self.cassette(in: scratch), mode: .none, environment: .tests)
            let server = try tape.serve(.init(limits: .init(bodyBytes: 1000, headerTimeout: 0.5)))
            let client = try RawHTTP(port: server.port)
            client.send(input.bytes)
            if input.halfClose { client.finishSending() }
            let (answer, closed) = client.receiveUntilClosed(timeout: 5)
            let statusLine = String(decoding: answer.prefix { $0 != 0x0D }, as: UTF8.self)
            #expect(statusLine == (input.status ?? ""), "\(String(decoding: answer, as: UTF8.self).debugDescription)")
            #expect(closed, "the server closes a connection it refused")

            // Still serving.
            let good = try RawHTTP(port: server.port)
            good.send("GET /users/42 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(good.receiveResponse()?.body == Data(Self.json.utf8))
            try tape.eject()
        }
    }

    @Test func expectContinueAndAClientThatLeavesMidResponse() throws {
        try withScratchTape { scratch in
            let file = scratch.file("big.json")
            let big = Data((0..<2_000_000).map { UInt8($0 % 251) })
            try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(method: "POST", url: "https://api.example.com/items", body: .init(text: "abc")),
                        response: .init(status: 201)),
                    Interaction(
                        request: .init(url: "https://api.example.com/big"),
                        response: .init(
                            status: 200, headers: ["Content-Type": "application/octet-stream", "Content-Length": "\(big.count)"],
                            body: .init(big, contentType: "application/octet-stream"))),
                    Interaction(
                        request: .init(url: "https://api.example.com/big"),
                        response: .init(
                            status: 200, headers: ["Content-Type": "application/octet-stream", "Content-Length": "\(big.count)"],
                            body: .init(big, contentType: "application/octet-stream"))),
                ])
            ).write(to: file)
            let tape = try Tape(file: file, mode: .none, environment: .tests)
            let server = try tape.serve()

            let client = try RawHTTP(port: server.port)
            client.send("POST /items HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
            #expect(client.receiveResponse()?.head == "HTTP/1.1 100 Continue")
            client.send("abc")
            #expect(client.receiveResponse()?.head.hasPrefix("HTTP/1.1 201 Created") == true)

            let leaving = try RawHTTP(port: server.port)
            leaving.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = leaving.receiveResponse(timeout: 0.05)
            // `leaving` goes out of scope: closed mid-response.
            _ = consume leaving

            let next = try RawHTTP(port: server.port)
            next.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(next.receiveResponse(timeout: 10)?.body == big)
            try tape.eject()
        }
    }

    @Test func tooManyConnectionsGet503AndTheRestAreServed() throws {
        try withScratchTape { scratch in
            let tape = try Tape(file: try Self.cassette(in: scratch), mode: .none, environment: .tests)
            let server = try tape.serve(.init(maxConnections: 2))
            let first = try RawHTTP(port: server.port)
            let second = try RawHTTP(port: server.port)
            first.send("GET /users/42 HTTP/1.1\r\nHost: x\r\n\r\n")
            second.send("GET /users/42 HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(first.receiveResponse() != nil && second.receiveResponse() != nil)
            let third = try RawHTTP(port: server.port)
            let (answer, _) = third.receiveUntilClosed()
            #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
            try tape.eject()
        }
    }

    /// 64 clients on kept-alive connections, 150 requests each: every answer whole, and not one of
    /// the server's sockets left open once it stopped.
    @Test func underLoadEveryAnswerIsWholeAndNoDescriptorLeaks() async throws {
        try await withScratchTape { scratch in
            let file = try Self.cassette(in: scratch)
            let tape = try Tape(file: file, mode: .none, options: .init(allowsRepeatedReplays: true), environment: .tests)
            let server = try tape.serve()
            let port = server.port
            let failures = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        try await Task.detached {
                            let client = try RawHTTP(port: port)
                            var failed = 0
                            for _ in 0..<150 {
                                client.send("GET /users/42 HTTP/1.1\r\nHost: x\r\n\r\n")
                                if client.receiveResponse(timeout: 30)?.body != Data(Self.json.utf8) { failed += 1 }
                            }
                            return failed
                        }.value
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(failures == 0)
            // The clients have gone: the server closed their connections; only the listener is left.
            for _ in 0..<50 where OpenSockets.count(localPort: port) > 1 { try await Task.sleep(nanoseconds: 20_000_000) }
            #expect(OpenSockets.count(localPort: port) == 1)
            let report = try tape.eject()
            #expect(report.replayed == 64 * 150)
            // The process's descriptor count moves with the tests running beside this one; the
            // server's own sockets are counted by port: none left once it stopped.
            #expect(OpenSockets.count(localPort: port) == 0)
        }
    }
}
