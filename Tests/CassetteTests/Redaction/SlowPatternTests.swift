import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A body pattern that backtracks without end (`(a|aa)+$` on sixty `a`s and a `b`) is stopped at
/// its budget: the request fails with why, through a session and through the server, and the
/// thread is free — it held a server thread at 100 % CPU until SIGTERM.
@Suite(.timingIsolated) struct SlowPatternTests {
    static let options = Tape.Options(redaction: Redaction.default.redactingBodyMatches("(a|aa)+$"))
    static let body = String(repeating: "a", count: 60) + "b"
    static let bound = 5 * TimingIsolation.scale

    @Test func aSessionsRequestFailsWithWhy() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once, options: Self.options)
            var request = URLRequest(url: try #require(URL(string: scratch.url("/echo/slow"))))
            request.httpMethod = "POST"
            request.httpBody = Data(Self.body.utf8)
            let start = Date()
            let fetched = await Fetch.run(request, on: tape.session, style: .async)
            #expect(Date().timeIntervalSince(start) < Self.bound)
            #expect(fetched.errorCode == .cannotDecodeRawData)
            #expect(
                fetched.errorDescription?.hasPrefix(
                    #"Cassette: POST \#(scratch.url("/echo/slow")) was not answered: the redaction body pattern "(a|aa)+$" ran longer than its budget of 0.25 s"#
                ) == true, "\(fetched.errorDescription ?? "")")
            #expect(scratch.server.received.isEmpty, "the request went out")
            let report = try tape.eject()
            #expect(report.requests == 1 && report.recorded == 0)
        }
    }

    @Test func theServerAnswersAndItsThreadIsFree() throws {
        try withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once, options: Self.options)
            let server = try tape.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL)))
            for _ in 0..<2 {
                let client = try RawHTTP(port: server.port)
                let start = Date()
                #expect(client.send("POST /echo/slow HTTP/1.1\r\nHost: x\r\nContent-Length: 61\r\nConnection: close\r\n\r\n\(Self.body)"))
                let answer = String(decoding: client.receiveUntilClosed(timeout: Self.bound).data, as: UTF8.self)
                #expect(Date().timeIntervalSince(start) < Self.bound)
                #expect(answer.hasPrefix("HTTP/1.1 5"), "\(answer)")
                #expect(answer.contains(#"the redaction body pattern "(a|aa)+$" ran longer than its budget"#), "\(answer)")
            }
            #expect(scratch.server.received.isEmpty)
        }
    }
}
