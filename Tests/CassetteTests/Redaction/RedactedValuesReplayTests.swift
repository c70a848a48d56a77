import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redaction never makes a recording unreplayable, and a replay gives the client its own values
/// back. Each scenario runs live against the loopback server, then recorded (default redaction),
/// then replayed offline, through the async API, a completion handler and a delegate session,
/// and the three are compared field by field. The only values a replay does not give back are
/// the secrets the server made (a session token): nothing live ever stood for their placeholders.
@Suite struct RedactedValuesReplayTests {
    /// A scenario: requests sent one after another through one session (cookies carry over).
    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var paths: [String]
        /// Values the client supplies: they must not be in the file, and come back on replay.
        var clientSecrets: [String]
        /// Values the server makes: not in the file, and replayed as their placeholders.
        var serverSecrets: [String] = []
        /// A JSON body for the first request (a POST), if any.
        var firstBody: String?
        var testDescription: String { name }
    }

    static let scenarios: [Scenario] = [
        Scenario(
            name: "a cookie set through the URL, then read back", paths: ["/cookies/set?flavour=oatmeal&session=abc12345", "/cookies"],
            clientSecrets: ["oatmeal", "abc12345"]),
        Scenario(
            name: "Set-Cookie asked for in the query", paths: ["/response-headers?Set-Cookie=plain%3Dcookie1xyz", "/cookies"],
            clientSecrets: ["cookie1xyz"]),
        Scenario(
            name: "a token echoed in a redirect's Location, followed", paths: ["/redirect-to?url=%2Fecho%3Fapi_key%3DTOKEN123456"],
            clientSecrets: ["TOKEN123456"]),
        Scenario(
            name: "a token inside a url= parameter", paths: ["/echo?next=%2Fcallback%3Faccess_token%3Dabcdef123456&page=2"],
            clientSecrets: ["abcdef123456"]),
        Scenario(
            name: "a login, then the token the server returned", paths: ["/login", "/bearer"],
            clientSecrets: ["correct-horse-battery"], serverSecrets: [Self.loginToken],
            firstBody: #"{"user":"ada","password":"correct-horse-battery"}"#),
    ]

    /// The token `/login` makes for ada's password.
    static let loginToken =
        "tok-" + String(UInt64(bitPattern: Int64("ada:correct-horse-battery".utf8.reduce(5381) { ($0 &* 33) &+ Int($1) })), radix: 16)

    /// Runs `scenario` through `session` in `style`; after `/login`, `/bearer` carries the token it returned.
    static func run(_ scenario: Scenario, base: String, on session: URLSession, style: FetchStyle) async throws -> [Fetched] {
        var results: [Fetched] = []
        var token: String?
        for (index, path) in scenario.paths.enumerated() {
            var request = URLRequest(url: try #require(URL(string: base + path)))
            if index == 0, let body = scenario.firstBody {
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = Data(body.utf8)
            }
            if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
            let fetched = await Fetch.run(request, on: session, style: style)
            if path == "/login" {
                token = (try? JSONSerialization.jsonObject(with: fetched.body) as? [String: Any])?["access_token"] as? String
            }
            results.append(fetched)
        }
        return results
    }

    static func session(style: FetchStyle, storage: HTTPCookieStorage, tape: Tape?) throws -> URLSession {
        let prepare: (URLSessionConfiguration) throws -> Void = { configuration in
            configuration.httpCookieStorage = storage
            tape?.configure(configuration)
        }
        if style == .delegate { return try Fetch.delegateSession(configuredBy: prepare) }
        let configuration = URLSessionConfiguration.ephemeral
        try prepare(configuration)
        return URLSession(configuration: configuration)
    }

    static func jar() -> HTTPCookieStorage {
        HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "redacted-values-\(UUID().uuidString)")
    }

    static func cookies(in storage: HTTPCookieStorage) -> [String] {
        (storage.cookies ?? []).map { "\($0.name)=\($0.value)" }.sorted()
    }

    @Test(arguments: scenarios, FetchStyle.allCases)
    func liveRecordedAndReplayedAreTheSame(_ scenario: Scenario, style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let base = server.baseURL
            let file = scratch.file("redacted.json")

            let liveJar = Self.jar()
            let live = try await Self.run(scenario, base: base, on: Self.session(style: style, storage: liveJar, tape: nil), style: style)

            let recordingJar = Self.jar()
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let recorded = try await Self.run(
                scenario, base: base, on: Self.session(style: style, storage: recordingJar, tape: recorder), style: style)
            #expect(try recorder.eject().recorded >= scenario.paths.count)
            // FoundationNetworking's own HTTP code drops the cookies a redirect sets when a delegate is
            // asked; Cassette sends them, as URLSession documents and Apple platforms do (TaskKindsTests).
            var expected = live
            if style == .delegate, scenario.paths[0].hasPrefix("/cookies/set") {
                #expect(live[0].text == #"{"cookies":{}}"#)
                #expect(recorded[0].text == #"{"cookies":{"flavour":"oatmeal","session":"abc12345"}}"#)
                expected = recorded
            }
            for (a, b) in zip(expected, recorded) { #expect(a.sameOutcome(as: b), "recorded \(b) live \(a)") }
            if expected == live { #expect(Self.cookies(in: recordingJar) == Self.cookies(in: liveJar)) }
            // The secrets went over the wire, so the file had every chance to hold them.
            let wire =
                server.received.map { $0.target + " " + String(decoding: $0.body, as: UTF8.self) }.joined(separator: "\n")
                + live.map(\.text).joined(separator: "\n")
            for secret in scenario.clientSecrets + scenario.serverSecrets {
                #expect(
                    wire.contains(secret) || wire.removingPercentEncoding?.contains(secret) == true, "\(secret) never went over the wire")
            }

            // The file holds no secret, by a grep for each and by the check-secrets scan.
            let bytes = try Data(contentsOf: file)
            for secret in scenario.clientSecrets + scenario.serverSecrets {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the cassette")
            }
            let saved = try CassetteFile.read(file).interactions
            #expect(SecretCheck.findings(in: saved) == [])
            #expect(String(decoding: bytes, as: UTF8.self).contains("[REDACTED-1]"))

            // Offline: every request matches, and the client sees its own values; a server-made
            // secret stays the placeholder the file holds for it.
            server.stop()
            let replayJar = Self.jar()
            let player = try Tape(file: file, mode: .none, environment: .tests)
            let replayed = try await Self.run(
                scenario, base: base, on: Self.session(style: style, storage: replayJar, tape: player), style: style)
            let report = try player.eject()
            #expect(report.unmatched.isEmpty, "\(report.unmatched.map(\.description))")
            #expect(!report.redactedMatches.isEmpty)
            let text = String(decoding: bytes, as: UTF8.self)
            func asReplayed(_ value: String) -> String {
                var value = value
                for secret in scenario.serverSecrets {
                    // The placeholder the file holds for the server's secret: the one after its key.
                    let placeholder =
                        text.range(of: #""access_token": "[REDACTED-"#).map { range in
                            String(text[text.index(range.upperBound, offsetBy: -"[REDACTED-".count)...].prefix { $0 != "\"" })
                        } ?? "?"
                    value = value.replacingOccurrences(of: secret, with: placeholder)
                }
                return value
            }
            for (a, b) in zip(expected, replayed) {
                #expect(b.status == a.status)
                #expect(b.url == a.url)
                #expect(b.text == asReplayed(a.text), "replayed \(b.text) live \(a.text)")
                #expect(
                    b.headers.mapValues(asReplayed).filter { $0.key != "Content-Length" }
                        == a.headers.mapValues(asReplayed).filter { $0.key != "Content-Length" })
                #expect(b.headers["Content-Length"] == String(b.body.count) || b.headers["Content-Length"] == nil)
            }
            #expect(Self.cookies(in: replayJar) == Self.cookies(in: recordingJar).map(asReplayed))
        }
    }

    /// The report says when a match relied on placeholders, and a changed field next to a
    /// redacted one still misses — the report names it and shows no value a placeholder stood for.
    @Test func aChangedFieldNextToARedactedOneStillMissesAndTheReportNamesIt() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let base = server.baseURL
            let file = scratch.file("cookies.json")
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            _ = await Fetch.get(base + "/cookies/set?flavour=oatmeal&session=abc12345", on: recorder.session)
            try recorder.eject()
            server.stop()

            let player = try Tape(file: file, mode: .none, environment: .tests)
            let matched = await Fetch.get(base + "/cookies/set?flavour=oatmeal&session=abc12345", on: player.session)
            #expect(matched.text == #"{"cookies":{"flavour":"oatmeal","session":"abc12345"}}"#)
            let missed = await Fetch.get(base + "/cookies/set?flavour=oatmeal&session=abc12345&page=2", on: player.session)
            let report = try player.eject()
            #expect(
                report.redactedMatches.map(\.description) == [
                    "#1 GET \(base)/cookies/set?flavour=[REDACTED-1]&session=[REDACTED-2] matched with 2 redacted values"
                ])
            #expect(missed.errorCode == Tape.unmatchedRequestErrorCode)
            let description = try #require(missed.errorDescription)
            #expect(description.contains(#"query parameter "page": recorded nothing, requested "2""#), "\(description)")
            #expect(!description.contains(#"query parameter "flavour""#), "\(description)")
            #expect(!description.contains("oatmeal") && !description.contains("abc12345"), "\(description)")
        }
    }

    /// A token in a redirect's Location is redacted when the redirect is not followed too.
    @Test func aTokenInTheLocationOfARedirectNotFollowedIsRedactedAndComesBack() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let base = server.baseURL
            let file = scratch.file("location.json")
            let path = "/redirect-to?url=%2Fecho%3Fapi_key%3DTOKEN123456"
            let refusing = Refusing()
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let configuration = URLSessionConfiguration.ephemeral
            recorder.configure(configuration)
            let live = try await URLSession(configuration: configuration, delegate: refusing, delegateQueue: nil).data(
                from: try #require(URL(string: base + path)))
            try recorder.eject()
            server.stop()
            #expect((live.1 as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location") == "/echo?api_key=TOKEN123456")
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            #expect(!text.contains("TOKEN123456"))
            #expect(text.contains(#""Location": "/echo?api_key=[REDACTED-1]""#), "\(text)")
            for format in ["http", "har"] {
                let converted = try #require(CassetteFormat(fileExtension: format)).encode(
                    CassetteDocument(interactions: CassetteFile.read(file).interactions))
                #expect(!String(decoding: converted, as: UTF8.self).contains("TOKEN123456"), "\(format)")
            }

            let player = try Tape(file: file, mode: .none, environment: .tests)
            let replayConfiguration = URLSessionConfiguration.ephemeral
            player.configure(replayConfiguration)
            let replayed = try await URLSession(configuration: replayConfiguration, delegate: Refusing(), delegateQueue: nil)
                .data(from: try #require(URL(string: base + path)))
            #expect((replayed.1 as? HTTPURLResponse)?.statusCode == 302)
            #expect((replayed.1 as? HTTPURLResponse)?.value(forHTTPHeaderField: "Location") == "/echo?api_key=TOKEN123456")
            // A miss shows the nested token redacted, in the error and in the report.
            let missed = await Fetch.get(base + path + "&attempt=2", on: player.session)
            #expect(missed.errorCode == Tape.unmatchedRequestErrorCode)
            #expect(missed.errorDescription?.contains("TOKEN123456") == false, "\(missed.errorDescription ?? "")")
            #expect(missed.errorDescription?.contains("api_key%3D[REDACTED]") == true, "\(missed.errorDescription ?? "")")
            let report = try player.eject()
            #expect(report.unmatched.count == 1)
            #expect(!report.unmatched.map(\.description).joined().contains("TOKEN123456"))
        }
    }

    final class Refusing: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    /// A cassette of the last release, with the plain `[REDACTED]`: still replays, placeholders
    /// standing for whatever the request has there, and nothing bound or given back.
    @Test func anOlderCassetteWithPlainPlaceholdersStillReplays() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("old.json")
            try CassetteFile.write(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(method: "GET", url: "https://api.example.com/cookies/set?flavour=[REDACTED]&session=[REDACTED]"),
                        response: .init(
                            status: 200, headers: ["Set-Cookie": "flavour=[REDACTED]; Path=/"], body: .init(text: "flavour [REDACTED]")))
                ]), to: file)
            let player = try Tape(file: file, mode: .none, environment: .tests)
            let replayed = await Fetch.get("https://api.example.com/cookies/set?flavour=oatmeal&session=abc12345", on: player.session)
            #expect(replayed.status == 200)
            #expect(replayed.text == "flavour [REDACTED]")
            let report = try player.eject()
            #expect(report.replayed == 1)
            #expect(report.redactedMatches.map(\.redactedValues) == [2])
        }
    }

    /// Through `tape.serve()`: a client outside URLSession's protocol gets the same.
    @Test func theReplayServerGivesTheClientItsValuesBackToo() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let base = server.baseURL
            let file = scratch.file("served.json")
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let live = await Fetch.get(base + "/echo?next=%2Fcallback%3Faccess_token%3Dabcdef123456&page=2", on: recorder.session)
            try recorder.eject()
            server.stop()
            #expect(live.text.contains("abcdef123456"))

            let player = try Tape(file: file, mode: .none, matching: .default.ignoringHost(), environment: .tests)
            let replayServer = try player.serve()
            let replayed = await Fetch.get(
                replayServer.baseURL.absoluteString + "/echo?next=%2Fcallback%3Faccess_token%3Dabcdef123456&page=2",
                on: URLSession(configuration: .ephemeral))
            #expect(replayed.status == 200)
            #expect(replayed.text == live.text)
            #expect(try player.eject().redactedMatches.count == 1)
        }
    }
}

extension RedactedValuesReplayTests {
    /// New secrets get new numbers: a recording added to a cassette, and `cassette redact` over
    /// one, never give a second secret a number the file already uses.
    @Test func numbersAlreadyInTheCassetteAreNeverGivenToAnotherSecret() throws {
        let recorded = Interaction(request: .init(url: "https://api.example.com/a?api_key=[REDACTED-7]"), response: .init(status: 200))
        let new = Interaction(request: .init(url: "https://api.example.com/b?api_key=another-secret-value"), response: .init(status: 200))
        let redacted = try Redaction.default.redacting([recorded, new])
        #expect(
            redacted.map(\.request.url) == [
                "https://api.example.com/a?api_key=[REDACTED-7]", "https://api.example.com/b?api_key=[REDACTED-8]",
            ])
    }
}

extension RedactedValuesReplayTests {
    /// A value the tape learned a placeholder stood for is written as that placeholder when the
    /// same tape records it again (mode newEpisodes): one secret, one placeholder, in the file.
    @Test func aLearnedValueIsRecordedAsItsPlaceholderAgain() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let base = server.baseURL
            let file = scratch.file("episodes.json")
            try CassetteFile.write(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(url: base + "/echo?step=1&api_key=[REDACTED-1]"),
                        response: .init(status: 200, body: .init(text: "one")))
                ]), to: file)
            let tape = try Tape(file: file, mode: .newEpisodes, environment: .tests)
            #expect(await Fetch.get(base + "/echo?step=1&api_key=TOKEN-LEARNED-42", on: tape.session).text == "one")
            #expect(await Fetch.get(base + "/echo?step=2&api_key=TOKEN-LEARNED-42&other=NEW-SECRET-77", on: tape.session).status == 200)
            let report = try tape.eject()
            #expect(report.replayed == 1 && report.recorded == 1)
            let saved = try CassetteFile.read(file).interactions.map(\.request.url)
            #expect(saved == [base + "/echo?step=1&api_key=[REDACTED-1]", base + "/echo?step=2&api_key=[REDACTED-1]&other=NEW-SECRET-77"])
            #expect(!String(decoding: try Data(contentsOf: file), as: UTF8.self).contains("TOKEN-LEARNED-42"))
        }
    }
}
