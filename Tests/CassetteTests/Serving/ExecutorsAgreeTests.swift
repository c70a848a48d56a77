import Cassette
import CassetteServer
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One cassette, two executors of the same decision: a tape's session and its replay server
/// (reached by curl, using the server as its HTTP proxy, so that both see the same URLs). A
/// redirect hop whose `Location` moves to the live origin, a replay on a latency plan, and a miss
/// must look the same to both callers.
@Suite(.timingIsolated) struct ExecutorsAgreeTests {
    static let live = "http://staging.example.com"

    static func cassette(in scratch: ScratchTape) throws -> URL {
        let file = scratch.file("agree.json")
        try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [
                Interaction(
                    request: .init(url: "https://api.example.com/old"),
                    response: .init(status: 302, headers: ["Location": "https://api.example.com/new", "Content-Length": "0"])),
                Interaction(
                    request: .init(url: "https://api.example.com/new"),
                    response: .init(status: 200, headers: ["Content-Type": "text/plain", "X-Hop": "2"], body: .init(text: "arrived"))),
                Interaction(
                    request: .init(url: "https://api.example.com/slow"),
                    response: .init(status: 201, headers: ["Content-Type": "application/json"], body: .init(text: #"{"slow":true}"#)),
                    latency: .fixed(firstByte: 0.4, duration: 0.8)),
            ])
        ).write(to: file)
        return file
    }

    static func tape(_ file: URL) throws -> Tape {
        try Tape(file: file, mode: .none, matching: RequestMatching.default.ignoringHost(), environment: .tests)
    }

    #if os(Linux) || os(macOS)  // starts a process
    /// What curl sees through the server: `-w` adds the final URL and the times after the body.
    static func curl(
        _ url: String, through server: TapeServer
    ) -> (head: String, body: String, url: String, firstByte: Double, total: Double) {
        let result = TapeServerTests.curl([
            "-s", "-i", "-L", "-x", server.baseURL.absoluteString, "-w",
            "\n%{url_effective} %{time_starttransfer} %{time_total}", url,
        ])
        let text = String(decoding: result.out, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let stats = (lines.last ?? "").split(separator: " ").map(String.init)
        let response = lines.dropLast().joined(separator: "\n")
        // The last response of a followed chain: its head, then its body.
        let last = response.components(separatedBy: "HTTP/1.1 ").last ?? ""
        let parts = last.components(separatedBy: "\r\n\r\n")
        return (
            "HTTP/1.1 " + (parts.first ?? ""), parts.dropFirst().joined(separator: "\r\n\r\n"), stats.first ?? "",
            Double(stats.dropFirst().first ?? "") ?? -1, Double(stats.last ?? "") ?? -1
        )
    }
    #endif

    #if os(Linux) || os(macOS)  // starts a process
    @Test func aSessionAndTheServerAnswerTheSameCassetteAlike() async throws {
        try await withScratchTape { scratch in
            let file = try Self.cassette(in: scratch)
            let sessionTape = try Self.tape(file)
            let serverTape = try Self.tape(file)
            let server = try serverTape.serve()
            let session = Fetch.delegateSession(configuredBy: sessionTape.configure)
            defer {
                _ = try? sessionTape.eject()
                _ = try? serverTape.eject()
            }

            // A redirect hop, its Location moved to the live origin, followed by both callers.
            let hops = await Fetch.get(Self.live + "/old", on: session, style: .delegate)
            let wire = Self.curl(Self.live + "/old", through: server)
            #expect(hops.status == 200)
            #expect(hops.text == "arrived")
            #expect(hops.url == Self.live + "/new")
            #expect(hops.headers["X-Hop"] == "2")
            #expect(wire.head.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(wire.head.contains("\r\nX-Hop: 2"))
            #expect(wire.body == hops.text)
            #expect(wire.url == hops.url)

            // A latency plan: the head after 0.4 s, the body complete after 0.8 s, on both.
            let slowSession = await Fetch.get(Self.live + "/slow", on: session, style: .delegate)
            let slowWire = Self.curl(Self.live + "/slow", through: server)
            #expect(slowSession.status == 201)
            #expect(slowWire.head.hasPrefix("HTTP/1.1 201 Created\r\n"))
            #expect(slowWire.body == slowSession.text)
            #expect(slowSession.text == #"{"slow":true}"#)
            #expect((slowSession.headAfter ?? 0) >= 0.39 && (slowSession.headAfter ?? 99) < 10, "\(slowSession)")
            #expect((slowSession.completedAfter ?? 0) >= 0.79 && (slowSession.completedAfter ?? 99) < 10, "\(slowSession)")
            #expect(slowWire.firstByte >= 0.39 && slowWire.firstByte < 10, "\(slowWire)")
            #expect(slowWire.total >= 0.79 && slowWire.total < 10, "\(slowWire)")

            // A miss: the same report, as the session's error and as the server's 500.
            let missSession = await Fetch.get(Self.live + "/missing", on: session, style: .delegate)
            let missWire = Self.curl(Self.live + "/missing", through: server)
            #expect(missSession.errorCode == .resourceUnavailable)
            let firstLine =
                "Cassette: no recorded interaction matches GET \(Self.live)/missing in cassette \(file.path) (record mode none)."
            #expect(missSession.errorDescription?.hasPrefix(firstLine) == true, "\(missSession)")
            #expect(missWire.head.hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
            #expect(missWire.head.contains("\r\nX-Cassette-Unmatched: true"))
            #expect(missWire.body.hasPrefix(firstLine), "\(missWire.body)")

            let sessionReport = try sessionTape.eject()
            let serverReport = try serverTape.eject()
            #expect(sessionReport.replayed == 3)
            #expect(serverReport.replayed == 3)
            #expect(sessionReport.unmatched.map(\.request.url) == [Self.live + "/missing"])
            #expect(serverReport.unmatched.map(\.request.url) == [Self.live + "/missing"])
        }
    }
    #endif
}
