import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// A server cannot be turned on itself: an upstream that is the server by any name — `localhost`,
/// `127.0.0.1`, a wildcard's interface address — is refused when it starts (or loads a cassette),
/// and a proxy request for its own address is answered 502. One such request spun at 99 % CPU
/// for 50 s and saved six bogus interactions.
@Suite struct SelfProxyTests {
    /// A port free a moment ago.
    static func freePort() throws -> Int {
        let probe = try LoopbackServer()
        defer { probe.stop() }
        return probe.port
    }

    @Test(arguments: ["localhost", "127.0.0.1", "127.0.0.2"])
    func anUpstreamThatIsTheServerIsRefused(host: String) throws {
        try withScratchTape { scratch in
            let port = try Self.freePort()
            let tape = try scratch.tape(mode: .once)
            let upstream = try #require(URL(string: "http://\(host):\(port)"))
            let expected = CassetteError.serverFailed(
                "the upstream http://\(host):\(port) is this server itself (listening on http://127.0.0.1:\(port)): every request "
                    + "would go round to it forever; give the address of the real server, or another port for this one")
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

    /// A client using the server as its proxy, asking for the server's own address by name.
    @Test func aProxyRequestForItselfIsAnswered502() throws {
        try withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            let server = try tape.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL)))
            let client = try RawHTTP(port: server.port)
            #expect(client.send("GET http://localhost:\(server.port)/loop HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"))
            let answer = String(decoding: client.receiveUntilClosed(timeout: 5 * TimingIsolation.scale).data, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 502"), "\(answer)")
            #expect(answer.contains("this request would go to this server itself"), "\(answer)")
        }
    }
}
