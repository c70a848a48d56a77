import CassetteFormats
import Foundation
import Testing

/// An interaction's challenges in each format: written as documented, read back the same, and a
/// challenge written wrongly is an error that says where and what was expected.
@Suite struct ChallengeCodecTests {
    static let denied = Interaction.Challenge(
        method: "HTTPBasic", realm: "api", answer: .useCredential,
        response: .init(status: 401, headers: ["WWW-Authenticate": #"Basic realm="api""#], body: .init(text: "denied")))

    static let document = CassetteDocument(interactions: [
        Interaction(
            request: .init(method: "GET", url: "https://api.example.com/me"),
            challenges: [
                denied,
                .init(
                    method: "HTTPDigest", answer: .cancelAuthenticationChallenge,
                    response: .init(status: 407, headers: ["Proxy-Authenticate": "Digest"], body: .init(Data([0, 1, 2])))),
            ],
            response: .init(status: 407, body: .init(text: "HTTP/1.1 200 OK")))
    ])

    /// The HTTP-message form: a `# challenge:` line per challenge, and each challenged response
    /// before the final one; a body that is not text (or holds a status line) in base64. The final
    /// response's body ends only at the next `###`, so a status line in it stays text.
    @Test func theHTTPMessageFormWritesEachChallengeBeforeTheResponse() throws {
        let written = String(decoding: try HTTPMessageCassetteCodec.encode(Self.document), as: UTF8.self)
        #expect(
            written == """
                # version: 1

                ###
                # challenge: useCredential HTTPBasic "api"
                # challenge: cancelAuthenticationChallenge HTTPDigest base64
                GET https://api.example.com/me HTTP/1.1

                HTTP/1.1 401 Unauthorized
                WWW-Authenticate: Basic realm="api"

                denied

                HTTP/1.1 407 Proxy Authentication Required
                Proxy-Authenticate: Digest

                AAEC

                HTTP/1.1 407 Proxy Authentication Required

                HTTP/1.1 200 OK


                """)
        #expect(try HTTPMessageCassetteCodec.decode(Data(written.utf8)) == Self.document)
    }

    @Test(arguments: [CassetteFormat.json, .httpMessages, .har])
    func everyFormatReadsBackWhatItWrote(_ format: CassetteFormat) throws {
        let written = try format.encode(Self.document)
        #expect(try format.decode(written, file: "c") == Self.document)
    }

    @Test func theJSONFormIsAListBeforeTheResponse() throws {
        let written = String(
            decoding: try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(method: "GET", url: "https://api.example.com/me"), challenges: [Self.denied],
                        response: .init(status: 200))
                ])), as: UTF8.self)
        #expect(
            written.contains(
                """
                      "challenges": [
                        {
                          "method": "HTTPBasic",
                          "realm": "api",
                          "answer": "useCredential",
                          "response": {
                            "status": 401,
                            "headers": { "WWW-Authenticate": "Basic realm=\\"api\\"" },
                            "body": { "text": "denied" }
                          }
                        }
                      ],
                      "response": { "status": 200 }
                """), "\(written)")
    }

    /// Each mistake, with where it is and what was expected.
    @Test(arguments: [
        (
            #"{ "method": "HTTPBasic", "answer": "useCredentail", "response": { "status": 401 } }"#,
            #"c.json:1:x: error: interactions[0].challenges[0].answer: unknown answer "useCredentail" (did you mean "useCredential"?): expected one of "useCredential", "performDefaultHandling", "cancelAuthenticationChallenge", "rejectProtectionSpace""#
        ),
        (
            #"{ "method": "Basic", "answer": "useCredential", "response": { "status": 401 } }"#,
            #"c.json:1:x: error: interactions[0].challenges[0].method: unknown authentication method "Basic": expected one of "HTTPBasic", "HTTPDigest", "NTLM", "Negotiate", "HTMLForm", "Default""#
        ),
        (
            #"{ "method": "HTTPBasic", "answer": "useCredential", "response": { "status": 200 } }"#,
            #"c.json:1:x: error: interactions[0].challenges[0].response.status: a challenge is a 401 or 407 response, found 200"#
        ),
        (
            #"{ "method": "HTTPBasic", "answer": "useCredential", "response": { "status": 401, "url": "https://a.example/" } }"#,
            #"c.json:1:x: error: interactions[0].challenges[0].response.url: a challenged response comes from the request's URL: remove its "url""#
        ),
        (
            #"{ "method": "HTTPBasic", "answer": "useCredential" }"#,
            #"c.json:1:x: error: interactions[0].challenges[0]: missing required field "response" (expected the challenged 401 or 407 response)"#
        ),
    ])
    func aWrongChallengeInJSONIsNamed(challenge: String, expected: String) throws {
        let text =
            #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "https://a.example/" }, "challenges": [ "#
            + challenge + #" ], "response": { "status": 200 } } ] }"#
        let error = try #require(throws: CassetteFormatError.self) { try JSONCassetteCodec.decode(Data(text.utf8), file: "c.json") }
        let line = try #require(error.problems.first).diagnostic(file: "c.json")
        // The column depends on the place; the message is what this pins.
        let shown = line.replacingOccurrences(of: #":1:[0-9]+:"#, with: ":1:x:", options: .regularExpression)
        #expect(error.problems.count == 1)
        #expect(shown == expected)
    }

    @Test(arguments: [
        (
            "# challenge: useCredentail HTTPBasic \"api\"\nGET https://a.example/ HTTP/1.1\n\nHTTP/1.1 401 Unauthorized\n\nHTTP/1.1 200 OK\n",
            #"c.http:4:14: error: interactions[0].challenges[0].answer: unknown answer "useCredentail" (did you mean "useCredential"?): expected one of "useCredential", "performDefaultHandling", "cancelAuthenticationChallenge", "rejectProtectionSpace""#
        ),
        (
            "# challenge: useCredential HTTPBasic api\nGET https://a.example/ HTTP/1.1\n\nHTTP/1.1 401 Unauthorized\n\nHTTP/1.1 200 OK\n",
            #"c.http:4:14: error: interactions[0].challenges[0].realm: expected the realm as a JSON string like "api", found "api""#
        ),
        (
            "# challenge: useCredential HTTPBasic\nGET https://a.example/ HTTP/1.1\n",
            ##"c.http:4:1: error: interactions[0].challenges[0].response: "# challenge:" line 1 needs its response (a status line like "HTTP/1.1 401 Unauthorized") after the request"##
                + "\n"
                + ####"c.http:3:1: error: interactions[0]: expected a response (a status line like "HTTP/1.1 200 OK") or an error=… on the "###" line, or both"####
        ),
        (
            "# challenge: useCredential HTTPBasic\nGET https://a.example/ HTTP/1.1\n\nHTTP/1.1 403 Forbidden\n\nHTTP/1.1 200 OK\n",
            #"c.http:7:1: error: interactions[0].challenges[0].response.status: a challenge is a 401 or 407 response, found 403"#
        ),
    ])
    func aWrongChallengeInHTTPMessagesIsNamed(text: String, expected: String) throws {
        let file = "# version: 1\n\n###\n" + text
        let error = try #require(throws: CassetteFormatError.self) { try HTTPMessageCassetteCodec.decode(Data(file.utf8), file: "c.http") }
        #expect(error.problems.map { $0.diagnostic(file: "c.http") }.joined(separator: "\n") == expected)
    }
}
