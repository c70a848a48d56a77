import Cassette
import CassetteServer
import CassetteTestSupport
import CassetteTools
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recording from a real server nobody here wrote: httpbin, started by `.ci/run`.
///
/// Two phases in two test runs, with the server stopped in between:
/// - `CASSETTE_HTTPBIN_PHASE=record`: records the requests below from `CASSETTE_HTTPBIN_URL`
///   into `CASSETTE_HTTPBIN_WORKDIR/httpbin.json`, and writes what the caller received live to
///   `live.json` next to it.
/// - `CASSETTE_HTTPBIN_PHASE=replay`: replays the cassette in mode `none` and asserts that the
///   caller receives exactly what it received live: status, header fields, bytes, final URL.
///
/// Without `CASSETTE_HTTPBIN_PHASE` these tests are skipped (reported as skipped, not passed).
/// With `CASSETTE_REQUIRE_HTTPBIN=1` a missing setting is a failure, so CI cannot skip them.
///
/// One test at a time: httpbin started by hand runs one synchronous worker, where a test waiting
/// on `/delay/1` would hold up the others' requests (and re-recording compares timings).
@Suite(.serialized) struct HTTPBinTests {
    static let environment = ProcessInfo.processInfo.environment
    static let phase = environment["CASSETTE_HTTPBIN_PHASE"]

    /// The requests, as (label, request) pairs.
    static func requests(base: String) -> [(String, URLRequest)] {
        func request(_ path: String, method: String = "GET", contentType: String? = nil, body: String? = nil) -> URLRequest {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
            request.httpBody = body.map { Data($0.utf8) }
            request.timeoutInterval = 30
            return request
        }
        return [
            ("get", request("/get?b=2&a=1")),
            (
                "post json",
                request("/post", method: "POST", contentType: "application/json", body: #"{"name":"Ada","langs":["swift","c"]}"#)
            ),
            (
                "post form",
                request("/post", method: "POST", contentType: "application/x-www-form-urlencoded", body: "name=Ada+Lovelace&year=1843")
            ),
            ("bytes", request("/bytes/4096")),
            ("gzip", request("/gzip")),
            ("deflate", request("/deflate")),
            ("redirect", request("/redirect/3")),
            ("teapot", request("/status/418")),
            ("headers", request("/headers")),
            ("delay", request("/delay/1")),
            ("stream", request("/stream/20")),
        ]
    }

    /// Secrets the secrets cassette is recorded with; none of them may reach its file.
    static let bearerToken = "S3CRET-httpbin-token"
    static let cookieValue = "C00KIE-httpbin-value"
    static let basicPassword = "PASSW0RD-httpbin"
    static var secrets: [String] {
        [bearerToken, cookieValue, basicPassword, "ada:\(basicPassword)", Data("ada:\(basicPassword)".utf8).base64EncodedString()]
    }
    static let secretsMatching = RequestMatching.default.includingHeaders("Authorization")

    /// Requests carrying credentials to endpoints that echo them back.
    static func secretRequests(base: String) -> [(String, URLRequest)] {
        func request(_ path: String, authorization: String) -> URLRequest {
            var request = URLRequest(url: URL(string: base + path)!)
            request.setValue(authorization, forHTTPHeaderField: "Authorization")
            request.setValue("session=\(cookieValue)", forHTTPHeaderField: "Cookie")
            request.timeoutInterval = 30
            return request
        }
        let basic = "Basic " + Data("ada:\(basicPassword)".utf8).base64EncodedString()
        return [
            ("bearer", request("/bearer", authorization: "Bearer \(bearerToken)")),
            ("cookies", request("/cookies", authorization: "Bearer \(bearerToken)")),
            ("headers", request("/headers", authorization: "Bearer \(bearerToken)")),
            ("basic", request("/basic-auth/ada/\(basicPassword)", authorization: basic)),
        ]
    }

    struct Settings {
        var base: String
        var workdir: URL
    }

    static func settings() -> Settings? {
        guard let base = environment["CASSETTE_HTTPBIN_URL"], let workdir = environment["CASSETTE_HTTPBIN_WORKDIR"] else {
            Issue.record("CASSETTE_HTTPBIN_PHASE is set but CASSETTE_HTTPBIN_URL or CASSETTE_HTTPBIN_WORKDIR is not")
            return nil
        }
        return Settings(base: base, workdir: URL(fileURLWithPath: workdir))
    }

    /// `file`, after removing what an earlier run recorded there.
    static func fresh(_ file: URL) -> URL {
        try? FileManager.default.removeItem(at: file)
        return file
    }

    @Test func ciAskedForHTTPBinAndGotIt() {
        guard Self.environment["CASSETTE_REQUIRE_HTTPBIN"] == "1" else { return }
        #expect(
            Self.phase == "record" || Self.phase == "replay",
            "CI requires the httpbin suite; CASSETTE_HTTPBIN_PHASE is \(Self.phase ?? "unset")")
    }

    @Test(.enabled(if: phase == "record", "records only when .ci/run starts httpbin"))
    func recordFromHTTPBin() async throws {
        guard let settings = Self.settings() else { return }
        try FileManager.default.createDirectory(at: settings.workdir, withIntermediateDirectories: true)
        // A fresh recording each run: the replay is compared with what this run received live
        // (re-recording into an existing file would keep its unchanged interactions as stored).
        let tape = try Tape(file: Self.fresh(settings.workdir.appendingPathComponent("httpbin.json")), mode: .all, environment: .tests)
        var live: [Fetched] = []
        for (label, request) in Self.requests(base: settings.base) {
            let fetched = await Fetch.run(request, on: tape.session, style: .async)
            #expect(fetched.errorCode == nil, "\(label): \(fetched)")
            live.append(fetched)
        }
        let report = try tape.eject()
        #expect(report.recorded == live.count + 3, "/redirect/3 records each of its hops")

        // What httpbin answered, as any client would see it.
        #expect(live[0].status == 200 && live[0].text.contains(#""a": "1""#))
        #expect(live[1].text.contains(#""json": {"#) && live[1].text.contains(#""name": "Ada""#))
        #expect(live[2].text.contains(#""name": "Ada Lovelace""#))
        #expect(live[3].body.count == 4096)
        #expect(live[4].text.contains(#""gzipped": true"#) && live[4].headers["Content-Encoding"] == "gzip")
        #expect(live[5].text.contains(#""deflated": true"#) && live[5].headers["Content-Encoding"] == "deflate")
        #expect(live[6].status == 200 && live[6].url == settings.base + "/get")
        #expect(live[7].status == 418)
        #expect(live[9].status == 200)
        #expect(live[10].text.split(separator: "\n").count == 20)

        let records = live.map { fetched -> [String: Any] in
            [
                "status": fetched.status ?? 0, "headers": fetched.headers, "body": fetched.body.base64EncodedString(),
                "url": fetched.url ?? "",
            ]
        }
        try JSONSerialization.data(withJSONObject: records, options: [.sortedKeys]).write(
            to: settings.workdir.appendingPathComponent("live.json"))
    }

    @Test(.enabled(if: phase == "record", "records only when .ci/run starts httpbin"))
    func recordingSecretsFromHTTPBinKeepsThemOutOfTheFile() async throws {
        guard let settings = Self.settings() else { return }
        try FileManager.default.createDirectory(at: settings.workdir, withIntermediateDirectories: true)
        let file = settings.workdir.appendingPathComponent("secrets.json")
        let tape = try Tape(file: file, mode: .all, matching: Self.secretsMatching, environment: .tests)
        var live: [String: Fetched] = [:]
        for (label, request) in Self.secretRequests(base: settings.base) {
            live[label] = await Fetch.run(request, on: tape.session, style: .async)
            #expect(live[label]?.status == 200, "\(label): \(live[label].map(\.description) ?? "")")
        }
        try tape.eject()
        // httpbin echoed every secret back, in bodies the cassette holds.
        #expect(live["bearer"]?.text.contains(Self.bearerToken) == true)
        #expect(live["cookies"]?.text.contains(Self.cookieValue) == true)
        #expect(live["headers"]?.text.contains(Self.bearerToken) == true)
        let bytes = try Data(contentsOf: file)
        for secret in Self.secrets {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in \(file.path)")
        }
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""Authorization": "Bearer [REDACTED-1]""#))
    }

    /// Values the client supplies that default redaction takes out — a cookie set through the
    /// URL and read back, `Set-Cookie` asked for in the query, a token in a redirect's target and
    /// inside a `url=`-like parameter — recorded from httpbin, then replayed offline: every
    /// request matches and the client sees exactly what it saw live.
    static func redactedValueRequests(base: String) -> [URLRequest] {
        [
            "/cookies/set?flavour=oatmeal&session=abc12345", "/response-headers?Set-Cookie=plain%3Dcookie1xyz",
            "/redirect-to?url=%2Fanything%3Fapi_key%3DTOKEN123456", "/anything?next=%2Fcallback%3Faccess_token%3Dabcdef123456", "/cookies",
        ]
        .map { path in
            var request = URLRequest(url: URL(string: base + path)!)
            request.timeoutInterval = 30
            return request
        }
    }

    static let redactedValues = ["oatmeal", "abc12345", "cookie1xyz", "TOKEN123456", "abcdef123456"]

    @Test(.enabled(if: phase == "record", "records only when .ci/run starts httpbin"))
    func recordRedactedValuesFromHTTPBin() async throws {
        guard let settings = Self.settings() else { return }
        try FileManager.default.createDirectory(at: settings.workdir, withIntermediateDirectories: true)
        let file = Self.fresh(settings.workdir.appendingPathComponent("redacted-values.json"))
        let tape = try Tape(file: file, mode: .all, environment: .tests)
        var live: [Fetched] = []
        for request in Self.redactedValueRequests(base: settings.base) {
            live.append(await Fetch.run(request, on: tape.session, style: .async))
        }
        try tape.eject()
        #expect(live.allSatisfy { $0.status == 200 }, "\(live)")
        #expect(live[4].text.contains(#""flavour": "oatmeal""#) && live[4].text.contains(#""plain": "cookie1xyz""#), "\(live[4].text)")
        let bytes = try Data(contentsOf: file)
        for secret in Self.redactedValues { #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in \(file.path)") }
        let records = live.map { ["status": $0.status ?? 0, "body": $0.body.base64EncodedString(), "url": $0.url ?? ""] as [String: Any] }
        try JSONSerialization.data(withJSONObject: records, options: [.sortedKeys])
            .write(to: settings.workdir.appendingPathComponent("redacted-values-live.json"))
    }

    @Test(.enabled(if: phase == "replay", "replays only after .ci/run recorded and stopped httpbin"))
    func replayRedactedValuesOfflineGivesTheClientItsValues() async throws {
        guard let settings = Self.settings() else { return }
        let liveData = try Data(contentsOf: settings.workdir.appendingPathComponent("redacted-values-live.json"))
        let live = try #require(try JSONSerialization.jsonObject(with: liveData) as? [[String: Any]])
        let tape = try Tape(file: settings.workdir.appendingPathComponent("redacted-values.json"), mode: .none, environment: .tests)
        for (request, recorded) in zip(Self.redactedValueRequests(base: settings.base), live) {
            let replayed = await Fetch.run(request, on: tape.session, style: .async)
            #expect(replayed.status == recorded["status"] as? Int, "\(request)")
            #expect(
                replayed.text == String(decoding: Data(base64Encoded: recorded["body"] as? String ?? "") ?? Data(), as: UTF8.self),
                "\(request)")
            #expect(replayed.url == recorded["url"] as? String, "\(request)")
        }
        let report = try tape.eject()
        #expect(report.unmatched.isEmpty, "\(report.unmatched.map(\.description))")
        #expect(!report.redactedMatches.isEmpty)
    }

    /// A multipart upload as Alamofire builds it, with a boundary drawn at random.
    static func multipartRequest(base: String, reversed: Bool = false) -> URLRequest {
        let boundary = "alamofire.boundary.\(UUID().uuidString)"
        var parts = [
            "Content-Disposition: form-data; name=\"title\"\r\n\r\nHoliday",
            "Content-Disposition: form-data; name=\"photo\"; filename=\"beach.txt\"\r\nContent-Type: text/plain\r\n\r\nsea and sun",
        ]
        if reversed { parts.reverse() }
        var body = Data()
        for part in parts { body += Data("--\(boundary)\r\n\(part)\r\n".utf8) }
        body += Data("--\(boundary)--\r\n".utf8)
        var request = URLRequest(url: URL(string: base + "/post")!)
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        request.timeoutInterval = 30
        return request
    }

    /// The drift check against a server nobody here wrote: recorded from httpbin, unchanged while
    /// httpbin is; a cassette edited as if the API had moved on drifts at exactly its paths, and
    /// `update` records it again.
    @Test(.enabled(if: phase == "record", "records only when .ci/run starts httpbin"))
    func checkLiveAgainstHTTPBin() async throws {
        guard let settings = Self.settings() else { return }
        try FileManager.default.createDirectory(at: settings.workdir, withIntermediateDirectories: true)
        let file = Self.fresh(settings.workdir.appendingPathComponent("drift.json"))
        let tape = try Tape(file: file, mode: .all, environment: .tests)
        for request in Self.requests(base: settings.base).filter({ ["get", "post json", "headers"].contains($0.0) }).map(\.1) {
            _ = await Fetch.run(request, on: tape.session, style: .async)
        }
        var json = URLRequest(url: try #require(URL(string: settings.base + "/json")))
        json.timeoutInterval = 30
        _ = await Fetch.run(json, on: tape.session, style: .async)
        try tape.eject()

        let unchanged = try await LiveCheck.run([file])
        #expect(
            unchanged.map(\.outcome) == [
                .unchanged, .skipped("POST is not sent without --all-methods (LiveCheck.Options.allMethods)"), .unchanged, .unchanged,
            ])

        // As if the API had moved on: the recording loses a field, has another type, another status.
        var document = try CassetteFile.read(file)
        let slideshow = #"{"slideshow":{"date":"date of publication","slides":[],"title":7}}"#
        document.interactions[3].response?.body = .init(text: slideshow)
        document.interactions[0].response?.status = 201
        try CassetteFile.write(document, to: file)
        let drifted = try await LiveCheck.run([file])
        #expect(drifted.map(\.drifted) == [true, false, false, true])
        guard case .drifted(let getChanges) = drifted[0].outcome, case .drifted(let jsonChanges) = drifted[3].outcome else { return }
        #expect(getChanges == ["response.status: 201 → 200"])
        #expect(jsonChanges.contains(#"response.body.$.slideshow.author: added ("Yours Truly")"#), "\(jsonChanges)")
        #expect(
            jsonChanges.contains(#"response.body.$.slideshow.title: a number 7 → a string "Sample Slide Show""#), "\(jsonChanges)")

        let updates = try LiveCheck.update(drifted)
        #expect(updates.map(\.cassette) == [file] && updates.map(\.interactions) == [[0, 3]])
        #expect(try await LiveCheck.run([file]).filter(\.drifted).isEmpty)
    }

    @Test(.enabled(if: phase == "record", "records only when .ci/run starts httpbin"))
    func recordMultipartFromHTTPBin() async throws {
        guard let settings = Self.settings() else { return }
        try FileManager.default.createDirectory(at: settings.workdir, withIntermediateDirectories: true)
        let tape = try Tape(file: Self.fresh(settings.workdir.appendingPathComponent("multipart.json")), mode: .all, environment: .tests)
        let live = await Fetch.run(Self.multipartRequest(base: settings.base), on: tape.session, style: .async)
        try tape.eject()
        // httpbin parsed the upload: the form field and the file.
        #expect(
            live.status == 200 && live.text.contains(#""title": "Holiday""#) && live.text.contains(#""photo": "sea and sun""#), "\(live)")
        try live.body.write(to: settings.workdir.appendingPathComponent("multipart-live.body"))
    }

    @Test(.enabled(if: phase == "replay", "replays only after .ci/run recorded and stopped httpbin"))
    func replayMultipartWithANewBoundaryOffline() async throws {
        guard let settings = Self.settings() else { return }
        let live = try Data(contentsOf: settings.workdir.appendingPathComponent("multipart-live.body"))
        for reversed in [false, true] {
            let tape = try Tape(file: settings.workdir.appendingPathComponent("multipart.json"), mode: .none, environment: .tests)
            let replayed = await Fetch.run(Self.multipartRequest(base: settings.base, reversed: reversed), on: tape.session, style: .async)
            #expect(replayed.status == 200 && replayed.body == live, "\(replayed)")
            let report = try tape.eject()
            #expect(report.replayed == 1 && report.unmatched.isEmpty, "\(report.unmatched.map(\.description))")
        }
    }

    /// Recording the same httpbin traffic twice in mode `all` leaves the file byte-identical,
    /// although httpbin's `Date` and the timings differ.
    @Test(.enabled(if: phase == "record", "records only when .ci/run starts httpbin"))
    func reRecordingFromHTTPBinChangesNoByte() async throws {
        guard let settings = Self.settings() else { return }
        try FileManager.default.createDirectory(at: settings.workdir, withIntermediateDirectories: true)
        let file = Self.fresh(settings.workdir.appendingPathComponent("twice.json"))
        let paths = ["/get?twice=1", "/json", "/status/418", "/bytes/512?seed=7", "/headers", "/response-headers?X-Request-Id=fixed"]
        var saved: [Bool] = []
        var files: [Data] = []
        for _ in 0..<2 {
            let tape = try Tape(file: file, mode: .all, environment: .tests)
            for path in paths {
                let fetched = await Fetch.get(settings.base + path, on: tape.session)
                #expect(fetched.errorCode == nil, "\(path): \(fetched)")
            }
            var post = URLRequest(url: URL(string: settings.base + "/post")!)
            post.httpMethod = "POST"
            post.setValue("application/json", forHTTPHeaderField: "Content-Type")
            post.httpBody = Data(#"{"name":"Ada"}"#.utf8)
            _ = await Fetch.run(post, on: tape.session, style: .async)
            saved.append(try tape.eject().saved)
            files.append(try Data(contentsOf: file))
        }
        #expect(saved == [true, false])
        #expect(files[0] == files[1])
        #expect(String(decoding: files[0], as: UTF8.self).contains(#""Date": "#), "httpbin sends a Date, which changed in between")
    }

    /// What curl-like raw clients receive through a recording `TapeServer` in front of httpbin,
    /// kept to compare with the replay: (label, request bytes).
    static let servedRequests: [(String, String)] = [
        ("get", "GET /get?served=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        (
            "post",
            "POST /post HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 14\r\nConnection: close\r\n\r\n{\"name\":\"Ada\"}"
        ),
        (
            "chunked upload",
            "PUT /put HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        ),
        ("gzip", "GET /gzip HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        ("teapot", "GET /status/418 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        ("redirect, not followed", "GET /redirect/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        ("head", "HEAD /bytes/64?seed=3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    ]

    static func served(through port: Int) throws -> [Data] {
        try servedRequests.map { _, request in
            let client = try RawHTTP(port: port)
            client.send(request)
            return client.receiveUntilClosed(timeout: 30).data
        }
    }

    @Test(.enabled(if: phase == "record", "records only when .ci/run starts httpbin"))
    func recordThroughTheServerFromHTTPBin() throws {
        guard let settings = Self.settings(), let upstream = URL(string: settings.base) else { return }
        try FileManager.default.createDirectory(at: settings.workdir, withIntermediateDirectories: true)
        let tape = try Tape(
            file: Self.fresh(settings.workdir.appendingPathComponent("served.json")), mode: .once,
            options: .init(redaction: .none), environment: .tests)
        let live = try Self.served(through: try tape.serve(.init(upstream: upstream)).port)
        #expect(try tape.eject().recorded == Self.servedRequests.count)
        for ((label, _), answer) in zip(Self.servedRequests, live) {
            #expect(
                String(decoding: answer.prefix(9), as: UTF8.self) == "HTTP/1.1 ", "\(label): \(String(decoding: answer, as: UTF8.self))")
        }
        #expect(String(decoding: live[5], as: UTF8.self).hasPrefix("HTTP/1.1 302 Found\r\n"), "a redirect goes to the client as it is")
        try JSONSerialization.data(withJSONObject: live.map { $0.base64EncodedString() }).write(
            to: settings.workdir.appendingPathComponent("served-live.json"))
    }

    @Test(.enabled(if: phase == "replay", "replays only after .ci/run recorded and stopped httpbin"))
    func replayThroughTheServerOfflineGivesTheSameBytes() throws {
        guard let settings = Self.settings(), let upstream = URL(string: settings.base) else { return }
        let live = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: settings.workdir.appendingPathComponent("served-live.json")))
                as? [String])
        let tape = try Tape(
            file: settings.workdir.appendingPathComponent("served.json"), mode: .none, options: .init(redaction: .none), environment: .tests
        )
        let replayed = try Self.served(through: try tape.serve(.init(upstream: upstream)).port)
        for (index, (label, _)) in Self.servedRequests.enumerated() {
            #expect(
                replayed[index].base64EncodedString() == live[index],
                "\(label): replayed \(String(decoding: replayed[index], as: UTF8.self).debugDescription)")
        }
        #expect(try tape.eject().replayed == Self.servedRequests.count)
    }

    @Test(.enabled(if: phase == "replay", "replays only after .ci/run recorded and stopped httpbin"))
    func replaySecretsOfflineStillMatches() async throws {
        guard let settings = Self.settings() else { return }
        let tape = try Tape(
            file: settings.workdir.appendingPathComponent("secrets.json"), mode: .none,
            matching: Self.secretsMatching, environment: .tests)
        for (label, request) in Self.secretRequests(base: settings.base) {
            let replayed = await Fetch.run(request, on: tape.session, style: .async)
            #expect(replayed.status == 200, "\(label): \(replayed)")
        }
        let report = try tape.eject()
        #expect(report.replayed == 4 && report.unmatched.isEmpty, "\(report.unmatched)")
    }

    @Test(.enabled(if: phase == "replay", "replays only after .ci/run recorded and stopped httpbin"))
    func replayHTTPBinOffline() async throws {
        guard let settings = Self.settings() else { return }
        let liveData = try Data(contentsOf: settings.workdir.appendingPathComponent("live.json"))
        let live = try #require(try JSONSerialization.jsonObject(with: liveData) as? [[String: Any]])
        let tape = try Tape(file: settings.workdir.appendingPathComponent("httpbin.json"), mode: .none, environment: .tests)
        let requests = Self.requests(base: settings.base)
        #expect(live.count == requests.count)
        for ((label, request), recorded) in zip(requests, live) {
            let replayed = await Fetch.run(request, on: tape.session, style: .async)
            #expect(replayed.status == recorded["status"] as? Int, "\(label)")
            #expect(replayed.headers == recorded["headers"] as? [String: String], "\(label)")
            #expect(replayed.body.base64EncodedString() == recorded["body"] as? String, "\(label)")
            #expect(replayed.url == recorded["url"] as? String, "\(label)")
        }
        let report = try tape.eject()
        #expect(report.replayed == requests.count + 3 && report.unmatched.isEmpty)
    }

    /// Every URLSession task kind against httpbin: uploads from Data and from a file, redirect
    /// chains followed hop by hop, a 307 that keeps its POST body, cookies set on a redirect, and
    /// a download (a clear error on Linux). Redaction is off so that live and replayed compare
    /// byte for byte; the secrets cassette above covers redaction.
    static func taskKinds(base: String, scratch: URL) throws -> [(String, TaskKind, TaskCall)] {
        func request(_ path: String, method: String = "GET", body: String? = nil) -> URLRequest {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            request.httpBody = body.map { Data($0.utf8) }
            request.timeoutInterval = 30
            return request
        }
        let file = scratch.appendingPathComponent("upload.txt")
        try Data("uploaded from a file\n".utf8).write(to: file)
        return [
            ("upload from Data", .uploadData(request("/post", method: "POST"), Data(#"{"upload":"data"}"#.utf8)), .async),
            ("upload from Data, delegate", .uploadData(request("/post", method: "POST"), Data(#"{"upload":"delegate"}"#.utf8)), .delegate),
            ("upload from a file", .uploadFile(request("/put", method: "PUT"), file), .completionHandler),
            ("redirect chain", .data(request("/redirect/3")), .delegate),
            (
                "307 keeps the POST body", .data(request("/redirect-to?url=%2Fanything&status_code=307", method: "POST", body: "kept=yes")),
                .async
            ),
            ("cookies set on a redirect", .data(request("/cookies/set?flavour=oatmeal")), .async),
            ("download", .download(request("/bytes/1024")), .delegate),
        ]
    }

    @Test(.enabled(if: phase == "record", "records only when .ci/run starts httpbin"))
    func recordTaskKindsFromHTTPBin() async throws {
        guard let settings = Self.settings() else { return }
        try FileManager.default.createDirectory(at: settings.workdir, withIntermediateDirectories: true)
        let tape = try Tape(
            file: Self.fresh(settings.workdir.appendingPathComponent("task-kinds.json")), mode: .all,
            options: .init(redaction: .none), environment: .tests)
        var live: [Observed] = []
        for (label, kind, call) in try Self.taskKinds(base: settings.base, scratch: settings.workdir) {
            let configuration = URLSessionConfiguration.ephemeral
            tape.configure(configuration)
            let observed = await TaskRun.observe(kind, call: call, configuration: configuration)
            if case .download = kind {
                #expect(observed.errorCode == URLError.Code.cannotCreateFile.rawValue, "\(label): \(observed)")
            } else {
                #expect(observed.status == 200, "\(label): \(observed)")
            }
            live.append(observed)
        }
        _ = try tape.eject()
        #expect(live[0].text.contains(#""data": "{\"upload\":\"data\"}""#))
        #expect(live[1].events.first == "sent 21 of 21")
        #expect(live[2].text.contains(#""data": "uploaded from a file\n""#))
        #expect(live[3].url == settings.base + "/get")
        #expect(live[3].events.filter { $0.hasPrefix("redirect 302") }.count == 3)
        #expect(live[4].text.contains(#""method": "POST""#) && live[4].text.contains(#""kept": "yes""#))
        #expect(live[5].cookies == ["flavour=oatmeal"] && live[5].text.contains(#""flavour": "oatmeal""#))
        try JSONEncoder().encode(live).write(to: settings.workdir.appendingPathComponent("live-task-kinds.json"))
    }

    @Test(.enabled(if: phase == "replay", "replays only after .ci/run recorded and stopped httpbin"))
    func replayTaskKindsOffline() async throws {
        guard let settings = Self.settings() else { return }
        let live = try JSONDecoder().decode(
            [Observed].self, from: Data(contentsOf: settings.workdir.appendingPathComponent("live-task-kinds.json")))
        let tape = try Tape(
            file: settings.workdir.appendingPathComponent("task-kinds.json"), mode: .none,
            options: .init(redaction: .none), environment: .tests)
        let kinds = try Self.taskKinds(base: settings.base, scratch: settings.workdir)
        #expect(live.count == kinds.count)
        for ((label, kind, call), recorded) in zip(kinds, live) {
            let configuration = URLSessionConfiguration.ephemeral
            tape.configure(configuration)
            let replayed = await TaskRun.observe(kind, call: call, configuration: configuration)
            #expect(replayed.sameOutcome(as: recorded), "\(label)\nlive: \(recorded)\nreplayed: \(replayed)")
        }
        #expect(try tape.eject().unmatched.isEmpty)
    }
}
