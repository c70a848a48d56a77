import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `tape.reportSoFar` while a tape records: an exchange is counted as recorded before its client
/// can see its end — through the server (the bytes that complete a response wait for the
/// recording to be kept) and through the protocol (a task ends only after it is kept). A test that
/// asserts on the count right after its request never finds it one short.
@Suite(.timingIsolated) struct LiveCountsTests {
    /// What the requests ask the upstream, one after another: a body by `Content-Length` (small and
    /// large), the answer to a `HEAD` (the head alone, with the `GET`'s length), a chunked body, a
    /// `204` and a `304` (their heads alone).
    static let exchanges: [(method: String, path: String)] = [
        ("GET", "/bytes/10"), ("HEAD", "/bytes/2048"), ("GET", "/chunked/3"), ("GET", "/status/204"),
        ("GET", "/bytes/300000"), ("GET", "/cache/etag/v1"), ("HEAD", "/chunked/2"), ("GET", "/echo"),
    ]

    @Test func aClientOfTheServerFindsItsExchangeCountedTheMomentItHasTheResponse() throws {
        try withScratchTape { scratch in
            let tape = try scratch.tape(mode: .all)
            let server = try TapeServer(tape: tape, options: .init(upstream: URL(string: scratch.server.baseURL)))
            let client = try RawHTTP(port: server.port)
            var counts: [Int] = []
            for round in 0..<5 {
                for (method, path) in Self.exchanges {
                    let conditional = path.hasPrefix("/cache/etag") ? "If-None-Match: \"v1\"\r\n" : ""
                    client.send("\(method) \(path)?round=\(round) HTTP/1.1\r\nHost: x\r\n\(conditional)\r\n")
                    let response = try #require(client.receiveResponse(bodiless: method == "HEAD"), "\(method) \(path)")
                    #expect(response.head.hasPrefix("HTTP/1.1 "), "\(response.head)")
                    counts.append(tape.reportSoFar.recorded)
                }
            }
            #expect(counts == Array(1...(5 * Self.exchanges.count)))

            // 32 at once, each on a connection of its own: all counted when the last client has its answer.
            let before = tape.reportSoFar.recorded
            DispatchQueue.concurrentPerform(iterations: 32) { index in
                guard let client = try? RawHTTP(port: server.port) else { return }
                client.send("GET /bytes/\(1000 + index) HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = client.receiveResponse()
            }
            #expect(tape.reportSoFar.recorded == before + 32)
            #expect(try tape.eject().recorded == before + 32)
        }
    }

    @Test(arguments: FetchStyle.allCases)
    func aURLSessionCallerFindsItsExchangeCountedWhenItsTaskEnds(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .all)
            let session = Fetch.session(of: tape, style: style)
            var counts: [Int] = []
            for round in 0..<3 {
                for (method, path) in Self.exchanges {
                    var request = URLRequest(url: try #require(URL(string: scratch.url(path + "?round=\(round)"))))
                    request.httpMethod = method
                    if path.hasPrefix("/cache/etag") { request.setValue("\"v1\"", forHTTPHeaderField: "If-None-Match") }
                    let fetched = await Fetch.run(request, on: session, style: style)
                    #expect(fetched.errorCode == nil, "\(method) \(path): \(fetched)")
                    counts.append(tape.reportSoFar.recorded)
                }
            }
            #expect(counts == Array(1...(3 * Self.exchanges.count)))
            #expect(try tape.eject().recorded == 3 * Self.exchanges.count)
        }
    }
}
