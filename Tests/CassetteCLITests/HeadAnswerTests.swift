import Cassette
import CassetteServer
import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteCLI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The answer to a `HEAD` carries the `Content-Length` a `GET` would have had and no body (RFC 9110
/// §8.6, §9.3.2): recorded through the protocol and through the server, in every format, it lints
/// clean and `lint --fix` leaves its file byte for byte.
@Suite(.timingIsolated) struct HeadAnswerTests {
    @Test(arguments: ["json", "http", "har"])
    func aRecordedHEADLintsCleanAndLintFixLeavesIt(format: String) async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let upstream = try LoopbackServer()
        defer { upstream.stop() }

        // Through the protocol: the tool's `record`, a URLSession task through the tape.
        let viaProtocol = scratch.file("protocol.\(format)")
        let recorded = Captured.runCapturingBytes([
            "record", "--cassette", viaProtocol.path, "-X", "HEAD", upstream.baseURL + "/bytes/2048",
        ])
        #expect(recorded.status == 0, "\(recorded.error)")
        #expect(recorded.out.isEmpty)

        // Through the server: a client on the wire, the server recording from the upstream.
        let viaServer = scratch.file("server.\(format)")
        let tape = try Tape(file: viaServer, mode: .all, environment: .tests)
        let server = try TapeServer(tape: tape, options: .init(upstream: URL(string: upstream.baseURL)))
        var head = URLRequest(url: server.baseURL.appendingPathComponent("bytes/2048"))
        head.httpMethod = "HEAD"
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let (body, response) = try await session.data(for: head)
        #expect(body.isEmpty)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length") == "2048")
        try tape.eject()

        for file in [viaProtocol, viaServer] {
            let document = try CassetteFile.read(file)
            let interaction = try #require(document.interactions.first)
            #expect(document.interactions.count == 1, "\(file.lastPathComponent)")
            #expect(interaction.request.method == "HEAD")
            #expect(interaction.response?.status == 200)
            #expect(interaction.response?.headers["Content-Length"] == "2048", "\(file.lastPathComponent)")
            #expect(interaction.response?.body.data.isEmpty == true, "\(file.lastPathComponent)")
        }

        let before = try [viaProtocol, viaServer].map { try Data(contentsOf: $0) }
        let linted = Captured.run(["lint", viaProtocol.path, viaServer.path])
        #expect(linted.status == 0)
        #expect(linted.out == "2 cassettes, 2 interactions, 0 errors\n")
        let fixed = Captured.run(["lint", "--fix", viaProtocol.path, viaServer.path])
        #expect(fixed.status == 0)
        #expect(fixed.out == "2 cassettes, 2 interactions, 0 errors\n")
        #expect(try [viaProtocol, viaServer].map { try Data(contentsOf: $0) } == before)
    }

    /// The same `Content-Length` on a `GET` answer with no body is still a warning: only the method
    /// (or a status without a body) makes it right.
    @Test func theSameHeadOnAGETIsStillAWarning() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let file = scratch.file("edited.http")
        try Data(
            """
            ###
            HEAD https://a.example/large

            HTTP/1.1 200 OK
            Content-Length: 2097152

            ###
            GET https://a.example/large

            HTTP/1.1 200 OK
            Content-Length: 2097152


            """.utf8
        ).write(to: file)
        let result = Captured.run(["lint", file.path])
        #expect(
            result.out == """
                \(file.path):11:17: warning: interactions[1].response.headers["Content-Length"]: Content-Length is 2097152 but the body holds 0 bytes: a replay delivers the 0 bytes, then fails with networkConnectionLost, as live. If the body was edited, set Content-Length to 0 or remove it.
                1 cassette, 2 interactions, 0 errors, 1 warning

                """)
    }
}
