import CassetteTestSupport
import CassetteTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every behaviour the OHHTTPStubs and URLMock READMEs document (`../shared/reference`), each
/// asserting what the caller received.
@Suite struct StubTests {
    static func request(_ url: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: url) ?? URL(fileURLWithPath: "/"))
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        return request
    }

    // MARK: OHHTTPStubs: conditions and responses

    /// "Stub all requests with some given NSData".
    @Test func aStubCanAnswerEveryRequestWithData() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.always, response: .data(Data("Hello World!".utf8)))
        for url in ["https://a.example/x", "http://b.example:8080/y?z=1"] {
            let fetched = await Fetch.get(url, on: stubbed.session)
            #expect(fetched.status == 200)
            #expect(fetched.text == "Hello World!")
            #expect(fetched.url == url)
        }
    }

    /// "Stub only requests to your WebService": other hosts reach the real world (here, the
    /// loopback server) with `unmatched: .passThrough`, OHHTTPStubs' default.
    @Test func onlyTheStubbedHostIsStubbedAndOthersGoLive() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let stubbed = StubSession(unmatched: .passThrough)
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.host("api.example.com"), response: .json(["stubbed": true]))
        let stub = await Fetch.get("https://API.example.com/anything", on: stubbed.session)
        #expect(stub.text == #"{"stubbed":true}"#)
        #expect(stub.headers["Content-Type"] == "application/json")
        let live = await Fetch.get(server.baseURL + "/status/418", on: stubbed.session)
        #expect(live.status == 418 && live.text == "status 418")
        #expect(server.received.map(\.target) == ["/status/418"])
    }

    /// Without `.passThrough`, a request no stub answers fails and says so: no network in tests.
    @Test func anUnstubbedRequestFailsClearly() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.path("/known"), name: "known", response: .text("ok"))
        let fetched = await Fetch.get("https://a.example/unknown", on: stubbed.session)
        #expect(fetched.errorCode == .resourceUnavailable)
        #expect(
            fetched.errorDescription == "Cassette: no stub matches GET https://a.example/unknown (1 stub installed). Add a stub whose "
                + "condition this request meets, or create the StubSession with unmatched: .passThrough to let such requests reach the network."
        )
    }

    /// `responseWithFile:statusCode:headers:` and `responseWithFile:contentType:`.
    @Test func aFileIsTheBodyWithTheGivenStatusAndHeaders() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("wsresponse.json")
            try Data(#"{"from":"file"}"#.utf8).write(to: file)
            let stubbed = StubSession()
            defer { stubbed.invalidate() }
            stubbed.stubs.add(
                .pathSuffix(".json"), response: .file(file, status: 201, headers: ["Content-Type": "text/json", "X-Fixture": "1"]))
            stubbed.stubs.add(.path("/missing"), response: .file(scratch.file("nope.json")))
            let fetched = await Fetch.get("https://ws.example/v1/users.json", on: stubbed.session)
            #expect(fetched.status == 201)
            #expect(fetched.headers["Content-Type"] == "text/json" && fetched.headers["X-Fixture"] == "1")
            #expect(fetched.text == #"{"from":"file"}"#)
            let missing = await Fetch.get("https://ws.example/missing", on: stubbed.session)
            #expect(missing.errorCode == .fileDoesNotExist)
            #expect(missing.errorDescription == "Cassette stub: cannot read the response file \(scratch.file("nope.json").path)")
        }
    }

    /// `responseWithJSONObject:statusCode:headers:`, and an `Encodable` value.
    @Test func jsonObjectsAndEncodableValuesBecomeJSONBodies() async throws {
        struct User: Codable, Sendable, Equatable {
            var id: Int
            var name: String
        }
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.path("/object"), response: .json(object: ["b": [1, 2], "a": "x"], status: 202, headers: ["X-Kind": "object"]))
        stubbed.stubs.add(.path("/user"), response: .json(User(id: 42, name: "Ada")))
        stubbed.stubs.add(.path("/bad"), response: .json(object: ["date": Date()]))
        let object = await Fetch.get("https://a.example/object", on: stubbed.session)
        #expect(object.status == 202 && object.headers["X-Kind"] == "object" && object.headers["Content-Type"] == "application/json")
        #expect(object.text == #"{"a":"x","b":[1,2]}"#)
        let user = await Fetch.get("https://a.example/user", on: stubbed.session)
        #expect(try JSONDecoder().decode(User.self, from: user.body) == User(id: 42, name: "Ada"))
        let bad = await Fetch.get("https://a.example/bad", on: stubbed.session)
        #expect(bad.errorCode == .cannotParseResponse)
    }

    /// OHHTTPStubsResponse+HTTPMessage: a response saved with `curl -i`.
    @Test func aRawHTTPMessageFileIsTheWholeResponse() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("teapot.http")
            try Data(
                "HTTP/1.1 418 I'm a teapot\r\nContent-Type: text/plain\r\nX-Brew: green\r\nContent-Length: 99\r\n\r\nshort and stout\n".utf8
            ).write(to: file)
            let stubbed = StubSession()
            defer { stubbed.invalidate() }
            stubbed.stubs.add(.path("/tea"), response: .httpMessage(file: file))
            stubbed.stubs.add(.path("/broken"), response: .httpMessage(Data("not a response".utf8)))
            let fetched = await Fetch.get("https://a.example/tea", on: stubbed.session)
            #expect(fetched.status == 418)
            #expect(fetched.headers["X-Brew"] == "green")
            #expect(fetched.text == "short and stout\n", "every byte after the blank line, whatever Content-Length says")
            let broken = await Fetch.get("https://a.example/broken", on: stubbed.session)
            #expect(broken.errorCode == .cannotParseResponse)
            #expect(
                broken.errorDescription?.hasPrefix(
                    "Cassette stub: the HTTP message cannot be read: <cassette>:1:1: error: status: expected a status line") == true)
        }
    }

    /// "Simulate a down network": `responseWithError:` with `NSURLErrorNotConnectedToInternet`.
    @Test(arguments: FetchStyle.allCases)
    func anErrorReachesTheCallerAsThatURLError(style: FetchStyle) async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.host("api.example.com"), response: .error(.notConnectedToInternet))
        let session = style == .delegate ? Fetch.delegateSession(configuredBy: stubbed.configure) : stubbed.session
        let fetched = await Fetch.run(Self.request("https://api.example.com/feed"), on: session, style: style)
        #expect(fetched.errorCode == .notConnectedToInternet)
        #expect(fetched.status == nil)
    }

    // MARK: OHHTTPStubs: timing

    /// "Set request and response time": the head after requestTime, the body in pieces during
    /// responseTime, all of it after requestTime + responseTime.
    @Test(.timingIsolated, arguments: FetchStyle.allCases)
    func requestTimeDelaysTheHeadAndResponseTimeSpreadsTheBody(style: FetchStyle) async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        let body = Data(repeating: 0x61, count: 2000)
        stubbed.stubs.add(.path("/slow"), response: .data(body).requestTime(0.3, responseTime: 0.4))
        let session = style == .delegate ? Fetch.delegateSession(configuredBy: stubbed.configure) : stubbed.session
        let started = Date()
        let fetched = await Fetch.run(Self.request("https://a.example/slow"), on: session, style: style)
        let elapsed = Date().timeIntervalSince(started)
        #expect(fetched.body == body)
        #expect(elapsed >= 0.65 && elapsed < 1.6 * TimingIsolation.scale, "took \(elapsed) s")
        if style == .delegate {
            let head = try #require(fetched.headAfter)
            #expect(head >= 0.25 && head < 0.65 * TimingIsolation.scale, "head after \(head) s")
            #expect(fetched.pieces.count > 1, "the body arrives in pieces: \(fetched.pieces)")
        }
    }

    /// "Using download speed instead of responseTime", with the README's presets.
    @Test(.timingIsolated)
    func downloadSpeedSetsTheTimeFromTheBodySize() async throws {
        #expect(
            [DownloadSpeed.gprs, .edge, .threeG, .threeGPlus, .wifi].map(\.bytesPerSecond) == [7, 16, 400, 900, 1500].map { $0 * 1024 })
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        // 8 KB at 16 KB/s: half a second.
        stubbed.stubs.add(.path("/edge"), response: .data(Data(count: 8 * 1024)).downloadSpeed(.edge))
        let started = Date()
        let fetched = await Fetch.get("https://a.example/edge", on: stubbed.session)
        let elapsed = Date().timeIntervalSince(started)
        #expect(fetched.body.count == 8 * 1024)
        #expect(elapsed >= 0.45 && elapsed < 1.4 * TimingIsolation.scale, "took \(elapsed) s")
    }

    /// A stub slower than the request's timeout times out, as live.
    @Test(.timingIsolated)
    func aStubSlowerThanTheTimeoutTimesOut() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.always, response: .text("late").requestTime(2, responseTime: 0))
        var request = Self.request("https://a.example/late")
        request.timeoutInterval = 0.3
        let started = Date()
        let fetched = await Fetch.run(request, on: stubbed.session, style: .async)
        #expect(fetched.errorCode == .timedOut)
        #expect(Date().timeIntervalSince(started) < 1.5 * TimingIsolation.scale)
    }

    // MARK: OHHTTPStubs: stacking, removal, names, activation

    /// "The last added stub having priority": stubs are asked newest first, and a stub whose
    /// condition fails lets older ones answer.
    @Test func theStubAddedLastWinsAndOthersStillAnswerTheRest() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.always, name: "fallback", response: .text("fallback"))
        stubbed.stubs.add(.pathPrefix("/users"), name: "users", response: .text("users"))
        stubbed.stubs.add(.path("/users/me"), name: "me", response: .text("me"))
        #expect(await Fetch.get("https://a.example/users/me", on: stubbed.session).text == "me")
        #expect(await Fetch.get("https://a.example/users/42", on: stubbed.session).text == "users")
        #expect(await Fetch.get("https://a.example/other", on: stubbed.session).text == "fallback")
    }

    /// `removeStub:`, `removeLastStub`, `removeAllStubs`, `allStubs` and names.
    @Test func stubsAreNamedListedAndRemoved() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        let first = stubbed.stubs.add(.path("/a"), name: "Stub for a", response: .text("a"))
        stubbed.stubs.add(.path("/b"), name: "Stub for b", response: .text("b"))
        stubbed.stubs.add(.method("DELETE"), response: .text("c"))
        #expect(stubbed.stubs.all.map(\.name) == ["Stub for a", "Stub for b", nil])
        #expect(
            stubbed.stubs.all.map(\.description) == [
                #"stub "Stub for a" (path /a)"#, #"stub "Stub for b" (path /b)"#, "stub (method DELETE)",
            ])
        #expect(stubbed.stubs.removeLast()?.name == nil)
        #expect(stubbed.stubs.remove(first))
        #expect(!stubbed.stubs.remove(first), "already removed")
        #expect(await Fetch.get("https://x.example/a", on: stubbed.session).errorCode == .resourceUnavailable)
        #expect(await Fetch.get("https://x.example/b", on: stubbed.session).text == "b")
        stubbed.stubs.removeAll()
        #expect(stubbed.stubs.all.isEmpty)
        #expect(await Fetch.get("https://x.example/b", on: stubbed.session).errorCode == .resourceUnavailable)
    }

    /// `onStubActivation:` hears each stubbed request and the stub; the response builder runs
    /// only for the stub that answers (OHHTTPStubs v1's `onlyCheck`, without the flag).
    @Test func theActivationCallbackHearsEachStubbedRequest() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        let heard = Locked<[String]>([])
        let built = Locked(0)
        stubbed.stubs.add(.path("/never"), name: "never") { _ in
            built.withLock { $0 += 1 }
            return .text("never")
        }
        stubbed.stubs.add(.path("/feed"), name: "feed") { _ in .text("feed") }
        stubbed.stubs.onActivation { request, stub in
            heard.withLock { $0.append("\(request.url?.absoluteString ?? "") stubbed by \(stub.name ?? "?")") }
        }
        _ = await Fetch.get("https://a.example/feed", on: stubbed.session)
        _ = await Fetch.get("https://a.example/feed?page=2", on: stubbed.session)
        #expect(heard.withLock { $0 } == ["https://a.example/feed stubbed by feed", "https://a.example/feed?page=2 stubbed by feed"])
        #expect(built.withLock { $0 } == 0)
    }

    /// `setEnabled:forSessionConfiguration:`: stubs reach the sessions made from a configuration
    /// prepared with `configure(_:)`, and no other.
    @Test func stubsReachOnlyTheSessionsTheyWereGiven() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.always, response: .text("stubbed"))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-Client": "tests"]
        stubbed.configure(configuration)
        let own = URLSession(configuration: configuration)
        #expect(await Fetch.get(server.baseURL + "/status/200", on: own).text == "stubbed")
        let plain = URLSession(configuration: .ephemeral)
        #expect(await Fetch.get(server.baseURL + "/status/200", on: plain).text == "status 200")
    }

    // MARK: Conditions

    struct ConditionCase: Sendable, CustomTestStringConvertible {
        var name: String
        var condition: StubCondition
        var matching: URLRequest
        var notMatching: URLRequest
        var testDescription: String { name }
    }

    static let conditionCases: [ConditionCase] = {
        let r = { (url: String, method: String, headers: [String: String], body: String?) in
            request(url, method: method, headers: headers, body: body.map { Data($0.utf8) })
        }
        let json = ["Content-Type": "application/json"]
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        return [
            .init(
                name: "method", condition: .method("post"), matching: r("https://a.example/", "POST", [:], nil),
                notMatching: r("https://a.example/", "GET", [:], nil)),
            .init(
                name: "scheme", condition: .scheme("HTTP"), matching: r("http://a.example/", "GET", [:], nil),
                notMatching: r("https://a.example/", "GET", [:], nil)),
            .init(
                name: "host", condition: .host("api.example.com"), matching: r("https://API.example.com/x", "GET", [:], nil),
                notMatching: r("https://api.example.org/x", "GET", [:], nil)),
            .init(
                name: "path", condition: .path("/a b"), matching: r("https://a.example/a%20b?q=1", "GET", [:], nil),
                notMatching: r("https://a.example/a%20b/c", "GET", [:], nil)),
            .init(
                name: "path prefix", condition: .pathPrefix("/v2/"), matching: r("https://a.example/v2/users", "GET", [:], nil),
                notMatching: r("https://a.example/v1/users", "GET", [:], nil)),
            .init(
                name: "path suffix", condition: .pathSuffix(".png"), matching: r("https://a.example/i/logo.png", "GET", [:], nil),
                notMatching: r("https://a.example/i/logo.svg", "GET", [:], nil)),
            .init(
                name: "path regex", condition: .pathMatches(#"^/users/\d+$"#), matching: r("https://a.example/users/42", "GET", [:], nil),
                notMatching: r("https://a.example/users/ada", "GET", [:], nil)),
            .init(
                name: "URL pattern", condition: .url("https://api.example.com:8443/users/:id"),
                matching: r("https://api.example.com:8443/users/7?x=1", "GET", [:], nil),
                notMatching: r("https://api.example.com/users/7", "GET", [:], nil)),
            .init(
                name: "query present", condition: .queryParameter("page"), matching: r("https://a.example/?page=", "GET", [:], nil),
                notMatching: r("https://a.example/?pages=1", "GET", [:], nil)),
            .init(
                name: "query equal", condition: .queryParameter("tag", equals: "b"),
                matching: r("https://a.example/?tag=a&tag=b", "GET", [:], nil), notMatching: r("https://a.example/?tag=a", "GET", [:], nil)),
            .init(
                name: "header present", condition: .header("x-trace"), matching: r("https://a.example/", "GET", ["X-Trace": "1"], nil),
                notMatching: r("https://a.example/", "GET", [:], nil)),
            .init(
                name: "header equal", condition: .header("Accept", equals: "application/json"),
                matching: r("https://a.example/", "GET", ["Accept": "application/json"], nil),
                notMatching: r("https://a.example/", "GET", ["Accept": "text/html"], nil)),
            .init(
                name: "JSON equal by meaning",
                condition: .jsonBody(equals: ["person": ["name": "John Doe", "age": 47]] as [String: [String: AnyCodableValue]]),
                matching: r("https://a.example/", "POST", json, #"{ "person": { "age": 47.0, "name": "John Doe" } }"#),
                notMatching: r("https://a.example/", "POST", json, #"{"person":{"name":"John Doe","age":48}}"#)),
            .init(
                name: "JSON containing", condition: .jsonBody(containing: ["kind": "order"]),
                matching: r("https://a.example/", "POST", json, #"{"kind":"order","items":[1]}"#),
                notMatching: r("https://a.example/", "POST", json, #"{"kind":"refund"}"#)),
            .init(
                name: "form equal", condition: .formBody(equals: ["name": "Ada Lovelace", "lang": "en"]),
                matching: r("https://a.example/", "POST", form, "lang=en&name=Ada+Lovelace"),
                notMatching: r("https://a.example/", "POST", form, "lang=en&name=Ada+Lovelace&x=1")),
            .init(
                name: "form containing", condition: .formBody(containing: ["lang": "en"]),
                matching: r("https://a.example/", "POST", form, "lang=en&x=1"), notMatching: r("https://a.example/", "POST", [:], "lang=en")
            ),
            .init(
                name: "custom", condition: .custom { $0.url?.lastPathComponent == "7" },
                matching: r("https://a.example/n/7", "GET", [:], nil), notMatching: r("https://a.example/n/8", "GET", [:], nil)),
            .init(
                name: "and", condition: .method("GET") && .path("/a"), matching: r("https://a.example/a", "GET", [:], nil),
                notMatching: r("https://a.example/a", "PUT", [:], nil)),
            .init(
                name: "or", condition: .path("/a") || .path("/b"), matching: r("https://a.example/b", "GET", [:], nil),
                notMatching: r("https://a.example/c", "GET", [:], nil)),
            .init(
                name: "not", condition: !.header("Authorization"), matching: r("https://a.example/", "GET", [:], nil),
                notMatching: r("https://a.example/", "GET", ["Authorization": "x"], nil)),
        ]
    }()

    /// Each condition holds for its example and not for its counter-example, when sent through a
    /// session (the stub answers, or the request is refused).
    @Test(arguments: conditionCases)
    func eachConditionMatchesWhatItSays(_ example: ConditionCase) async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(example.condition, response: .text("stubbed"))
        #expect(await Fetch.run(example.matching, on: stubbed.session, style: .async).text == "stubbed")
        #expect(await Fetch.run(example.notMatching, on: stubbed.session, style: .async).errorCode == .resourceUnavailable)
    }

    /// Request bodies from `httpBodyStream` are read for conditions too (Apple-platform code often
    /// uploads through streams).
    @Test func bodyConditionsSeeStreamedBodies() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.jsonBody(containing: ["id": 1]), response: .text("seen"))
        var request = Self.request("https://a.example/", method: "POST", headers: ["Content-Type": "application/json"])
        request.httpBodyStream = InputStream(data: Data(#"{"id":1,"x":2}"#.utf8))
        #expect(await Fetch.run(request, on: stubbed.session, style: .async).text == "seen")
    }

    // MARK: URLMock

    /// "Pattern-Matching Mock Requests": the parameters and the request's JSON reach the builder;
    /// the pattern is restricted to POST.
    @Test func patternParametersReachTheResponseBuilder() async throws {
        struct Follow: Codable, Sendable { var follower_id: Int }
        struct Followed: Codable, Sendable, Equatable {
            var follower_id: Int
            var following_id: Int
        }
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.add(.method("POST") && .url("https://api.example.com/accounts/:accountID/followers")) { request in
            guard let follow = try? request.decodeJSONBody(as: Follow.self), let account = Int(request.parameters["accountID"] ?? "") else {
                return .text("bad request", status: 400)
            }
            return .json(Followed(follower_id: follow.follower_id, following_id: account))
        }
        let post = Self.request(
            "https://api.example.com/accounts/1234/followers", method: "POST",
            headers: ["Content-Type": "application/json"], body: Data(#"{"follower_id":99}"#.utf8))
        let fetched = await Fetch.run(post, on: stubbed.session, style: .async)
        #expect(try JSONDecoder().decode(Followed.self, from: fetched.body) == Followed(follower_id: 99, following_id: 1234))
        let get = await Fetch.get("https://api.example.com/accounts/1234/followers", on: stubbed.session)
        #expect(get.errorCode == .resourceUnavailable)
    }

    /// "expectMockHTTPPostRequestWithURL:requestJSON:responseStatusCode:responseJSON:" and verify.
    @Test func anExpectedRequestIsServedOnceAndVerified() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.expect(
            .method("POST") && .path("/person") && .jsonBody(equals: ["person": ["name": "John Doe"]]),
            name: "create John", response: .json(["person": ["id": 1, "name": "John Doe"]] as [String: [String: AnyCodableValue]]))
        let post = Self.request(
            "https://api.example.com/person", method: "POST",
            headers: ["Content-Type": "application/json"], body: Data(#"{"person":{"name":"John Doe"}}"#.utf8))
        #expect(await Fetch.run(post, on: stubbed.session, style: .async).text == #"{"person":{"id":1,"name":"John Doe"}}"#)
        try stubbed.verify()
        // Served once: the same request again is unexpected.
        #expect(await Fetch.run(post, on: stubbed.session, style: .async).errorCode == .resourceUnavailable)
        #expect(throws: StubVerificationError(unmet: [], unexpected: ["POST https://api.example.com/person"])) { try stubbed.verify() }
    }

    /// `verifyWithError:` reports, in one message, expectations never met and requests nobody
    /// expected; `reset` (here `removeAll()`) starts over.
    @Test func verifyListsUnmetExpectationsAndUnexpectedRequestsInOneMessage() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.expect(.method("GET") && .path("/a"), name: "GET a", response: .text("a"))
        stubbed.stubs.expect(.path("/b"), response: .text("b"))
        stubbed.stubs.expect(.path("/c"), name: "GET c", response: .text("c"))
        #expect(await Fetch.get("https://x.example/b", on: stubbed.session).text == "b")
        _ = await Fetch.get("https://x.example/z?q=1", on: stubbed.session)
        do {
            try stubbed.verify()
            Issue.record("verify passed")
        } catch {
            #expect(
                error.description == """
                    Cassette stubs: verification failed.
                    Expected but never requested (2):
                      - expected request "GET a" (method GET and path /a)
                      - expected request "GET c" (path /c)
                    Requested but not expected (1):
                      - GET https://x.example/z?q=1
                    """)
        }
        stubbed.stubs.removeAll()
        try stubbed.verify()
    }

    /// `checksHeadersWhenMatching`: only a request with exactly these header fields matches.
    @Test func headerCheckingMatchesOnlyExactlyTheseHeaders() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        stubbed.stubs.expect(.path("/strict"), headers: ["Accept": "application/json", "X-Version": "2"], response: .text("exact"))
        let extra = Self.request("https://a.example/strict", headers: ["Accept": "application/json", "X-Version": "2", "X-Extra": "1"])
        #expect(await Fetch.run(extra, on: stubbed.session, style: .async).errorCode == .resourceUnavailable)
        let missing = Self.request("https://a.example/strict", headers: ["Accept": "application/json"])
        #expect(await Fetch.run(missing, on: stubbed.session, style: .async).errorCode == .resourceUnavailable)
        let exact = Self.request("https://a.example/strict", headers: ["accept": "application/json", "X-Version": "2"])
        #expect(await Fetch.run(exact, on: stubbed.session, style: .async).text == "exact")
    }

    /// URLMock's bodies: strings, form parameters and data, and its chunked responder "returning
    /// data in chunks with a delay between each chunk".
    @Test(.timingIsolated)
    func chunksArriveWithTheirDelayAndBodiesComeInEveryForm() async throws {
        let stubbed = StubSession()
        defer { stubbed.invalidate() }
        let parts = [Data("one,".utf8), Data("two,".utf8), Data("three".utf8)]
        stubbed.stubs.add(.path("/chunks"), response: .chunks(parts, delay: 0.2, headers: ["Content-Type": "text/plain"]))
        stubbed.stubs.add(.path("/string"), response: .text("a string"))
        stubbed.stubs.add(.path("/form"), response: .form(["b": "two words", "a": "1"]))
        stubbed.stubs.add(.path("/data"), response: .data(Data([0, 1, 2, 255])))
        let delegateSession = Fetch.delegateSession(configuredBy: stubbed.configure)
        let chunked = await Fetch.run(Self.request("https://a.example/chunks"), on: delegateSession, style: .delegate)
        #expect(chunked.text == "one,two,three")
        #expect(chunked.pieces == [4, 4, 5], "each chunk arrives as it is sent")
        let elapsed = try #require(chunked.completedAfter)
        #expect(elapsed >= 0.35 && elapsed < 1.3 * TimingIsolation.scale, "two delays of 0.2 s: \(elapsed) s")
        let whole = await Fetch.get("https://a.example/chunks", on: stubbed.session)
        #expect(whole.text == "one,two,three")
        #expect(await Fetch.get("https://a.example/string", on: stubbed.session).text == "a string")
        let form = await Fetch.get("https://a.example/form", on: stubbed.session)
        #expect(form.text == "a=1&b=two%20words")
        #expect(form.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(await Fetch.get("https://a.example/data", on: stubbed.session).body == Data([0, 1, 2, 255]))
    }

    // MARK: Scopes

    /// Global stubs answer every session that goes through Cassette, after its own stubs.
    @Test func globalStubsAnswerEverySessionAfterItsOwn() async throws {
        let host = "global-\(UUID().uuidString.lowercased()).example"
        let global = Stubs.global.add(.host(host), name: "global", response: .text("global"))
        defer { Stubs.global.remove(global) }
        let first = StubSession()
        let second = StubSession()
        defer {
            first.invalidate()
            second.invalidate()
        }
        second.stubs.add(.path("/own"), response: .text("own"))
        #expect(await Fetch.get("https://\(host)/x", on: first.session).text == "global")
        #expect(await Fetch.get("https://\(host)/own", on: second.session).text == "own")
        #expect(await Fetch.get("https://\(host)/x", on: second.session).text == "global")
    }

    /// The `.stubs` trait gives the test a stub session with these stubs.
    @Test(.stubs { $0.add(.path("/feed"), response: .error(.notConnectedToInternet)) })
    func theTraitGivesTheTestItsStubs() async throws {
        let stubbed = try #require(StubSession.current)
        #expect(await Fetch.get("https://a.example/feed", on: stubbed.session).errorCode == .notConnectedToInternet)
    }

    /// The trait records an unmet expectation as an issue of the test.
    @Test func theTraitReportsUnmetExpectations() async throws {
        try await withKnownIssue {
            try await StubsTrait(unmatched: .fail) { $0.expect(.path("/never"), name: "never", response: .text("x")) }
                .provideScope(for: Test.current!, testCase: nil) {}
        } matching: { issue in
            issue.comments.map(\.rawValue) == [
                "Cassette stubs: verification failed.\nExpected but never requested (1):\n  - expected request \"never\" (path /never)"
            ]
        }
    }

    /// `withStubSession` (XCTest and other code) verifies and invalidates.
    @Test func withStubSessionVerifiesAndInvalidates() async throws {
        let text = try await withStubSession { stubbed in
            #expect(StubSession.current === stubbed)
            stubbed.stubs.expect(.path("/once"), response: .text("once"))
            return await Fetch.get("https://a.example/once", on: stubbed.session).text
        }
        #expect(text == "once")
        #expect(StubSession.current == nil)
        do {
            // The synchronous form, for XCTest's synchronous tests.
            try withStubSession { (stubbed: StubSession) -> Void in stubbed.stubs.expect(.path("/never"), response: .text("x")) }
            Issue.record("verification passed")
        } catch {
            #expect(error as? StubVerificationError == StubVerificationError(unmet: ["expected request (path /never)"], unexpected: []))
        }
    }
}

/// A JSON scalar for heterogeneous literals in conditions: `["name": "Ada", "age": 47]`.
enum AnyCodableValue: Encodable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case string(String)
    case int(Int)
    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .int(value) }
    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .int(let number): try container.encode(number)
        }
    }
}
