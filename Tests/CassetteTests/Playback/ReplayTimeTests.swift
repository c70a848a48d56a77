import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A cassette replayed a month after it was recorded: a login that sets a cookie and hands out a
/// JWT, both valid for 60 s, then a request that needs the cookie. Under the default the cookie
/// has expired and the second request misses, with the reason; with `.shifted` it replays as it
/// did the day it was recorded.
@Suite struct ReplayTimeTests {
    static let month: TimeInterval = 30 * 86_400

    /// What the tests replay: the login and the account page, recorded from the loopback server
    /// with the server's time `at`, then made a month older — every time in the file, and each
    /// `recordedAt` — as if recorded a month ago.
    static func recordAMonthOldCassette(_ scratch: ScratchTape, at: Date) async throws {
        let recording = try scratch.tape(mode: .once, matching: .default.includingHeaders("Cookie"))
        let login = await Fetch.get(scratch.url("/sign-in?at=\(Int(at.timeIntervalSince1970))"), on: recording.session)
        #expect(login.status == 200)
        #expect(await Fetch.get(scratch.url("/account"), on: recording.session).text == "account of ada")
        #expect(try recording.eject().recorded == 2)

        var document = try JSONCassetteCodec.decode(Data(contentsOf: scratch.file))
        let old = at.addingTimeInterval(-month)
        let replacements = [
            (LoopbackRoutes.httpDate(at), LoopbackRoutes.httpDate(old)),
            (LoopbackRoutes.httpDate(at + 60), LoopbackRoutes.httpDate(old + 60)),
            (LoopbackRoutes.jwt(issuedAt: at, expiresAt: at + 60), LoopbackRoutes.jwt(issuedAt: old, expiresAt: old + 60)),
            (LoopbackRoutes.isoSeconds(at + 60), LoopbackRoutes.isoSeconds(old + 60)),
        ]
        for index in document.interactions.indices {
            document.interactions[index].recordedAt = document.interactions[index].recordedAt.map { $0 - month }
            guard var response = document.interactions[index].response else { continue }
            response.headers.transformValues { _, value in
                replacements.reduce(value) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
            }
            if let text = response.body.text, text.contains("jwt") {
                response.body = .init(
                    Data(replacements.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }.utf8), contentType: "application/json")
            }
            document.interactions[index].response = response
        }
        try JSONCassetteCodec.encode(document).write(to: scratch.file)
        let aged = try String(contentsOf: scratch.file, encoding: .utf8)
        #expect(aged.contains("Expires=\(LoopbackRoutes.httpDate(old + 60))"), "the cassette is a month old")
    }

    static func session(_ style: FetchStyle, of tape: Tape) throws -> URLSession {
        if style == .delegate { return Fetch.delegateSession(configuredBy: tape.configure) }
        let configuration = URLSessionConfiguration.ephemeral
        tape.configure(configuration)
        return URLSession(configuration: configuration)
    }

    static func jwtExpiry(in body: Data) throws -> Date {
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let token = try #require(object["jwt"] as? String)
        var payload = String(token.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(
            of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        let decoded = try #require(Data(base64Encoded: payload))
        let claims = try #require(try JSONSerialization.jsonObject(with: decoded) as? [String: Any])
        return Date(timeIntervalSince1970: try #require(claims["exp"] as? Double))
    }

    @Test(arguments: FetchStyle.allCases)
    func aMonthOldLoginMissesAsRecordedAndReplaysShifted(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let at = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            try await Self.recordAMonthOldCassette(scratch, at: at)
            let login = scratch.url("/sign-in?at=\(Int(at.timeIntervalSince1970))")
            scratch.server.stop()

            // As recorded: the cookie expired a month ago, so the session drops it and the account
            // request goes out without it.
            let recorded = try scratch.tape(mode: .none, matching: .default.includingHeaders("Cookie"))
            let session = try Self.session(style, of: recorded)
            #expect(await Fetch.get(login, on: session, style: style).status == 200)
            let miss = await Fetch.get(scratch.url("/account"), on: session, style: style)
            #expect(miss.errorCode == .resourceUnavailable)
            #expect(
                miss.errorDescription?.contains(
                    "Note: the cookie session set by interaction #1 expired on \(LoopbackRoutes.httpDate(at - Self.month + 60)), so the "
                        + "session no longer sends it; replay with time shifted (Tape.Options(time: .shifted), --time shifted), or record "
                        + "the cassette again") == true, "\(miss.errorDescription ?? "")")
            let recordedAt = try #require(recorded.recordedAt)
            #expect(abs(recordedAt.timeIntervalSince(at - Self.month)) < 30)
            let tapeNow = recorded.now
            #expect(tapeNow >= recordedAt && tapeNow < recordedAt + 30, "the first replay's recordedAt plus the time since")
            #expect(abs(tapeNow.timeIntervalSince(at - Self.month)) < 30, "the recording's clock: \(tapeNow)")
            _ = try recorded.eject()

            // Shifted: the recording moves to now.
            let shifted = try scratch.tape(
                mode: .none, matching: .default.includingHeaders("Cookie"),
                options: Tape.Options(time: .shifted.addingJSONPaths("expires_at")))
            let configured = try Self.session(style, of: shifted)
            let answer = await Fetch.get(login, on: configured, style: style)
            let now = Date()
            #expect(answer.status == 200)
            let date = try #require(answer.headers["Date"].flatMap { HTTPDate.parse($0) })
            #expect(abs(date.timeIntervalSince(now)) < 30, "Date is today's: \(date)")
            let exp = try Self.jwtExpiry(in: answer.body)
            #expect(exp > now && exp < now + 90, "the JWT's exp is a minute ahead: \(exp)")
            let body = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            let expiresAt = try #require((body["expires_at"] as? String).flatMap { ISO8601Time.parse($0) })
            #expect(expiresAt > now && expiresAt < now + 90)
            #expect(await Fetch.get(scratch.url("/account"), on: configured, style: style).text == "account of ada")
            let report = try shifted.eject()
            #expect(report.replayed == 2 && report.unmatched.isEmpty)
            #expect(
                report.movedTimes.contains {
                    $0.hasPrefix("#1 Set-Cookie session expires: \(LoopbackRoutes.httpDate(at - Self.month + 60)) → ")
                })
            #expect(report.movedTimes.contains("#1 $.jwt: a JWT's iat, exp"))
            #expect(shifted.now.timeIntervalSince(Date()) < 5, "shifted: the real time")
        }
    }

    /// The cookie the shifted login set is in the configuration's `HTTPCookieStorage` with its
    /// shifted expiry.
    @Test func theShiftedCookieIsStoredWithItsShiftedExpiry() async throws {
        try await withScratchTape { scratch in
            let at = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            try await Self.recordAMonthOldCassette(scratch, at: at)
            let tape = try scratch.tape(mode: .none, matching: .default.includingHeaders("Cookie"), options: Tape.Options(time: .shifted))
            let configuration = URLSessionConfiguration.ephemeral
            tape.configure(configuration)
            let session = URLSession(configuration: configuration)
            #expect(await Fetch.get(scratch.url("/sign-in?at=\(Int(at.timeIntervalSince1970))"), on: session).status == 200)
            let cookies = configuration.httpCookieStorage?.cookies(for: try #require(URL(string: scratch.url("/account")))) ?? []
            let cookie = try #require(cookies.first { $0.name == "session" })
            let expires = try #require(cookie.expiresDate)
            #expect(expires > Date() && expires < Date() + 90, "\(expires)")
        }
    }

    /// A time in the request (`since=…`, computed by the code under test from its own clock) is
    /// matched by ignoring it: the chosen way (README, "Time"), with either `ReplayTime`.
    @Test(arguments: [ReplayTime.recorded, .shifted])
    func aTimeInTheRequestIsIgnoredByARule(time: ReplayTime) async throws {
        try await withScratchTape { scratch in
            let monthAgo = Date() - Self.month
            var feed = Interaction(
                request: .init(url: "https://api.example/feed?since=\(LoopbackRoutes.isoSeconds(monthAgo - 3_600))&limit=5"),
                response: .init(status: 200, body: .init(text: "five items")))
            feed.recordedAt = monthAgo
            try JSONCassetteCodec.encode(CassetteDocument(interactions: [feed, feed])).write(to: scratch.file)
            let strict = try scratch.tape(mode: .none, options: Tape.Options(time: time))
            let live = "https://api.example/feed?since=\(LoopbackRoutes.isoSeconds(Date() - 3_600))&limit=5"
            #expect(await Fetch.get(live, on: strict.session).errorCode == .resourceUnavailable, "compared as is, the times differ")
            let ignoring = try scratch.tape(
                mode: .none, matching: .default.ignoringQueryParameters("since"), options: Tape.Options(time: time))
            #expect(await Fetch.get(live, on: ignoring.session).text == "five items")
        }
    }

    /// A stub session's clock is the real time until a test sets it.
    @Test func aStubSessionsClockIsTheRealTimeUnlessSet() {
        let stubs = StubSession()
        defer { stubs.invalidate() }
        #expect(abs(stubs.now.timeIntervalSinceNow) < 5)
        stubs.setClock { Date(timeIntervalSince1970: 1_795_000_000) }
        #expect(stubs.now == Date(timeIntervalSince1970: 1_795_000_000))
    }

    /// While recording, the tape's clock is the real time.
    @Test func whileRecordingTheClockIsTheRealTime() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            #expect(abs(tape.now.timeIntervalSinceNow) < 5)
            _ = await Fetch.get(scratch.url("/status/200"), on: tape.session)
            #expect(abs(tape.now.timeIntervalSinceNow) < 5)
        }
    }
}
