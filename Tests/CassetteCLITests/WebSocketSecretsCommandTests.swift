import Cassette
import Foundation
import Testing

@testable import CassetteCLI

/// `cassette check-secrets` reaches WebSocket messages as it reaches bodies: the same shapes, found
/// in client and server messages, in JSON, text, form pairs and binary payloads, each with its place.
@Suite struct WebSocketSecretsCommandTests {
    static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEiLCJpYXQiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"
    static let otherJWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib2IiLCJpYXQiOjE3MDAwMDAwMDF9.YW5vdGhlci1zaWduYXR1cmUtaGVyZQ"
    static let binaryJWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjeSIsImlhdCI6MTcwMDAwMDAwMn0.dGhpcmQtc2lnbmF0dXJlLWhlcmU"

    /// A conversation with a secret in each kind of message, and the same JWT in a response body
    /// for comparison.
    static let document = CassetteDocument(interactions: [
        Interaction(
            request: .init(url: "wss://api.example.com/live"),
            response: .init(status: 101, headers: ["Upgrade": "websocket", "Connection": "Upgrade"]),
            webSocket: .init(messages: [
                .text(#"{"auth": "\#(jwt)"}"#, from: .client, at: 0),
                .text("session \(otherJWT) ok", from: .server, at: 0.1),
                .text(#"{"headers": {"authorization": "Bearer Xk29dLq8ZpR3mN7vT4wY6sB1"}}"#, from: .client, at: 0.2),
                .text("api_key=q8ZtR2mN7vT4wY6sB1Lp&page=2", from: .client, at: 0.3),
                .init(from: .server, at: 0.4, kind: .binary, data: Data([0xFF, 0x00]) + Data(binaryJWT.utf8)),
                .close(code: 1000, from: .server, at: 0.5),
            ])),
        Interaction(
            request: .init(url: "https://api.example.com/me"),
            response: .init(status: 200, headers: ["Content-Type": "application/json"], body: .init(text: #"{"auth":"\#(jwt)"}"#))),
    ])

    @Test func everySecretInAConversationIsFoundWithItsPlace() throws {
        let findings = try SecretScanner().findings(in: Self.document)
        #expect(
            findings.map { [$0.kind, $0.place, $0.value] } == [
                ["JWT", "interactions[0].webSocket.messages[0].auth", Self.jwt],
                ["JWT", "interactions[0].webSocket.messages[1]", Self.otherJWT],
                ["bearer token", "interactions[0].webSocket.messages[2].headers.authorization", "Xk29dLq8ZpR3mN7vT4wY6sB1"],
                ["random string in an auth-like field", "interactions[0].webSocket.messages[3].api_key", "q8ZtR2mN7vT4wY6sB1Lp"],
                ["JWT", "interactions[0].webSocket.messages[4]", Self.binaryJWT],
                ["JWT", "interactions[1].response.body.auth", Self.jwt],
            ])
    }

    @Test func checkSecretsFailsOnAConversationThatHoldsOne() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("live.json")
        try JSONCassetteCodec.encode(Self.document).write(to: file)
        let result = Captured.run(["check-secrets", folder.path])
        let lines = result.out.components(separatedBy: "\n")
        // Each line: FILE[:LINE:COLUMN]: secret: KIND in PLACE: "…" (N characters); in the order of the file.
        let described = lines.dropLast(2).map { line in
            line.range(of: ": secret: ").map { String(line[$0.lowerBound...]) } ?? line
        }
        #expect(
            described == [
                #": secret: JWT in interactions[0].webSocket.messages[0].auth: "eyJh…" (\#(Self.jwt.count) characters)"#,
                #": secret: JWT in interactions[0].webSocket.messages[1]: "eyJh…" (\#(Self.otherJWT.count) characters)"#,
                #": secret: bearer token in interactions[0].webSocket.messages[2].headers.authorization: "Xk29…" (24 characters)"#,
                #": secret: random string in an auth-like field in interactions[0].webSocket.messages[3].api_key: "q8Zt…" (20 characters)"#,
                #": secret: JWT in interactions[1].response.body.auth: "eyJh…" (\#(Self.jwt.count) characters)"#,
                // Written as base64 in the file: found, but without a line and column.
                #": secret: JWT in interactions[0].webSocket.messages[4]: "eyJh…" (\#(Self.binaryJWT.count) characters)"#,
            ])
        #expect(lines.suffix(2) == ["6 secrets in 1 file", ""])
        #expect(lines.dropLast(3).allSatisfy { $0.hasPrefix(file.path + ":") })
        #expect(lines.dropLast(2).last?.hasPrefix(file.path + ": secret: ") == true)
        #expect(result.status == 1)
    }
}
