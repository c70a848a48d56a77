import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

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

    /// The fuzz target's regression inputs (`Fuzz/Regressions/body_patterns`: a pattern, a newline,
    /// a body): each pattern is refused with a reason, or matched or stopped within its budget and
    /// the target's second of slack.
    @Test func theFuzzTargetsRegressionInputsStopWithinTheirBudget() throws {
        let folder = PackagePaths.root.appendingPathComponent("Fuzz/Regressions/body_patterns")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.count >= 3)
        var stopped = 0
        var refused = 0
        for name in names {
            let input = String(decoding: try Data(contentsOf: folder.appendingPathComponent(name)), as: UTF8.self)
            let newline = try #require(input.firstIndex(of: "\n"), "\(name)")
            let text = String(input[input.index(after: newline)...])
            do throws(BodyPattern.Problem) {
                let pattern = try BodyPattern(String(input[..<newline]))
                let start = Date()
                if pattern.matches(in: text) == nil { stopped += 1 }
                let allowed = BodyPattern.budget(length: text.utf16.count) + TimingIsolation.scale
                #expect(Date().timeIntervalSince(start) < allowed, "\(name)")
            } catch {
                #expect(!error.reason.isEmpty, "\(name)")
                refused += 1
            }
        }
        #expect(stopped >= 2 && refused >= 1, "stopped \(stopped), refused \(refused)")
    }
}
