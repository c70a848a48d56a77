import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// A server cannot be turned on itself: an upstream or a cassette's origin that is the server by
/// any name or address — `localhost`, `api.localhost`, `127.1`, `0x7f000001`, `2130706433`,
/// `[::ffff:127.0.0.1]`, `0.0.0.0`, a wildcard's interface address — is refused when it starts (or
/// loads a cassette), and a proxy request for its own address is answered 502. One such request
/// spun at 99 % CPU for 50 s and saved six bogus interactions; `0.0.0.0` hung 100 s. A server that
/// only replays forwards nothing, so it never refuses on those grounds.
@Suite struct SelfProxyTests {
    /// A port free a moment ago.
    static func freePort() throws -> Int {
        let probe = try LoopbackServer()
        defer { probe.stop() }
        return probe.port
    }

    /// Every spelling of this machine's loopback a client connects to the server with.
    static let ownNames = ["localhost", "127.0.0.1", "127.1", "0x7f000001", "2130706433", "[::ffff:127.0.0.1]", "0.0.0.0", "api.localhost"]

    @Test(arguments: ownNames + ["127.0.0.2"])
    func anUpstreamThatIsTheServerIsRefused(host: String) throws {
        try withScratchTape { scratch in
            let port = try Self.freePort()
            let tape = try scratch.tape(mode: .once)
            let upstream = try #require(URL(string: "http://\(host):\(port)"))
            let expected = CassetteError.serverFailed(
                "the upstream http://\(host):\(port) leads back to this server itself, listening on http://127.0.0.1:\(port): every "
                    + "request would go round to it forever. Give the real service's address (cassette serve --upstream "
                    + "https://api.example.com), or serve on another port; a server in record mode none forwards nothing")
            if host == "127.0.0.2" {
                // Another loopback address is another socket unless the server listens on every address.
                let server = try tape.serve(TapeServer.Options(port: port, upstream: upstream))
                server.stop()
                let wildcardTape = try scratch.tape(mode: .once)
                #expect(throws: CassetteError.self) {
                    try wildcardTape.serve(TapeServer.Options(host: "0.0.0.0", port: port, upstream: upstream))
                }
                return
            }
            #expect(throws: expected) { try tape.serve(TapeServer.Options(port: port, upstream: upstream)) }
        }
    }

    @Test func aFolderServerRefusesToLoadOntoItself() throws {
        try withScratchTape { scratch in
            let port = try Self.freePort()
            let server = try TapeServer(
                folder: scratch.url.path, mode: .once, environment: .tests,
                options: TapeServer.Options(port: port, upstream: URL(string: "http://localhost:\(port)")))
            defer { server.stop() }
            #expect(throws: CassetteError.self) { try server.load("feed") }
            #expect(server.tape == nil)
            // The tape opened for "feed" is discarded, not ejected: no empty cassette is left.
            let feed = scratch.url.appendingPathComponent("feed.json").path
            #expect(!FileManager.default.fileExists(atPath: feed), "an empty cassette was saved at \(feed)")
        }
    }

    /// A client using the server as its proxy, asking for the server's own address by each name:
    /// answered 502 at once, nothing sent or recorded (`api.localhost` was recorded twice).
    @Test(arguments: ownNames)
    func aProxyRequestForItselfIsAnswered502(host: String) throws {
        try withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            let server = try tape.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL)))
            let client = try RawHTTP(port: server.port)
            let url = "http://\(host):\(server.port)/loop"
            #expect(client.send("GET \(url) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
            let answer = String(decoding: client.receiveUntilClosed(timeout: 5 * TimingIsolation.scale).data, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 502"), "\(answer)")
            #expect(answer.contains("this request's URL \(url) leads back to this server itself"), "\(answer)")
            server.stop()
            #expect(try tape.eject().recorded == 0)
            #expect(scratch.server.received.isEmpty)
        }
    }

    /// Without an upstream, the cassette's only origin is where a path goes: served on that very
    /// port in a mode that records, it is refused at start (each request hung 20 s and six junk
    /// interactions were appended); in mode none it replays.
    @Test func aCassetteWhoseOriginIsTheServerRecordsNothingAndReplays() throws {
        try withScratchTape { scratch in
            let port = try Self.freePort()
            let recorded = Interaction(
                request: .init(method: "GET", url: "http://localhost:\(port)/feed"), response: .init(status: 200, body: .init(text: "old")))
            try CassetteFile.write(CassetteDocument(interactions: [recorded]), to: scratch.file)
            let recording = try scratch.tape(mode: .newEpisodes)
            #expect(
                throws: CassetteError.serverFailed(
                    "the cassette's origin http://localhost:\(port) leads back to this server itself, listening on "
                        + "http://127.0.0.1:\(port): every request would go round to it forever. Give the real service's address "
                        + "(cassette serve --upstream https://api.example.com), or serve on another port; a server in record mode "
                        + "none forwards nothing")
            ) { try recording.serve(TapeServer.Options(port: port)) }
            let replaying = try scratch.tape(mode: .none)
            let server = try replaying.serve(TapeServer.Options(port: port))
            let client = try RawHTTP(port: server.port)
            #expect(client.send("GET /feed HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
            let answer = String(decoding: client.receiveUntilClosed(timeout: 5 * TimingIsolation.scale).data, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            #expect(answer.contains("\r\nold\r\n"), "\(answer)")
        }
    }

    /// In mode none, a cassette recorded on two ports: a path is matched (ignoring the port, as
    /// asked), never refused with advice to start an upstream a server that replays never uses.
    @Test func modeNoneNeverRefusesARequestAsSelfReference() throws {
        try withScratchTape { scratch in
            let interactions = [(41_001, "/a"), (41_002, "/b")].map { port, path in
                Interaction(
                    request: .init(method: "GET", url: "http://127.0.0.1:\(port)\(path)"),
                    response: .init(status: 200, body: .init(text: path)))
            }
            try CassetteFile.write(CassetteDocument(interactions: interactions), to: scratch.file)
            let tape = try scratch.tape(mode: .none, matching: RequestMatching.default.ignoringPort())
            let server = try tape.serve()
            for path in ["/a", "/b"] {
                let client = try RawHTTP(port: server.port)
                #expect(client.send("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                let answer = String(decoding: client.receiveUntilClosed(timeout: 5 * TimingIsolation.scale).data, as: UTF8.self)
                #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("\r\n\(path)\r\n"), "\(answer)")
            }
        }
    }
}
