import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whatever numbers reach delivery, nothing traps; what a cassette cannot hold is refused when it
/// is opened, with its place; and a replay keeps the promise of `Content-Length` as the wire would.
@Suite struct BadInputReplayTests {
    static func cassette(_ interactions: [Interaction], in scratch: ScratchTape, name: String = "bad.json") throws -> URL {
        let file = scratch.file(name)
        try JSONCassetteCodec.encode(CassetteDocument(interactions: interactions)).write(to: file)
        return file
    }

    static func request(_ url: String, timeout: TimeInterval = 60, method: String = "GET") -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = timeout
        request.httpMethod = method
        return request
    }

    // MARK: Numbers

    @Test(arguments: FetchStyle.allCases)
    func aHugeLatencyFromCodeTimesOutInsteadOfTrapping(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let file = try Self.cassette(
                [Interaction(request: .init(url: "https://a.example/"), response: .init(status: 200, body: .init(text: "ok")))], in: scratch
            )
            // Timed through the gate: at the start of a run CI once kept every test waiting 11 s for a
            // thread, and this bound only tells a 0.3 s timeout from a wait of 1e300 s.
            try await TimingIsolation.run {
                for latency in [
                    Latency.fixed(firstByte: 0, duration: 1e300), .fixed(firstByte: .infinity, duration: .infinity),
                    .downloadSpeed(.init(bytesPerSecond: 1e-300)),
                ] {
                    let tape = try Tape(
                        file: file, mode: .none, options: .init(allowsRepeatedReplays: true, latency: latency), environment: .tests)
                    let session = Fetch.session(of: tape, style: style)
                    let started = Date()
                    let fetched = await Fetch.run(Self.request("https://a.example/", timeout: 0.3), on: session, style: style)
                    let seconds = Date().timeIntervalSince(started)
                    _ = try tape.eject()
                    #expect(fetched.errorCode == .timedOut, "\(latency): \(fetched)")
                    #expect(seconds < 10 * TimingIsolation.scale, "\(latency): took \(seconds) s")
                }
            }
        }
    }

    @Test func aHugeStubDelayTimesOutInsteadOfTrapping() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.path("/slow"), response: .text("late").requestTime(1e300, responseTime: .infinity))
        stubbed.stubs.add(.path("/chunks"), response: .chunks([Data("a".utf8), Data("b".utf8)], delay: 1e300))
        for path in ["/slow", "/chunks"] {
            let fetched = await Fetch.run(Self.request("https://a.example" + path, timeout: 0.3), on: stubbed.session, style: .async)
            #expect(fetched.errorCode == .timedOut, "\(path): \(fetched)")
        }
    }

    @Test func aCassetteWithANumberOutOfBoundsIsRefusedWithItsPlace() throws {
        try withScratchTape { scratch in
            let file = scratch.file("slow.json")
            try Data(
                """
                {
                  "version": 1,
                  "interactions": [
                    { "request": { "method": "GET", "url": "https://a.example/" }, "response": { "status": 200 }, "latency": { "bytesPerSecond": 1e-300 } }
                  ]
                }
                """.utf8
            ).write(to: file)
            #expect(
                throws: CassetteFormatError(
                    file: file.path,
                    problems: [
                        .init(
                            path: JSONPath([.key("interactions"), .index(0), .key("latency"), .key("bytesPerSecond")]), line: 4,
                            column: 130,
                            message: "expected bytesPerSecond to be at least 1 (a finite number), found 1e-300")
                    ])
            ) {
                _ = try Tape(file: file, mode: .none, environment: .tests)
            }
        }
    }

    @Test func aFolderGivenAsACassetteSaysSo() throws {
        try withScratchTape { scratch in
            let folder = scratch.file("cassettes.json")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            #expect(
                throws: CassetteError.unreadableCassette(
                    file: folder.path,
                    reason: "it is a folder, not a file; give the path of a "
                        + "cassette file in it, such as \(folder.appendingPathComponent("name.json").path)")
            ) {
                _ = try Tape(file: folder, mode: .none, environment: .tests)
            }
        }
    }

    // MARK: Content-Length

    @Test(arguments: FetchStyle.allCases)
    func aReplayKeepsThePromiseOfContentLengthAsTheWireWould(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            func response(_ body: String, _ headers: Interaction.Headers) -> Interaction.Response {
                .init(status: 200, headers: headers, body: .init(text: body))
            }
            let file = try Self.cassette(
                [
                    Interaction(request: .init(url: "https://a.example/empty"), response: response("", ["Content-Length": "10"])),
                    Interaction(request: .init(url: "https://a.example/short"), response: response("abc", ["Content-Length": "10"])),
                    Interaction(
                        request: .init(url: "https://a.example/long"), response: response("0123456789ABC", ["Content-Length": "10"])),
                    Interaction(request: .init(url: "https://a.example/exact"), response: response("0123456789", ["Content-Length": "10"])),
                    // Decoded bodies are longer than the compressed length, for live callers too.
                    Interaction(
                        request: .init(url: "https://a.example/gzip"),
                        response: response("0123456789ABC", ["Content-Length": "4", "Content-Encoding": "gzip"])),
                    Interaction(
                        request: .init(method: "HEAD", url: "https://a.example/head"), response: response("", ["Content-Length": "10"])),
                    Interaction(
                        request: .init(url: "https://a.example/cut"), response: response("abc", ["Content-Length": "10"]),
                        error: .init(code: .init(name: "timedOut")!, afterBytes: 2)),
                ], in: scratch)
            let tape = try Tape(file: file, mode: .none, environment: .tests)
            let session = Fetch.session(of: tape, style: style)
            func fetch(_ path: String, method: String = "GET") async -> Fetched {
                await Fetch.run(Self.request("https://a.example" + path, method: method), on: session, style: style)
            }
            let empty = await fetch("/empty")
            #expect(empty.errorCode == .networkConnectionLost)
            #expect(empty.errorDescription?.contains("declares Content-Length 10 but its body holds 0 bytes") == true, "\(empty)")
            let short = await fetch("/short")
            #expect(short.errorCode == .networkConnectionLost)
            if style == .delegate { #expect(short.body == Data("abc".utf8)) }
            #expect(await fetch("/long").body == Data("0123456789".utf8))
            #expect(await fetch("/exact").body == Data("0123456789".utf8))
            #expect(await fetch("/gzip").body == Data("0123456789ABC".utf8))
            let head = await fetch("/head", method: "HEAD")
            #expect(head.status == 200 && head.errorCode == nil, "\(head)")
            let cut = await fetch("/cut")
            #expect(cut.errorCode == .timedOut)  // the cassette's own error wins
            let report = try tape.eject()
            #expect(report.replayed == 7)
        }
    }

    @Test func redactionKeepsContentLengthTrue() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("redacted.json")
            let redaction = Redaction.default.redactingQueryParameters("token")
            let recording = try Tape(file: file, mode: .once, options: .init(redaction: redaction), environment: .tests)
            // /echo answers with a JSON echo of the request, with a Content-Length; the token's echo
            // in it is removed, which shortens the body.
            let live = await Fetch.get(server.baseURL + "/echo?token=a-rather-long-secret-value-here", on: recording.session)
            _ = try recording.eject()
            #expect(live.status == 200)
            let stored = try #require(try CassetteFormat.json.decode(Data(contentsOf: file)).interactions.first?.response)
            #expect(stored.headers["Content-Length"] == String(stored.body.data.count))
            let replaying = try Tape(file: file, mode: .none, options: .init(redaction: redaction), environment: .tests)
            let replayed = await Fetch.get(server.baseURL + "/echo?token=a-rather-long-secret-value-here", on: replaying.session)
            _ = try replaying.eject()
            #expect(replayed.errorCode == nil, "\(replayed)")
            // The token is the client's own: the replay gives it back, and Content-Length follows.
            #expect(replayed.body == live.body)
            #expect(replayed.headers["Content-Length"] == String(live.body.count))
        }
    }
}
