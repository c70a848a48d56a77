import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// The rules that reach bodies reach WebSocket messages, through the same walk over an
/// interaction: the check before saving finds a secret in a message, and placeholders bound from
/// what the live client sent (in the upgrade request or in a message) come back in the server's
/// replayed messages.
@Suite(.timingIsolated) struct WebSocketRedactionTests {
    static let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEiLCJpYXQiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"

    /// The client sends `say`, one message at a time, each once the previous one is answered, then
    /// reads until the server closes.
    static func converse(port: Int, path: String = LoopbackWebSocket.path, say: [String]) throws -> [WebSocketFrameReader.Message] {
        let client = try WebSocketTestClient(port: port, path: path)
        var seen: [WebSocketFrameReader.Message] = []
        for text in say {
            #expect(client.send(text: text))
            guard let answer = try client.receive() else { return seen }
            seen.append(answer.message)
        }
        return seen + (try client.receiveAll(timeout: 5 * TimingIsolation.scale)).map(\.message)
    }

    /// A JWT no rule names, sent in a client message and echoed by the server: the check before
    /// saving warns of both places, or refuses the save, exactly as for a body.
    @Test func theCheckBeforeSavingFindsASecretInAMessage() throws {
        try withScratchTape { scratch in
            let say = [#"{"auth":"\#(Self.jwt)"}"#, #"{"say":"hello 2"}"#, #"{"say":"hello 3"}"#]
            let warned = try scratch.tape(mode: .once)
            let relay = try warned.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL)))
            #expect(try Self.converse(port: relay.port, say: say).count == 9)
            let report = try warned.eject()
            #expect(report.saved)
            let url = try #require(try CassetteFile.read(scratch.file).interactions.first?.request.url)
            let findings = [
                "GET \(url): JWT in webSocket.messages[0].auth (\(Self.jwt.count) characters)",
                "GET \(url): JWT in webSocket.messages[1].echo.auth (\(Self.jwt.count) characters)",
            ]
            #expect(report.warnings == findings.map { "\(scratch.file.path): possible secret, saved: \($0). \(SecretCheck.advice)" })

            let refused = scratch.file("refused.json")
            try Data("{\"version\": 1, \"interactions\": []}\n".utf8).write(to: refused)
            let before = try Data(contentsOf: refused)
            let strict = try Tape(
                file: refused, mode: .all, options: .init(secretCheck: .failSave),
                environment: .tests)
            let strictRelay = try strict.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL)))
            #expect(try Self.converse(port: strictRelay.port, say: say).count == 9)
            #expect(throws: CassetteError.suspectedSecrets(file: refused.path, findings: findings)) { try strict.eject() }
            #expect(try Data(contentsOf: refused) == before)
        }
    }

    /// A rule that names the key scrubs the secret from every message, client's and server's, as
    /// from a body, and the same secret gets the same placeholder in both.
    @Test func aRuleScrubsASecretFromEveryMessage() throws {
        try withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once, options: .init(redaction: .default.redactingJSONKeys("auth")))
            let relay = try tape.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL)))
            _ = try Self.converse(port: relay.port, say: [#"{"auth":"\#(Self.jwt)"}"#, #"{"say":"hello 2"}"#, #"{"say":"hello 3"}"#])
            let report = try tape.eject()
            #expect(report.warnings == [])
            let messages = try #require(try CassetteFile.read(scratch.file).interactions.first?.webSocket?.messages)
            #expect(messages[0].text == #"{"auth":"[REDACTED-1]"}"#)
            #expect(messages[1].text == #"{"echo":{"auth":"[REDACTED-1]"},"n":1}"#)
            #expect(!String(decoding: try Data(contentsOf: scratch.file), as: UTF8.self).contains(Self.jwt))
        }
    }

    /// A recorded conversation whose messages hold placeholders, the upgrade request one in its
    /// query: each is bound to what the live client sent, and the server's messages say it back.
    @Test func aBoundPlaceholderComesBackInTheServersMessages() throws {
        try withScratchTape { scratch in
            // Record any conversation for its upgrade request and 101, then write the one under test.
            let recording = try scratch.tape(mode: .once)
            let relay = try recording.serve(TapeServer.Options(upstream: URL(string: scratch.server.baseURL)))
            _ = try Self.converse(port: relay.port, say: [#"{"say":"hello 1"}"#, #"{"say":"hello 2"}"#, #"{"say":"hello 3"}"#])
            try recording.eject()
            var document = try CassetteFile.read(scratch.file)
            document.interactions[0].request.url += "?ticket=[REDACTED-2]"
            document.interactions[0].webSocket = .init(messages: [
                .text(#"{"login": "[REDACTED-1]"}"#, from: .client, at: 0),
                .text(#"{"welcome": "[REDACTED-1]", "ticket": "[REDACTED-2]"}"#, from: .server, at: 0.01),
                .text("bye [REDACTED-1]", from: .server, at: 0.02),
                .close(code: 1000, reason: "done", from: .server, at: 0.03),
            ])
            try CassetteFile.write(document, to: scratch.file)

            let login = #"ada "the analyst" \ lovelace"#
            let replaying = try scratch.tape(mode: .none)
            let seen = try Self.converse(
                port: try replaying.serve().port, path: LoopbackWebSocket.path + "?ticket=live-ticket-8841",
                say: [#"{"login": "\#(login.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))"}"#])
            #expect(
                seen == [
                    .text(#"{"welcome": "ada \"the analyst\" \\ lovelace", "ticket": "live-ticket-8841"}"#),
                    .text("bye \(login)"),
                    .close(code: 1000, reason: "done"),
                ])
            let report = try replaying.eject()
            #expect(report.unmatched.isEmpty)
            #expect(report.replayed == 1)
        }
    }
}
