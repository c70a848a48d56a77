import CassetteFormats
import CassetteTestSupport
import Foundation
import Testing

/// HAR 1.2: exported files satisfy the spec, files from other tools import with their quirks,
/// and wrong files say where and what.
@Suite struct HARCodecTests {
    // MARK: Export against the spec

    /// Every example cassette and a generated corpus, exported, pass a check of HAR 1.2's
    /// required fields and types, made with `JSONSerialization`, independent of Cassette's JSON code.
    @Test func exportedHARSatisfiesTheSpec() async throws {
        try await TimingIsolation.run {
            var documents: [(String, CassetteDocument)] = []
            for file in Paths.jsonFiles(in: Paths.cassettes) {
                documents.append((file.lastPathComponent, try JSONCassetteCodec.decode(Data(contentsOf: file), file: file.path)))
            }
            var generator = InteractionGenerator(seed: 0x4A5)
            for batch in 0..<20 { documents.append(("generated-\(batch)", generator.document(count: 10))) }
            var entries = 0
            for (name, document) in documents {
                let har = try HARCassetteCodec.encode(document)
                let problems = HARSpecCheck.problems(in: har)
                #expect(problems.isEmpty, "\(name): \(problems.prefix(5).joined(separator: "; "))")
                entries += document.interactions.count
            }
            #expect(documents.count > 20 && entries > 200)
        }
    }

    /// The check itself catches what it is there to catch.
    @Test func theSpecCheckFindsMissingFieldsAndAWrongTime() throws {
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(url: "https://a.example/"), response: .init(status: 200), timing: .init(firstByte: 0.1, duration: 0.3))
        ])
        var root = try #require(try JSONSerialization.jsonObject(with: try HARCassetteCodec.encode(document)) as? [String: Any])
        var log = try #require(root["log"] as? [String: Any])
        var entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries[0]["time"] as? Double == 300)
        entries[0]["time"] = 250
        var response = try #require(entries[0]["response"] as? [String: Any])
        response["redirectURL"] = nil
        entries[0]["response"] = response
        log["entries"] = entries
        root["log"] = log
        let broken = try JSONSerialization.data(withJSONObject: root)
        #expect(
            HARSpecCheck.problems(in: broken) == [
                "log.entries[0].response: missing redirectURL",
                "log.entries[0].time: 250 is not the sum of the non-negative timings (300)",
            ])
    }

    @Test func anExportedEntryReadsLikeOneFromABrowser() throws {
        let document = CassetteDocument(
            recordedWith: "Cassette 0.1.0",
            interactions: [
                Interaction(
                    recordedAt: Date(timeIntervalSince1970: 1_795_349_730.123),
                    request: .init(
                        method: "POST", url: "https://api.example.com/users?page=2&q=a%20b",
                        headers: ["Content-Type": "application/json", "Cookie": "a=1; b=2"],
                        body: .init(Data(#"{"name":"Ada"}"#.utf8))),
                    response: .init(
                        status: 201, headers: ["Content-Type": "application/json", "Set-Cookie": "sid=xyz; Path=/"],
                        body: .init(Data([0xFF, 0x00]))),
                    timing: .init(firstByte: 0.084, duration: 0.112))
            ])
        let root = try #require(try JSONSerialization.jsonObject(with: try HARCassetteCodec.encode(document)) as? [String: Any])
        let log = try #require(root["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        #expect(log["creator"] as? [String: String] == ["name": "Cassette", "version": "0.1.0"])
        let entry = try #require((log["entries"] as? [[String: Any]])?.first)
        #expect(entry["startedDateTime"] as? String == "2026-11-22T12:15:30.123Z")
        #expect(entry["time"] as? Double == 112)
        #expect(
            entry["timings"] as? [String: Double] == [
                "blocked": -1, "dns": -1, "connect": -1, "send": 0, "wait": 84, "receive": 28, "ssl": -1,
            ])
        #expect(entry["_cassette"] == nil, "milliseconds hold this timing exactly, so nothing extra is written")
        let request = try #require(entry["request"] as? [String: Any])
        #expect(request["queryString"] as? [[String: String]] == [["name": "page", "value": "2"], ["name": "q", "value": "a b"]])
        #expect(request["cookies"] as? [[String: String]] == [["name": "a", "value": "1"], ["name": "b", "value": "2"]])
        #expect(request["postData"] as? [String: String] == ["mimeType": "application/json", "text": #"{"name":"Ada"}"#])
        #expect(request["bodySize"] as? Int == 14)
        let response = try #require(entry["response"] as? [String: Any])
        #expect(response["statusText"] as? String == "Created")
        #expect(response["cookies"] as? [[String: String]] == [["name": "sid", "value": "xyz"]])
        let content = try #require(response["content"] as? [String: Any])
        #expect(content["size"] as? Int == 2)
        #expect(content["mimeType"] as? String == "application/json")
        #expect(content["text"] as? String == "/wA=")
        #expect(content["encoding"] as? String == "base64")
        #expect(content.count == 4)
    }

    /// What HAR cannot say travels in `_cassette`, and comes back.
    @Test func cassetteOnlyDataTravelsInTheCassetteField() throws {
        let document = CassetteDocument(interactions: [
            Interaction(request: .init(url: "https://a.example/feed"), error: .init(code: .notConnectedToInternet)),
            Interaction(
                request: .init(url: "https://a.example/r"),
                response: .init(status: 200, url: "https://a.example/final", body: .init(text: "abcdef")),
                error: .init(code: .init(rawValue: -4242), afterBytes: 3),
                timing: .init(firstByte: 0.1 / 3, duration: 0.2), latency: .downloadSpeed(.edge, firstByte: 0.5)),
        ])
        let har = try HARCassetteCodec.encode(document)
        let root = try #require(try JSONSerialization.jsonObject(with: har) as? [String: Any])
        let entries = try #require((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect((entries[0]["response"] as? [String: Any])?["status"] as? Int == 0)
        let failed = try #require(entries[0]["_cassette"] as? [String: Any])
        #expect(failed["undated"] as? Bool == true)
        #expect(failed["untimed"] as? Bool == true)
        #expect(failed["error"] as? [String: String] == ["code": "notConnectedToInternet"])
        #expect(failed.count == 3)
        let extra = try #require(entries[1]["_cassette"] as? [String: Any])
        #expect(extra["timing"] as? [String: Double] == ["firstByte": 0.1 / 3, "duration": 0.2])
        #expect(extra["latency"] as? String == "speed:edge,0.5")
        #expect(extra["responseURL"] as? String == "https://a.example/final")
        #expect(try HARCassetteCodec.decode(har) == document)
    }

    // MARK: Import from other tools

    @Test func filesFromOtherToolsImportWithTheirQuirks() throws {
        let har = #"""
            { "log": { "version": "1.2", "creator": { "name": "WebInspector", "version": "537.36" }, "pages": [],
              "entries": [
                { "startedDateTime": "2026-11-22T10:15:30.1234567+01:00", "time": 12.5, "_priority": "High",
                  "_initiator": { "type": "script" },
                  "request": { "method": "POST", "url": "https://api.example.com/login", "httpVersion": "h2",
                    "headers": [ { "name": ":authority", "value": "api.example.com" }, { "name": ":method", "value": "POST" },
                                 { "name": "content-type", "value": "application/x-www-form-urlencoded" } ],
                    "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 25,
                    "postData": { "mimeType": "application/x-www-form-urlencoded",
                                  "params": [ { "name": "user", "value": "Ada L" }, { "name": "remember", "value": "1" } ] } },
                  "response": { "status": 200, "statusText": "", "httpVersion": "h2", "cookies": [], "redirectURL": "",
                    "headers": [ { "name": "content-type", "value": "image/png" } ],
                    "content": { "size": 4, "mimeType": "image/png", "text": "iVBO\nRw==", "encoding": "base64" },
                    "headersSize": -1, "bodySize": -1, "_transferSize": 300 },
                  "cache": {}, "timings": { "blocked": 1.5, "dns": -1, "ssl": 2, "connect": 3, "send": 0.5, "wait": 5, "receive": 2.5 } },
                { "startedDateTime": "2026-11-22T10:15:31Z", "time": 0,
                  "request": { "method": "GET", "url": "https://api.example.com/feed", "httpVersion": "", "headers": [],
                               "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0 },
                  "response": { "status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
                                "content": { "size": 0, "mimeType": "x-unknown" }, "redirectURL": "", "headersSize": -1, "bodySize": -1,
                                "_error": "net::ERR_INTERNET_DISCONNECTED" },
                  "cache": {}, "timings": { "send": 0, "wait": 0, "receive": 0 }, "_error": "net::ERR_INTERNET_DISCONNECTED" }
              ] } }
            """#
        let document = try HARCassetteCodec.decode(Data(har.utf8), file: "devtools.har")
        #expect(document.recordedWith == "WebInspector 537.36")
        #expect(document.interactions.count == 2)
        let login = document.interactions[0]
        #expect(login.recordedAt == Date(timeIntervalSince1970: 1_795_338_930.123))
        #expect(login.request.method == "POST")
        #expect(login.request.headers == ["content-type": "application/x-www-form-urlencoded"], "pseudo-headers are left out")
        #expect(login.request.body.text == "user=Ada%20L&remember=1")
        #expect(login.response?.status == 200)
        #expect(login.response?.body.data == Data([0x89, 0x50, 0x4E, 0x47]))
        // blocked 1.5 + connect 3 (ssl is part of it) + send 0.5 + wait 5 = 10 ms; receive 2.5 more.
        #expect(login.timing == .init(firstByte: 0.01, duration: 0.0125))
        let feed = document.interactions[1]
        #expect(feed.response == nil)
        #expect(feed.error == .init(code: .notConnectedToInternet))
    }

    // MARK: Errors

    struct Malformed: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        var diagnostics: [String]
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        .init(
            name: "not HAR", text: #"{ "version": 1, "interactions": [] }"#,
            diagnostics: [
                #"x.har:1:1: error: $: missing required field "log" (expected the HAR "log" object)"#
            ]),
        .init(
            name: "syntax", text: "{ \"log\": { \"entries\": [ }\n",
            diagnostics: [
                "x.har:1:25: error: expected a value, found '}'"
            ]),
        .init(
            name: "entry problems, all of them",
            text: """
                { "log": { "entries": [
                  { "startedDateTime": "yesterday", "request": { "method": "GET", "url": "/relative" },
                    "response": { "status": 700, "headers": [], "content": { "size": 0, "mimeType": "" } } },
                  { "startedDateTime": "2026-11-22T10:15:30Z", "request": { "method": "GET", "url": "https://a.example/" },
                    "response": { "status": 200, "headers": [ { "name": "Bad Name", "value": "x" } ], "content": { "text": "???", "encoding": "base64" } },
                    "_cassette": { "eror": { "code": "timedOut" } } }
                ] } }
                """,
            diagnostics: [
                #"x.har:2:24: error: log.entries[0].startedDateTime: expected an ISO 8601 time like "2026-11-22T10:15:30.123Z", found "yesterday""#,
                #"x.har:2:74: error: log.entries[0].request.url: expected an absolute URL like "https://api.example.com/path", found "/relative" (no scheme)"#,
                "x.har:3:29: error: log.entries[0].response.status: expected an HTTP status from 100 to 599, found 700",
                #"x.har:5:57: error: log.entries[1].response.headers[0].name: "Bad Name" is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)"#,
                #"x.har:6:20: error: log.entries[1]._cassette.eror: unknown field "eror" (did you mean "error"?) in Cassette's fields; expected one of error, latency, responseURL, scenario, timing, undated, untimed"#,
            ]),
    ]

    @Test(arguments: malformed)
    func malformedFilesSayWhereAndWhat(_ example: Malformed) {
        do {
            _ = try HARCassetteCodec.decode(Data(example.text.utf8), file: "x.har")
            Issue.record("decoded without an error")
        } catch {
            #expect(error.description.components(separatedBy: "\n") == example.diagnostics)
        }
    }
}

/// A check of HAR 1.2's required fields and types (http://www.softwareishard.com/blog/har-12-spec/),
/// and of `time` being the sum of the non-negative timings, on a file read with `JSONSerialization`.
enum HARSpecCheck {
    static func problems(in data: Data) -> [String] {
        var problems: [String] = []
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let log = root["log"] as? [String: Any] else {
            return ["$: no log object"]
        }
        func require(_ object: [String: Any], _ keys: [String], _ check: (Any) -> Bool, _ path: String) {
            for key in keys {
                guard let value = object[key] else {
                    problems.append("\(path): missing \(key)")
                    continue
                }
                if !check(value) { problems.append("\(path).\(key): wrong type \(type(of: value))") }
            }
        }
        let isString: (Any) -> Bool = { $0 is String }
        let isNumber: (Any) -> Bool = { $0 is NSNumber && !($0 is Bool) || $0 is Int || $0 is Double }
        let isObject: (Any) -> Bool = { $0 is [String: Any] }
        let isNameValueList: (Any) -> Bool = { list in
            (list as? [[String: Any]])?.allSatisfy { $0["name"] is String && $0["value"] is String } ?? false
        }
        require(log, ["version"], isString, "log")
        require(log, ["creator"], isObject, "log")
        if let creator = log["creator"] as? [String: Any] { require(creator, ["name", "version"], isString, "log.creator") }
        guard let entries = log["entries"] as? [[String: Any]] else { return problems + ["log: missing entries"] }
        for (i, entry) in entries.enumerated() {
            let path = "log.entries[\(i)]"
            require(entry, ["startedDateTime"], isString, path)
            require(entry, ["time"], isNumber, path)
            require(entry, ["request", "response", "cache", "timings"], isObject, path)
            if let started = entry["startedDateTime"] as? String, ISO8601DateFormatter.withFractionalSeconds.date(from: started) == nil {
                problems.append("\(path).startedDateTime: not ISO 8601: \(started)")
            }
            if let request = entry["request"] as? [String: Any] {
                require(request, ["method", "url", "httpVersion"], isString, "\(path).request")
                require(request, ["cookies", "headers", "queryString"], isNameValueList, "\(path).request")
                require(request, ["headersSize", "bodySize"], isNumber, "\(path).request")
                if let postData = request["postData"] as? [String: Any] {
                    require(postData, ["mimeType"], isString, "\(path).request.postData")
                    if postData["text"] == nil, postData["params"] == nil {
                        problems.append("\(path).request.postData: neither text nor params")
                    }
                }
            }
            if let response = entry["response"] as? [String: Any] {
                require(response, ["status", "headersSize", "bodySize"], isNumber, "\(path).response")
                require(response, ["statusText", "httpVersion", "redirectURL"], isString, "\(path).response")
                require(response, ["cookies", "headers"], isNameValueList, "\(path).response")
                require(response, ["content"], isObject, "\(path).response")
                if let content = response["content"] as? [String: Any] {
                    require(content, ["size"], isNumber, "\(path).response.content")
                    require(content, ["mimeType"], isString, "\(path).response.content")
                }
            }
            if let timings = entry["timings"] as? [String: Any] {
                require(timings, ["send", "wait", "receive"], isNumber, "\(path).timings")
                var sum = 0.0
                for key in ["blocked", "dns", "connect", "send", "wait", "receive"] {
                    guard let value = timings[key] else { continue }
                    guard let ms = (value as? NSNumber)?.doubleValue else {
                        problems.append("\(path).timings.\(key): not a number")
                        continue
                    }
                    if ["send", "wait", "receive"].contains(key), ms < 0 { problems.append("\(path).timings.\(key): negative") }
                    if ms >= 0 { sum += ms }
                }
                if let time = (entry["time"] as? NSNumber)?.doubleValue, abs(time - sum) > 1e-6 {
                    problems.append(
                        "\(path).time: \(JSONSerialization.numberText(time)) is not the sum of the non-negative timings (\(JSONSerialization.numberText(sum)))"
                    )
                }
            }
        }
        return problems
    }
}

extension ISO8601DateFormatter {
    static var withFractionalSeconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

extension JSONSerialization {
    /// `250` rather than `250.0`, for messages.
    static func numberText(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
