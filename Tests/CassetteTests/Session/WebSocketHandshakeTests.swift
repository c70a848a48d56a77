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
}
