import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redaction keeps replay true: `Content-Length` stays the stored body's length, a secret is
/// replaced by the same placeholder (`[REDACTED-1]`) wherever it turns up in the tape (so a request that echoes it
/// somewhere new still matches), and typed JSON still decodes.
@Suite struct RedactionReplayTests {
    static let token = "T0KEN-ECHOED-ELSEWHERE"

    // MARK: Content-Length

    @Test func contentLengthFollowsARedactedBodyInRequestAndResponse() throws {
        let requestBody = "user=ada&password=hunter2-but-longer"
        let responseBody = #"{"access_token":"eyJhbGciOiJIUzI1NiJ9.payload.signature","expires_in":3600}"#
        let interaction = Interaction(
            request: .init(
                method: "POST", url: "https://auth.example.com/token",
                headers: ["Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(requestBody.utf8.count)],
                body: .init(text: requestBody)),
            response: .init(
                status: 200, headers: ["Content-Type": "application/json", "Content-Length": String(responseBody.utf8.count)],
                body: .init(text: responseBody)))
        let stored = try #require(try Redaction.default.redacting([interaction]).first)
        #expect(stored.request.body.text == "user=ada&password=[REDACTED-1]")
        #expect(stored.request.headers["Content-Length"] == String(stored.request.body.data.count))
        #expect(stored.response?.body.text == #"{"access_token":"[REDACTED-2]","expires_in":3600}"#)
        #expect(stored.response?.headers["Content-Length"] == String(stored.response?.body.data.count ?? -1))
    }

    @Test func aContentLengthThatWasNotTrueIsLeftAsItWas() throws {
        let body = #"{"access_token":"eyJhbGciOiJIUzI1NiJ9.payload.signature"}"#
        for headers: Interaction.Headers in [
            ["Content-Type": "application/json", "Content-Encoding": "gzip", "Content-Length": "31"],  // the compressed length
            ["Content-Type": "application/json", "Content-Length": "1000"],  // a body cut short: replays as a lost connection
        ] {
            let interaction = Interaction(
                request: .init(url: "https://e.com/"), response: .init(status: 200, headers: headers, body: .init(text: body)))
            let stored = try #require(try Redaction.default.redacting([interaction]).first)
            #expect(stored.response?.headers["Content-Length"] == headers["Content-Length"])
        }
    }

    @Test func aRedactedResponseReplaysWhole() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("length.json")
            var request = URLRequest(url: URL(string: server.baseURL + "/echo")!)
            request.httpMethod = "POST"
            let body = Data(#"{"password":"correct-horse-battery-staple","user":"ada"}"#.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue(String(body.count), forHTTPHeaderField: "Content-Length")
            request.httpBody = body

            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let live = await Fetch.run(request, on: recorder.session, style: .async)
            try recorder.eject()
            #expect(live.status == 200 && live.text.contains("correct-horse-battery-staple"))
            let stored = try #require(try JSONCassetteCodec.decode(Data(contentsOf: file)).interactions.first)
            #expect(stored.request.headers["Content-Length"] == String(stored.request.body.data.count))
            let response = try #require(stored.response)
            #expect(response.headers["Content-Length"] == String(response.body.data.count))
            #expect(response.body.data.count < live.body.count, "the echoed password was redacted")

            let player = try Tape(file: file, mode: .none, environment: .tests)
            let replayed = await Fetch.run(request, on: player.session, style: .async)
            #expect(replayed.errorCode == nil, "\(replayed.errorDescription ?? "")")
            // The password is the client's own: the replay gives it back where the file holds its placeholder.
            #expect(replayed.body == live.body)
            #expect(replayed.headers["Content-Length"] == String(replayed.body.count))
            #expect(try player.eject().replayed == 1)
        }
    }

    // MARK: One secret, one placeholder, everywhere

    /// A token a rule finds in one request (Authorization) and that a later request carries only
    /// in its query: neither is in the file, and both replay.
    @Test func aSecretEchoedIntoALaterRequestIsRemovedThereAndStillMatches() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("echoed.json")
            func requests() -> [URLRequest] {
                var first = URLRequest(url: URL(string: server.baseURL + "/echo?step=1")!)
                first.setValue("Bearer \(Self.token)", forHTTPHeaderField: "Authorization")
                let second = URLRequest(url: URL(string: server.baseURL + "/echo?step=2&hint=\(Self.token)")!)
                return [first, second]
            }
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            for request in requests() { #expect(await Fetch.run(request, on: recorder.session, style: .async).status == 200) }
            try recorder.eject()
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data(Self.token.utf8)) == nil, "the token is in the cassette")
            let stored = try JSONCassetteCodec.decode(bytes).interactions
            #expect(stored[1].request.url == server.baseURL + "/echo?step=2&hint=[REDACTED-1]")

            for style in FetchStyle.allCases {
                let player = try Tape(file: file, mode: .none, environment: .tests)
                let session = style == .delegate ? Fetch.delegateSession { player.configure($0) } : player.session
                for request in requests() {
                    let replayed = await Fetch.run(request, on: session, style: style)
                    #expect(replayed.status == 200, "\(style): \(replayed.errorDescription ?? "")")
                }
                let report = try player.eject()
                #expect(report.replayed == 2 && report.unmatched.isEmpty, "\(style): \(report.unmatched.map(\.description))")
            }
        }
    }

    @Test func aSecretFoundOnlyInALaterInteractionIsRemovedFromEarlierOnesBeforeTheSave() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("later.json")
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            _ = await Fetch.get(server.baseURL + "/echo?hint=\(Self.token)", on: recorder.session)
            var withToken = URLRequest(url: URL(string: server.baseURL + "/echo")!)
            withToken.setValue("Bearer \(Self.token)", forHTTPHeaderField: "Authorization")
            _ = await Fetch.run(withToken, on: recorder.session, style: .async)
            try recorder.eject()
            #expect(try Data(contentsOf: file).range(of: Data(Self.token.utf8)) == nil)
        }
    }

    /// The server sets a session cookie; the client reads it and sends it back in a query.
    @Test func aCookieEchoedIntoAQueryReplays() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("cookie.json")
            func run(_ tape: Tape) async throws -> [Fetched] {
                let login = await Fetch.get(server.baseURL + "/session", on: tape.session)
                let cookie = try #require(tape.session.configuration.httpCookieStorage?.cookies?.first { $0.name == "sid" })
                var components = try #require(URLComponents(string: server.baseURL + "/echo"))
                components.queryItems = [URLQueryItem(name: "sid", value: cookie.value)]
                let echoed = await Fetch.get(try #require(components.url).absoluteString, on: tape.session)
                return [login, echoed]
            }
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let live = try await run(recorder)
            try recorder.eject()
            #expect(live[1].text.contains(LoopbackRoutes.sessionSecret))
            #expect(try Data(contentsOf: file).range(of: Data(LoopbackRoutes.sessionSecret.utf8)) == nil)

            let player = try Tape(file: file, mode: .none, environment: .tests)
            let replayed = try await run(player)
            #expect(replayed.map(\.status) == [200, 200], "\(replayed.map { $0.errorDescription ?? "" })")
            let report = try player.eject()
            #expect(report.replayed == 2 && report.unmatched.isEmpty, "\(report.unmatched.map(\.description))")
        }
    }

    // MARK: Typed JSON

    struct Grant: Decodable, Equatable {
        struct Token: Decodable, Equatable {
            var value: String
            var expires: Int
            var scopes: [String]
            var refreshable: Bool
        }

        var access_token: Token
        var refresh_token: Int
        var user: String
    }

    @Test func aRedactedJSONResponseStillDecodesWithCodable() throws {
        let body =
            #"{"access_token":{"value":"eyJhbGciOi.payload.sig","expires":1795349730,"scopes":["read","write"],"refreshable":true},"refresh_token":918273645,"user":"ada"}"#
        let interaction = Interaction(
            request: .init(url: "https://auth.example.com/grant"),
            response: .init(status: 200, headers: ["Content-Type": "application/json"], body: .init(text: body)))
        let stored = try #require(try Redaction.default.redacting([interaction]).first?.response)
        #expect(
            stored.body.text
                == #"{"access_token":{"value":"[REDACTED-1]","expires":0,"scopes":["[REDACTED]","[REDACTED]"],"refreshable":true},"refresh_token":0,"user":"ada"}"#
        )
        let grant = try JSONDecoder().decode(Grant.self, from: stored.body.data)
        #expect(
            grant
                == Grant(
                    access_token: .init(value: "[REDACTED-1]", expires: 0, scopes: ["[REDACTED]", "[REDACTED]"], refreshable: true),
                    refresh_token: 0, user: "ada"))
    }

    struct Authenticated: Decodable {
        var authenticated: Bool
        var token: String
    }

    @Test func aReplayedRedactedResponseDecodes() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("bearer.json")
            var request = URLRequest(url: URL(string: server.baseURL + "/bearer")!)
            request.setValue("Bearer \(Self.token)", forHTTPHeaderField: "Authorization")
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            _ = try await recorder.session.data(for: request)
            try recorder.eject()
            let player = try Tape(file: file, mode: .none, environment: .tests)
            let (data, _) = try await player.session.data(for: request)
            let decoded = try JSONDecoder().decode(Authenticated.self, from: data)
            // The token is the client's own: it comes back as live, not as the placeholder.
            #expect(decoded.authenticated && decoded.token == Self.token)
            try player.eject()
        }
    }
}
