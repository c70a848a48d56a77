import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// `ReplayTime.shifted` on one interaction: what moves, in which form, and what stays byte for byte.
@Suite struct TimeShiftTests {
    static let recorded = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18T08:26:40Z
    static let month: TimeInterval = 30 * 86_400

    static func jwtPayload(_ token: String) -> String? {
        let part = token.split(separator: ".")[1]
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func headersCookiesJWTsAndNamedJSONPathsMoveInTheirOwnForms() throws {
        let expiry = Self.recorded.addingTimeInterval(60)
        let jwt = LoopbackRoutes.jwt(issuedAt: Self.recorded, expiresAt: expiry)
        let body = """
            {"user": "ada",  "jwt": "\(jwt)", "session": {"expires_at": "2026-11-18T08:27:40.250+01:00", "ttl": 60},
             "seen": [1795000000, 1795000000123, 1795000000.5], "note": "2026-11-18T08:26:40Z is not named"}
            """
        var interaction = Interaction(
            request: .init(url: "https://api.example/login"),
            response: .init(
                status: 200,
                headers: [
                    "Date": "Wed, 18 Nov 2026 08:26:40 GMT", "Content-Type": "application/json", "Retry-After": "120",
                    "Last-Modified": "Tue, 17 Nov 2026 08:26:40 GMT", "Expires": "0",
                    "Set-Cookie": "session=abc; Expires=Wed, 18-Nov-2026 08:27:40 GMT; Max-Age=60; Path=/",
                    "X-Token": "Bearer \(jwt)",
                ], body: .init(Data(body.utf8), contentType: "application/json")))
        interaction.recordedAt = Self.recorded
        let shift = TimeShift(seconds: Self.month, jsonPaths: ["session.expires_at", "seen[*]"].map(JSONPathPattern.init))
        let result = shift.apply(to: interaction)
        let response = try #require(result.interaction.response)
        #expect(response.headers["Date"] == "Fri, 18 Dec 2026 08:26:40 GMT")
        #expect(response.headers["Last-Modified"] == "Thu, 17 Dec 2026 08:26:40 GMT")
        #expect(response.headers["Retry-After"] == "120", "seconds are relative")
        #expect(response.headers["Expires"] == "0", "unreadable, left as it is")
        #expect(response.headers["Set-Cookie"] == "session=abc; Expires=Fri, 18-Dec-2026 08:27:40 GMT; Max-Age=60; Path=/")
        #expect(response.headers.map(\.name) == interaction.response?.headers.map(\.name), "field order kept")

        let movedJWT = LoopbackRoutes.jwt(issuedAt: Self.recorded + Self.month, expiresAt: expiry + Self.month)
        let movedPayload = try #require(Self.jwtPayload(movedJWT))
        #expect(Self.jwtPayload(String(response.headers["X-Token"]!.dropFirst("Bearer ".count))) == movedPayload)
        #expect(response.headers["X-Token"]!.hasSuffix(".c2lnbmF0dXJlLW9mLXRoZS1zZXJ2ZXI"), "the recorded signature")
        let expectedBody = """
            {"user": "ada",  "jwt": "\(movedJWT)", "session": {"expires_at": "2026-12-18T08:27:40.250+01:00", "ttl": 60},
             "seen": [1797592000, 1797592000123, 1797592000.5], "note": "2026-11-18T08:26:40Z is not named"}
            """
        #expect(response.body.text == expectedBody, "only the moved values' bytes changed")
        #expect(result.unreadable == ["Expires: 0"])
        #expect(
            result.moved == [
                "Date: Wed, 18 Nov 2026 08:26:40 GMT → Fri, 18 Dec 2026 08:26:40 GMT",
                "Last-Modified: Tue, 17 Nov 2026 08:26:40 GMT → Thu, 17 Dec 2026 08:26:40 GMT",
                "Set-Cookie session expires: Wed, 18-Nov-2026 08:27:40 GMT → Fri, 18-Dec-2026 08:27:40 GMT",
                "X-Token: a JWT's iat, exp",
                "$.jwt: a JWT's iat, exp",
                "$.session.expires_at: 2026-11-18T08:27:40.250+01:00 → 2026-12-18T08:27:40.250+01:00",
                "$.seen[0]: 1795000000 → 1797592000",
                "$.seen[1]: 1795000000123 → 1797592000123",
                "$.seen[2]: 1795000000.5 → 1797592000.5",
            ])
    }

    @Test func aNamedPathThatIsNotATimeIsListedAndKept() throws {
        let interaction = Interaction(
            request: .init(url: "https://api.example/"),
            response: .init(status: 200, body: .init(Data(#"{"expires_at":"soon","n":true}"#.utf8), contentType: "application/json")))
        let result = TimeShift(seconds: 5, jsonPaths: [JSONPathPattern("expires_at"), JSONPathPattern("n")]).apply(to: interaction)
        #expect(result.interaction == interaction)
        #expect(result.unreadable == ["$.expires_at: soon", "$.n: true"])
        #expect(result.moved.isEmpty)
    }

    @Test func aStringThatOnlyLooksLikeAJWTStays() {
        #expect(JWTClaims.moved("eyJhbGciOiJub25lIn0.eyJ4IjoxfQ.sig", by: 5, claims: ["exp"]) == nil, "no time claim")
        #expect(JWTClaims.moved("eyJ4IjoxfQ.eyJleHAiOjF9.sig", by: 5, claims: ["exp"]) == nil, "a header without alg")
        #expect(JWTClaims.moved("a.b.c", by: 5, claims: ["exp"]) == nil)
        #expect(
            JWTClaims.moved("eyJhbGciOiJub25lIn0.eyJleHAiOjF9.sig", by: 5, claims: ["exp"])?.token == "eyJhbGciOiJub25lIn0.eyJleHAiOjZ9.sig"
        )
    }
}
