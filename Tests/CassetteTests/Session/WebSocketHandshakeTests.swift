import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cassette's protocol never takes a WebSocket handshake: recent Apple systems send the upgrade
/// of a `URLSessionWebSocketTask` through the session's protocols as an HTTP request, and a
/// conversation cannot be held through a `URLProtocol`. The loading system keeps it.
@Suite struct WebSocketHandshakeTests {
    static func request(_ fields: [String: String]) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.com/socket")!)
        for (name, value) in fields { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    @Test func anUpgradeToAWebSocketIsDeclined() throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        let protocolClass = try #require(tape.session.configuration.protocolClasses?.first as? URLProtocol.Type)
        #expect(protocolClass is CassetteURLProtocol.Type)
        #expect(protocolClass.canInit(with: Self.request([:])))
        #expect(!protocolClass.canInit(with: Self.request(["Upgrade": "websocket", "Connection": "Upgrade"])))
        #expect(!protocolClass.canInit(with: Self.request(["Upgrade": "WebSocket"])))
        #expect(!protocolClass.canInit(with: Self.request(["Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="])))
        // Another upgrade is not a WebSocket.
        #expect(protocolClass.canInit(with: Self.request(["Upgrade": "h2c", "Connection": "Upgrade"])))
        // Nor is the class for `URLSession.shared`, which asks its parent.
        #expect(!SharedSessionProtocol.canInit(with: Self.request(["Upgrade": "websocket"])))
        _ = try tape.eject()
    }

    @Test func aWebSocketTaskIsDeclinedAndADataTaskIsNot() throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        let protocolClass = try #require(tape.session.configuration.protocolClasses?.first as? URLProtocol.Type)
        let socket = tape.session.webSocketTask(with: URL(string: "wss://api.example.com/socket")!)
        let data = tape.session.dataTask(with: URL(string: "https://api.example.com/users/42")!)
        #expect(!protocolClass.canInit(with: socket))
        #expect(protocolClass.canInit(with: data))
        socket.cancel()
        data.cancel()
        _ = try tape.eject()
    }

    /// The note every mode gives for a WebSocket left to the loading system.
    static func leftNote(_ url: String) -> String {
        "a WebSocket to \(url) went to the network, neither recorded nor replayed: a URLSession protocol cannot hold a "
            + "WebSocket conversation. Record and replay it through tape.serve() (a local server the WebSocket task connects "
            + "to; see WebSockets in the documentation)."
    }

    /// The notes a platform may give for a WebSocket task to `url` (`ws://` or `wss://`): the URL
    /// the task was made with on Linux, where the test hands the task itself to the protocol; on
    /// Apple platforms the loading system may show the protocol the upgrade's request in its
    /// `http://` form (DebugSwift#400), and either note is right.
    static func leftNotes(_ url: String) -> Set<String> {
        #if canImport(FoundationNetworking)
        return [leftNote(url)]
        #else
        let http = url.hasPrefix("wss:") ? "https:" + url.dropFirst(4) : url.hasPrefix("ws:") ? "http:" + url.dropFirst(3) : url
        return [leftNote(url), leftNote(http)]
        #endif
    }

    /// A WebSocket task through a tape's session goes to the network whatever the mode — CI
    /// included — so the report says it when the loading system shows the task to the protocol
    /// (Apple platforms ask `canInit(with:)` for every task), once per URL and without the query.
    @Test(arguments: [RecordMode.none, .once, .newEpisodes, .all])
    func aWebSocketTaskShownToTheProtocolIsNamedInTheReport(mode: RecordMode) throws {
        try withScratchTape { scratch in
            if mode == .none { try Data(#"{"version":1,"interactions":[]}"#.utf8).write(to: scratch.file) }
            let tape = try scratch.tape(mode: mode)
            let protocolClass = try #require(tape.session.configuration.protocolClasses?.first as? URLProtocol.Type)
            let url = try #require(URL(string: "wss://api.example.com/socket?token=s3cret"))
            for _ in 0..<2 {
                let socket = tape.session.webSocketTask(with: url)
                #expect(!protocolClass.canInit(with: socket))
                socket.cancel()
            }
            let notes = Self.leftNotes("wss://api.example.com/socket")
            let warnings = tape.reportSoFar.warnings
            #expect(warnings.count == 1 && notes.contains(warnings[0]), "\(warnings)")
            // Then what ejecting adds (an empty cassette says so).
            #expect(try tape.eject().warnings.first.map(notes.contains) == true)
        }
    }

    /// A real WebSocket task, resumed: the loading system asks the session's protocols, so the
    /// report names it. Apple's always does. FoundationNetworking does when the system's libcurl
    /// has WebSockets (curl 8.23 on Debian sid, with Swift 6.2.3); with a libcurl built without
    /// them (7.88 on Debian 12, with Swift 6.3.1) its task fails on `resume()` with "WebSockets not
    /// supported by libcurl" before asking any protocol, so the report cannot know of it.
    @Test func aResumedWebSocketTaskOnThisPlatform() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            let base = scratch.server.baseURL.replacingOccurrences(of: "http:", with: "ws:")
            let socket = tape.session.webSocketTask(with: try #require(URL(string: base + "/socket")))
            socket.resume()
            let failure = await #expect(throws: (any Error).self) { _ = try await socket.receive() }
            socket.cancel()
            let warnings = tape.reportSoFar.warnings
            // Apple's loading system always asks, so Apple's expectation is the one after this block.
            #if canImport(FoundationNetworking)
            if (failure as? URLError)?.userInfo[NSLocalizedDescriptionKey] as? String == "WebSockets not supported by libcurl" {
                #expect((failure as? URLError)?.code == .unsupportedURL)
                #expect(warnings == [])
                _ = try tape.eject()
                return
            }
            #endif
            #expect(warnings.count == 1 && Self.leftNotes(base + "/socket").contains(warnings[0]), "\(warnings)")
            _ = try tape.eject()
        }
    }

    @Test func aHandshakeRequestIsNamedAndAPlainOneIsNot() throws {
        let tape = try Tape(file: PackagePaths.examples.appendingPathComponent("users-api.json"), mode: .none, environment: .tests)
        let protocolClass = try #require(tape.session.configuration.protocolClasses?.first as? URLProtocol.Type)
        _ = protocolClass.canInit(with: Self.request([:]))
        #expect(tape.reportSoFar.warnings == [])
        _ = protocolClass.canInit(with: Self.request(["Upgrade": "websocket", "Connection": "Upgrade"]))
        #expect(tape.reportSoFar.warnings == [Self.leftNote("https://api.example.com/socket")])
        _ = try tape.eject()
    }
}
