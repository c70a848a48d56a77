import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Secrets never reach a cassette file, and redacted cassettes still replay.
@Suite struct RedactionTests {
    static let token = "S3CRET-LOOPBACK-TOKEN"
    static let cookie = "C00KIE-LOOPBACK-VALUE"
    static let proxyPassword = "PR0XY-PASSW0RD"
    static let proxyCredentials = Data("ada:\(proxyPassword)".utf8).base64EncodedString()

    static func request(_ base: String, _ path: String) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: base + path)))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("pref=\(cookie)", forHTTPHeaderField: "Cookie")
        request.setValue("Basic \(proxyCredentials)", forHTTPHeaderField: "Proxy-Authorization")
        return request
    }

    /// The session of the issue: a bearer token, cookies both ways, a server that echoes them.
    @Test func secretsSentAndReceivedNeverReachTheFileAndTheSameRequestsStillReplay() async throws {
        try await withScratchTape(cassette: "secrets.json") { scratch in
            let (file, server) = (scratch.file, scratch.server)
            let paths = ["/bearer", "/echo", "/session", "/echo?after=session"]
            let matching = RequestMatching.default.includingHeaders("Authorization", "Cookie")

            let recording = try Tape(file: file, mode: .once, matching: matching, environment: .tests)
            var live: [Fetched] = []
            for path in paths {
                live.append(await Fetch.run(try Self.request(server.baseURL, path), on: recording.session, style: .async))
            }
            #expect(try recording.eject().recorded == 4)
            // The server did send the secrets back, so the file had every chance to hold them.
            #expect(live[0].text == #"{"authenticated":true,"token":"\#(Self.token)"}"#)
            #expect(live[1].text.contains(Self.cookie) && live[1].text.contains(Self.proxyCredentials))
            #expect(live[2].text == "your session is \(LoopbackRoutes.sessionSecret)")

            let bytes = try Data(contentsOf: file)
            let secrets = [
                Self.token, Self.cookie, Self.proxyPassword, Self.proxyCredentials, "ada:\(Self.proxyPassword)",
                LoopbackRoutes.sessionSecret,
            ]
            for secret in secrets {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the cassette")
            }
            let document = try JSONCassetteCodec.decode(bytes, file: file.path)
            let bearer = try #require(document.interactions.first)
            // Each secret has a placeholder of its own, the same wherever it appears.
            #expect(bearer.request.headers["Authorization"] == "Bearer [REDACTED-1]")
            #expect(bearer.request.headers["Cookie"] == "pref=[REDACTED-2]")
            #expect(bearer.request.headers["Proxy-Authorization"] == "Basic [REDACTED-3]")
            #expect(bearer.response?.body.text == #"{"authenticated":true,"token":"[REDACTED-1]"}"#)
            let session = document.interactions[2]
            #expect(session.response?.headers["Set-Cookie"] == "sid=[REDACTED-6]; Path=/; HttpOnly")
            #expect(session.response?.body.text == "your session is [REDACTED-6]")
            server.stop()

            // Offline, the same requests (with their real secrets) match the redacted recordings.
            let replaying = try Tape(file: file, mode: .none, matching: matching, environment: .tests)
            for (index, path) in paths.enumerated() {
                let replayed = await Fetch.run(try Self.request(server.baseURL, path), on: replaying.session, style: .async)
                #expect(replayed.status == 200, "\(path): \(replayed)")
                // The client gets its own secrets back where the file holds their placeholders; the
                // session secret the server made stays a placeholder (nothing live ever stood for it),
                // in the response that set it and in the cookie the client then sent back.
                let expected = live[index].text.replacingOccurrences(of: LoopbackRoutes.sessionSecret, with: "[REDACTED-6]")
                #expect(replayed.text == expected, "\(path)")
            }
            let report = try replaying.eject()
            #expect(report.replayed == 4)
            #expect(report.unmatched.isEmpty)
        }
    }

    /// A query parameter is found however its name is spelt (case, `-` and `_`, percent-encoded)
    /// and wherever it stands; a query without one is left exactly as it was.
    @Test(arguments: [
        ("?page=1&API-Key=K1", "?page=1&API-Key=[REDACTED]"),
        ("?Api_Key=K1&page=1", "?Api_Key=[REDACTED]&page=1"),
        ("?%61pi_key=K1", "?%61pi_key=[REDACTED]"),
        ("?api+key=K1&apikey=K2", "?api+key=K1&apikey=[REDACTED]"),
        ("?apikeys=K1&xapikey=K2&api_key", "?apikeys=K1&xapikey=K2&api_key"),
        ("?q=api_key%3DK1&page=api_key#api_key=K1", "?q=api_key%3DK1&page=api_key#api_key=K1"),
    ])
    func aQueryParameterIsFoundHoweverItsNameIsSpelt(_ query: String, _ expected: String) throws {
        let redactor = try Redactor(.default.redactingQueryParameters("api_key"))
        let request = Interaction.Request(method: "GET", url: "https://api.example.com/items" + query)
        #expect(redactor.shown(request).url == "https://api.example.com/items" + expected)
    }

    /// What each optional rule removes, exactly, and the copies of it elsewhere in the interaction.
    @Test func eachRuleRemovesItsValueAndEveryCopyOfIt() throws {
        let redactor = try Redactor(
            .default
                .redactingHeaders("X-Api-Key")
                .redactingQueryParameters("api_key")
                .redactingJSONPaths("password", "cards[*].number")
                .redactingFormFields("pin")
                .redactingBodyMatches(#"ref=(R[0-9]{6})"#))
        let interaction = Interaction(
            request: .init(
                method: "POST", url: "https://api.example.com/pay?api_key=KEY-123456&page=2",
                headers: ["Content-Type": "application/json", "X-Api-Key": "HEADER-KEY-9", "Accept": "application/json"],
                body: .init(
                    Data(#"{"user":"ada","password":"hunter2-long","cards":[{"number":"4111111111111111","cvc":"123"}]}"#.utf8),
                    contentType: "application/json")),
            response: .init(
                status: 200, headers: ["Content-Type": "text/plain", "X-Echo": "key was KEY-123456"],
                body: .init(text: "card 4111111111111111 paid, ref=R123456, password hunter2-long, header HEADER-KEY-9")))
        let stored = try #require(redactor.forRecording(interaction))
        // Numbered in the order the rules find them: header fields, the URL, the body; then the response.
        #expect(stored.request.url == "https://api.example.com/pay?api_key=[REDACTED-2]&page=2")
        #expect(stored.request.headers["X-Api-Key"] == "[REDACTED-1]")
        #expect(stored.request.headers["Accept"] == "application/json")
        #expect(stored.request.body.text == #"{"user":"ada","password":"[REDACTED-3]","cards":[{"number":"[REDACTED-4]","cvc":"123"}]}"#)
        #expect(stored.response?.headers["X-Echo"] == "key was [REDACTED-2]")
        #expect(stored.response?.body.text == "card [REDACTED-4] paid, ref=[REDACTED-5], password [REDACTED-3], header [REDACTED-1]")

        let form = Interaction(
            request: .init(
                method: "POST", url: "https://api.example.com/login",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: .init(text: "user=ada&pin=99%2F12%2B34&remember=1")),
            response: .init(status: 200, body: .init(text: "welcome; pin 99/12+34 accepted")))
        let storedForm = try #require(redactor.forRecording(form))
        #expect(storedForm.request.body.text == "user=ada&pin=[REDACTED-6]&remember=1")
        #expect(storedForm.response?.body.text == "welcome; pin [REDACTED-6] accepted")
    }

    @Test func shortValuesAreRemovedOnlyWhereARuleFoundThem() throws {
        let redactor = try Redactor(.default)
        let interaction = Interaction(
            request: .init(url: "https://example.com/prefs", headers: ["Cookie": "theme=dark; id=1"]),
            response: .init(
                status: 200, headers: ["Set-Cookie": "theme=dark; Path=/, lang=en; Expires=Wed, 21 Oct 2026 07:28:00 GMT"],
                body: .init(text: "dark mode, 1 user")))
        let stored = try #require(redactor.forRecording(interaction))
        #expect(stored.request.headers["Cookie"] == "theme=[REDACTED]; id=[REDACTED]")
        #expect(
            stored.response?.headers["Set-Cookie"] == "theme=[REDACTED]; Path=/, lang=[REDACTED]; Expires=Wed, 21 Oct 2026 07:28:00 GMT")
        #expect(stored.response?.body.text == "dark mode, 1 user")
    }

    @Test func basicCredentialsAreRemovedDecodedToo() throws {
        let redactor = try Redactor(.default)
        let credentials = Data("ada:correct-horse".utf8).base64EncodedString()
        let interaction = Interaction(
            request: .init(url: "https://example.com/basic-auth/ada/correct-horse", headers: ["Authorization": "Basic \(credentials)"]),
            response: .init(status: 200, body: .init(text: #"{"user":"ada","password":"correct-horse"}"#)))
        let stored = try #require(redactor.forRecording(interaction))
        #expect(stored.request.url == "https://example.com/basic-auth/ada/[REDACTED-3]")
        #expect(stored.request.headers["Authorization"] == "Basic [REDACTED-1]")
        #expect(stored.response?.body.text == #"{"user":"ada","password":"[REDACTED-3]"}"#)
        // The live request matches its recording, each placeholder standing for its value.
        let rules = RequestMatching.default.includingHeaders("Authorization")
        let match = PlaceholderPattern.match(
            RequestKey(stored.request, rules: rules), RequestKey(interaction.request, rules: rules), bound: [:])
        #expect(match?.bindings == ["[REDACTED-1]": credentials, "[REDACTED-3]": "correct-horse"])
        #expect(match?.count == 2)
    }

    @Test func redactingTwiceChangesNothingMore() throws {
        let redactor = try Redactor(.default.redactingQueryParameters("token").redactingJSONPaths("secret"))
        let interaction = Interaction(
            request: .init(
                method: "POST", url: "https://example.com/a?token=abcdefgh",
                headers: ["Authorization": "Bearer abcdefgh-ijkl", "Content-Type": "application/json"],
                body: .init(Data(#"{"secret":"s-e-c-r-e-t"}"#.utf8), contentType: "application/json")),
            response: .init(status: 200, headers: ["Set-Cookie": "sid=0123456789; Path=/"], body: .init(text: "sid 0123456789")))
        let once = try #require(redactor.forRecording(interaction))
        #expect(redactor.forRecording(once) == once)
        #expect(redactor.forMatching(once.request).request == once.request)
    }

    /// VCR's `filter_sensitive_data`: the file holds the placeholder, the caller gets the secret.
    @Test func placeholdersStandForASecretInTheFileAndGiveItBackOnReplay() async throws {
        try await withScratchTape(cassette: "placeholders.json") { scratch in
            let (file, server) = (scratch.file, scratch.server)
            let secret = "PLACEHOLDER-SECRET-42"
            let options = Tape.Options(redaction: .default.replacing(secret, with: "<API_KEY>").replacing("", with: "<UNSET>"))
            func request() throws -> URLRequest {
                var request = URLRequest(url: try #require(URL(string: server.baseURL + "/echo?key=\(secret)")))
                request.setValue(secret, forHTTPHeaderField: "X-Api-Key")
                return request
            }

            let recording = try Tape(
                file: file, mode: .once, matching: .default.includingHeaders("X-Api-Key"), options: options, environment: .tests)
            let live = await Fetch.run(try request(), on: recording.session, style: .async)
            #expect(live.text.contains(secret))
            try recording.eject()
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data(secret.utf8)) == nil)
            let stored = try #require(try JSONCassetteCodec.decode(bytes).interactions.first)
            #expect(stored.request.url == server.baseURL + "/echo?key=<API_KEY>")
            #expect(stored.request.headers["X-Api-Key"] == "<API_KEY>")
            #expect(stored.response?.body.text?.contains(#""x-api-key":"<API_KEY>""#) == true)
            server.stop()

            let replaying = try Tape(
                file: file, mode: .none, matching: .default.includingHeaders("X-Api-Key"), options: options, environment: .tests)
            let replayed = await Fetch.run(try request(), on: replaying.session, style: .async)
            #expect(replayed.status == 200)
            #expect(replayed.body == live.body)
            #expect(try replaying.eject().unmatched.isEmpty)
        }
    }

    /// A placeholder wins over a rule that covers the same place: the default rules redact
    /// `Authorization`, but a token with a placeholder is written as `Bearer <TOKEN>` and replays
    /// as the token itself.
    @Test func aPlaceholderWinsOverTheRuleForTheSameField() async throws {
        try await withScratchTape(cassette: "placeholder-token.json") { scratch in
            let (file, server) = (scratch.file, scratch.server)
            let token = "T0KEN-WITH-A-PLACEHOLDER"
            let options = Tape.Options(redaction: .default.replacing(token, with: "<TOKEN>"))
            func request() throws -> URLRequest {
                var request = URLRequest(url: try #require(URL(string: server.baseURL + "/bearer")))
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                return request
            }
            let matching = RequestMatching.default.includingHeaders("Authorization")
            let recording = try Tape(file: file, mode: .once, matching: matching, options: options, environment: .tests)
            let live = await Fetch.run(try request(), on: recording.session, style: .async)
            #expect(live.text == #"{"authenticated":true,"token":"\#(token)"}"#)
            try recording.eject()
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data(token.utf8)) == nil)
            let stored = try #require(try JSONCassetteCodec.decode(bytes).interactions.first)
            #expect(stored.request.headers["Authorization"] == "Bearer <TOKEN>")
            #expect(stored.response?.body.text == #"{"authenticated":true,"token":"<TOKEN>"}"#)
            server.stop()

            let replaying = try Tape(file: file, mode: .none, matching: matching, options: options, environment: .tests)
            let replayed = await Fetch.run(try request(), on: replaying.session, style: .async)
            #expect(replayed.body == live.body)
            #expect(try replaying.eject().unmatched.isEmpty)
        }
    }

    @Test func hooksRewriteWhatIsRecordedAndWhatIsReplayed() async throws {
        try await withScratchTape(cassette: "hooks.json") { scratch in
            let (file, server) = (scratch.file, scratch.server)
            let recordingOptions = Tape.Options(beforeRecord: { interaction in
                // Leave out the teapot, and keep no ETag.
                if interaction.response?.status == 418 { return nil }
                var interaction = interaction
                interaction.response?.headers["Etag"] = nil
                return interaction
            })
            let recording = try Tape(file: file, mode: .once, options: recordingOptions, environment: .tests)
            let teapot = await Fetch.get(server.baseURL + "/status/418", on: recording.session)
            let headers = await Fetch.get(server.baseURL + "/headers", on: recording.session)
            #expect(teapot.status == 418 && headers.headers["Etag"] == "\"v1\"", "the caller gets the live response")
            let report = try recording.eject()
            #expect(report.recorded == 1)
            let stored = try JSONCassetteCodec.decode(try Data(contentsOf: file)).interactions
            #expect(stored.map(\.request.url) == [server.baseURL + "/headers"])
            #expect(stored.first?.response?.headers.contains("Etag") == false)
            server.stop()

            let playbackOptions = Tape.Options(beforeReplay: { interaction in
                var interaction = interaction
                interaction.response?.status = 503
                return interaction
            })
            let replaying = try Tape(file: file, mode: .none, options: playbackOptions, environment: .tests)
            #expect(await Fetch.get(server.baseURL + "/headers", on: replaying.session).status == 503)
            try replaying.eject()
            #expect(try JSONCassetteCodec.decode(try Data(contentsOf: file)).interactions.first?.response?.status == 200)
        }
    }

    /// A cassette written before a rule existed: its recorded requests are redacted before they
    /// are compared, as live ones are.
    @Test func aCassetteRecordedBeforeARuleExistedStillMatches() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("old.json")
            try Data(
                """
                {"version":1,"interactions":[{"request":{"method":"GET","url":"https://api.example.com/me?token=OLD-TOKEN-1",\
                "headers":{"Authorization":"Bearer OLD-TOKEN-1"}},"response":{"status":200,"body":"me"}}]}
                """.utf8
            ).write(to: file)
            let tape = try Tape(
                file: file, mode: .none, matching: .default.includingHeaders("Authorization"),
                options: .init(redaction: .default.redactingQueryParameters("token")), environment: .tests)
            var request = URLRequest(url: try #require(URL(string: "https://api.example.com/me?token=NEW-TOKEN-2")))
            request.setValue("Bearer NEW-TOKEN-2", forHTTPHeaderField: "Authorization")
            let fetched = await Fetch.run(request, on: tape.session, style: .async)
            #expect(fetched.status == 200 && fetched.text == "me")
            #expect(try tape.eject().unmatched.isEmpty)
        }
    }

    @Test func anInvalidBodyPatternStopsTheTapeFromOpening() throws {
        try withScratchTape { scratch in
            #expect {
                try Tape(
                    file: scratch.file("x.json"), options: .init(redaction: .default.redactingBodyMatches("ref=(")), environment: .tests)
            } throws: { error in
                guard case CassetteError.invalidRedactionPattern("ref=(", _) = error else { return false }
                return "\(error)".hasPrefix("the redaction pattern \"ref=(\" is not a regular expression (")
                    && "\(error)".hasSuffix("); fix it in Redaction.redactingBodyMatches")
            }
        }
    }

    /// Names compare lowercased without `_` and `-`, ASCII or not.
    @Test func namesCompareLowercasedWithoutUnderscoresAndHyphens() {
        #expect(Redaction.comparable("X-Api_KEY") == "xapikey")
        #expect(Redaction.comparable("access_token") == "accesstoken")
        #expect(Redaction.comparable("") == "")
        #expect(Redaction.comparable("Clé-Privée_Ü") == "cléprivéeü")
    }

    /// A tape with the default rules reuses them: the comparison sees every rule, so a tape that
    /// changes any one of them gets its own.
    @Test func theDefaultRulesAreReusedOnlyWhenEveryRuleIsTheSame() {
        let base = Redaction.default
        #expect(base.hasTheSameRules(as: .default))
        var changed: [Redaction] = []
        for index in 0..<8 {
            var other = base
            switch index {
            case 0: other.headers.append("X-Other")
            case 1: other.queryParameters.append("other")
            case 2: other.jsonPaths.append("$.other")
            case 3: other.jsonKeys.append("other")
            case 4: other.formFields.append("other")
            case 5: other.bodyPatterns.append("other")
            case 6: other.placeholders.append(.init(secret: "s3cret-value", placeholder: "<S>"))
            default: other.minimumEchoLength += 1
            }
            changed.append(other)
        }
        for (index, other) in changed.enumerated() { #expect(!other.hasTheSameRules(as: base), "rule \(index)") }
        // Every stored rule is one of the eight above: a new one must join the comparison.
        #expect(Mirror(reflecting: base).children.count == 8)
    }
}
