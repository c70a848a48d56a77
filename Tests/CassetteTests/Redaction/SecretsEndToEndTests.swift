import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// With the default rules, every kind of credential a client sends or a server echoes stays out
/// of every cassette format and out of every error and report Cassette produces, and the
/// recording still replays.
@Suite struct SecretsEndToEndTests {
    /// One secret per kind of place; each long and distinct, with characters percent-encoding changes.
    static let secrets: [String: String] = [
        "api_key query": "qk_7Fh2_Lp9.Zx4~Rt8",
        "access_token query": "at_Q2w_E4r+T6y/U8i",
        "X-Api-Key": "hk_Vb3n_M5q7W9e1R2t",
        "Api-Key": "ak_Kd8s_F6g4H2j0L1z",
        "X-Auth-Token": "xt_Pl0o_K9i8J7u6Y5h",
        "Authorization": "bt_Mn5b_V4c3X2z1A0s",
        "Cookie": "ck_Rf4t_G5y6H7u8J9i",
        "Proxy-Authorization password": "pw_Ol9i_K8u7J6y5H4g",
        "JSON password": "jp_Zx1c_V2b3N4m5Q6w",
        "JSON client_secret": "cs_Ew3r_T4y5U6i7O8p",
        "JSON refresh_token": "rt_As2d_F3g4H5j6K7l",
        "JSON id_token": "it_Yh7u_J8i9K0o1L2p",
        "form password": "fp_Qa1z_W2s3X4e5D6c",
        "form client_secret": "fc_Rf5t_G6y7H8u9J0i",
    ]

    static func requests(_ base: String) -> [URLRequest] {
        let s = secrets
        func url(_ text: String) -> URL { URL(string: base + text)! }
        var headers = URLRequest(
            url: url("/echo?api_key=\(s["api_key query"]!.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&page=2"))
        headers.setValue(s["X-Api-Key"], forHTTPHeaderField: "X-Api-Key")
        headers.setValue(s["Api-Key"], forHTTPHeaderField: "Api-Key")
        headers.setValue(s["X-Auth-Token"], forHTTPHeaderField: "X-Auth-Token")
        headers.setValue("Bearer \(s["Authorization"]!)", forHTTPHeaderField: "Authorization")
        headers.setValue("session=\(s["Cookie"]!)", forHTTPHeaderField: "Cookie")
        headers.setValue(
            "Basic " + Data("ada:\(s["Proxy-Authorization password"]!)".utf8).base64EncodedString(),
            forHTTPHeaderField: "Proxy-Authorization")
        var json = URLRequest(url: url("/echo?kind=json"))
        json.httpMethod = "POST"
        json.setValue("application/json", forHTTPHeaderField: "Content-Type")
        json.httpBody = Data(
            #"{"user":{"name":"ada","password":"\#(s["JSON password"]!)"},"client_secret":"\#(s["JSON client_secret"]!)","tokens":[{"refreshToken":"\#(s["JSON refresh_token"]!)","ID_TOKEN":"\#(s["JSON id_token"]!)"}]}"#
                .utf8)
        var form = URLRequest(url: url("/echo?kind=form"))
        form.httpMethod = "POST"
        form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        form.httpBody = Data(
            "user=ada&password=\(s["form password"]!.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&client-secret=\(s["form client_secret"]!)"
                .utf8)
        let reencoded = URLRequest(
            url: url("/reencode?access_token=\(s["access_token query"]!.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"))
        return [headers, json, form, reencoded]
    }

    /// The secret as it might be spelled anywhere: raw, percent-encoded in both cases, JSON-escaped, base64.
    static func spellings(of secret: String) -> [String] {
        let encoded = secret.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? secret
        return [
            secret, encoded, encoded.lowercased(), secret.replacingOccurrences(of: "/", with: "\\/"),
            Data(secret.utf8).base64EncodedString(),
        ]
    }

    static func leaks(in text: String) -> [String] {
        secrets.flatMap { name, secret in spellings(of: secret).filter { text.contains($0) }.map { "\(name) as \($0)" } }
    }

    static func errorText(_ error: Error?) -> String {
        guard let error = error as NSError? else { return "" }
        return error.localizedDescription + " " + error.userInfo.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + " \(error)"
    }

    @Test(arguments: CassetteFormat.allCases, FetchStyle.allCases)
    func noCredentialReachesAFileAnErrorOrAReport(format: CassetteFormat, style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("secrets.\(format.fileExtension)")

            let recording = try Tape(file: file, mode: .once, environment: .tests)
            let recordingSession = style == .delegate ? Fetch.delegateSession(configuredBy: recording.configure) : recording.session
            var live: [Fetched] = []
            for request in Self.requests(server.baseURL) {
                live.append(await Fetch.run(request, on: recordingSession, style: style))
            }
            let recorded = try recording.eject()
            #expect(live.allSatisfy { $0.status == 200 }, "\(live)")
            // The server echoed them, so the recording had every chance to keep them.
            let echoed = live.map(\.text).joined(separator: "\n") + live.map { $0.headers.description }.joined()
            #expect(Self.leaks(in: echoed).count >= Self.secrets.count, "the echoes are in the live answers")

            // A deliberate miss: the same credentials on a path that was never recorded.
            let replaying = try Tape(file: file, mode: .none, environment: .tests)
            let replaySession = style == .delegate ? Fetch.delegateSession(configuredBy: replaying.configure) : replaying.session
            var replayed: [Fetched] = []
            for request in Self.requests(server.baseURL) {
                replayed.append(await Fetch.run(request, on: replaySession, style: style))
            }
            var missed = Self.requests(server.baseURL)[0]
            missed.url = URL(string: missed.url!.absoluteString.replacingOccurrences(of: "/echo", with: "/never-recorded"))
            let missedThroughStyle = await Fetch.run(missed, on: replaySession, style: style)
            var missError: Error?
            do { _ = try await replaying.session.data(for: missed) } catch { missError = error }
            let report = try replaying.eject()
            // The same status, final URL and header names as live; bodies differ exactly where the
            // server echoed a credential (the README says what the defaults change on replay).
            for (index, request) in Self.requests(server.baseURL).enumerated() {
                #expect(
                    replayed[index].status == live[index].status && replayed[index].url == live[index].url
                        && Set(replayed[index].headers.keys) == Set(live[index].headers.keys),
                    "\(request.url!.path): live \(live[index]), replayed \(replayed[index])")
            }
            #expect((missError as? URLError)?.code == Tape.unmatchedRequestErrorCode)
            #expect(missedThroughStyle.errorCode == Tape.unmatchedRequestErrorCode)

            // A replay that times out names the request redacted too.
            let slow = try Tape(
                file: file, mode: .none, options: .init(allowsRepeatedReplays: true, latency: .fixed(firstByte: 5, duration: 5)),
                environment: .tests)
            var hurried = Self.requests(server.baseURL)[0]
            hurried.timeoutInterval = 0.2
            var timeoutError: Error?
            do { _ = try await slow.session.data(for: hurried) } catch { timeoutError = error }
            _ = try slow.eject()
            #expect((timeoutError as? URLError)?.code == .timedOut)
            #expect(
                timeoutError?.localizedDescription.contains("/echo?api_key=[REDACTED]&page=2 timed out") == true,
                "\(Self.errorText(timeoutError))")

            let fileText = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            let produced = [
                Self.errorText(missError), Self.errorText(timeoutError), missedThroughStyle.errorDescription ?? "",
                report.unmatched.map(\.description).joined(separator: "\n"), recorded.warnings.joined(separator: "\n"),
                report.warnings.joined(separator: "\n"),
            ].joined(separator: "\n")
            #expect(Self.leaks(in: fileText) == [], "in \(file.lastPathComponent)")
            #expect(Self.leaks(in: produced) == [], "in the error and reports: \(produced)")
            #expect(fileText.contains("[REDACTED-1]"))
        }
    }

    @Test func aSecretNoRuleNamesIsFoundBeforeTheSaveAndCanStopIt() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZGEiLCJpYXQiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg"
            var request = URLRequest(url: URL(string: server.baseURL + "/status/200")!)
            request.setValue(jwt, forHTTPHeaderField: "X-Session-Handle")

            let warned = scratch.file("warned.json")
            let tape = try Tape(file: warned, mode: .once, options: Tape.Options().quiet, environment: .tests)
            _ = await Fetch.run(request, on: tape.session, style: .async)
            let report = try tape.eject()
            #expect(report.saved)
            #expect(
                report.warnings == [
                    "\(warned.path): possible secret, saved: GET \(server.baseURL)/status/200: JWT in "
                        + "request.headers.X-Session-Handle (\(jwt.count) characters). \(SecretCheck.advice)"
                ])

            let refused = scratch.file("refused.json")
            try Data("{\"version\": 1, \"interactions\": []}\n".utf8).write(to: refused)
            let before = try Data(contentsOf: refused)
            let strict = try Tape(file: refused, mode: .all, options: .init(secretCheck: .failSave), environment: .tests)
            _ = await Fetch.run(request, on: strict.session, style: .async)
            #expect(
                throws: CassetteError.suspectedSecrets(
                    file: refused.path,
                    findings: [
                        "GET \(server.baseURL)/status/200: JWT in request.headers.X-Session-Handle (\(jwt.count) characters)"
                    ])
            ) { try strict.eject() }
            #expect(try Data(contentsOf: refused) == before)
            #expect(!CassetteError.suspectedSecrets(file: refused.path, findings: []).description.contains(jwt))
        }
    }
}
