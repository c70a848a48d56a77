import Cassette
import CassetteFormats
import CassetteServer
import CassetteTestSupport
import CassetteTools
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if os(Linux) || os(macOS)  // starts the tool
/// `cassette serve` as a user runs it: a child process that prints where it listens, serves
/// until a signal, then saves and reports. Clients: curl and Python's `http.client`.
@Suite(.timingIsolated) struct ServeCommandTests {
    /// A running `cassette serve`.
    final class Served: @unchecked Sendable {
        let process: SpawnedProcess
        let base: String
        /// The first line it printed, without its line end.
        let firstLine: String

        /// Starts `cassette serve` with `arguments`, and with `environment` instead of the test
        /// run's `CI` and `CASSETTE_` variables.
        init(_ arguments: [String], environment: [String: String] = [:]) throws {
            process = try SpawnedProcess(
                executable: ChildProcess.url(of: "cassette").path, ["serve"] + arguments,
                environment: ProcessInfo.processInfo.environment.filter { $0.key != "CI" && !$0.key.hasPrefix("CASSETTE_") }
                    .merging(environment) { $1 })
            // The first line says where it listens.
            var line = Data()
            while !line.contains(0x0A) {
                let byte = process.outputHandle.readData(ofLength: 1)
                if byte.isEmpty { break }
                line += byte
            }
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasPrefix("listening on http://") else {
                let ended = process.finish()
                throw ServeError(text: "cassette serve printed \(text.debugDescription): \(String(decoding: ended.errors, as: UTF8.self))")
            }
            base = String(text.dropFirst("listening on ".count).prefix { $0 != " " })
            firstLine = text
        }

        /// Sends `signal`, waits for the exit; the status and what went to standard error.
        func stop(_ signal: Int32 = SIGTERM) -> (status: Int32, errors: String) {
            process.send(signal)
            let ended = process.finish()
            return (ended.status, String(decoding: ended.errors, as: UTF8.self))
        }
    }

    struct ServeError: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    static func curl(_ arguments: [String]) -> (status: Int32, out: String) {
        do {
            let result = try SpawnedProcess.run(executable: "/usr/bin/env", ["curl", "-s"] + arguments)
            return (result.status, String(decoding: result.output, as: UTF8.self))
        } catch {
            return (-1, "\(error)")
        }
    }

    static let examples = PackagePaths.examples

    @Test func servesACommittedCassetteToCurlAndPythonThenReportsOnSIGTERM() throws {
        let served = try Served(["--cassette", Self.examples.appendingPathComponent("users-api.json").path])
        #expect(served.base.hasPrefix("http://127.0.0.1:"))
        let user = Self.curl(["-i", served.base + "/users/42?fields=name,email"])
        #expect(user.out.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(user.out.hasSuffix(#"{"id":42,"name":"Ada Lovelace","email":"ada@example.com"}"#))
        #expect(user.out.contains("Set-Cookie: session=[REDACTED]\r\nSet-Cookie: theme=dark; Path=/\r\n"), "\(user.out)")

        // Python's http.client, a client nobody here wrote.
        let port = served.base.split(separator: ":").last.map(String.init) ?? ""
        let python = try SpawnedProcess.run(
            executable: "/usr/bin/env",
            [
                "python3", "-c",
                """
                import http.client, json
                c = http.client.HTTPConnection("127.0.0.1", \(port))
                c.request("POST", "/users", body=json.dumps({"name": "Grace Hopper", "languages": ["COBOL", "FLOW-MATIC"]}),
                          headers={"Content-Type": "application/json"})
                r = c.getresponse()
                print(r.status, r.getheader("Location"), json.loads(r.read())["id"])
                """,
            ])
        let printed = String(decoding: python.output, as: UTF8.self)
        #expect(printed == "201 https://api.example.com/users/43 43\n")

        let (status, errors) = served.stop()
        #expect(status == 0)
        #expect(errors.contains("cassette serve: stopped by SIGTERM; 2 replayed, 0 recorded, 0 unmatched"), "\(errors)")
    }

    /// A recorded OpenAI-style stream, served with its recorded latency: Python's `http.client`
    /// reads each event when it was recorded to arrive, chunk by chunk on the wire.
    @Test func streamsServerSentEventsToPythonWithTheirRecordedTiming() throws {
        let served = try Served([
            "--cassette", Self.examples.appendingPathComponent("chat-stream.json").path, "--mode", "none",
            "--latency", "recorded",
        ])
        let port = served.base.split(separator: ":").last.map(String.init) ?? ""
        let python = try SpawnedProcess.run(
            executable: "/usr/bin/env",
            [
                "python3", "-c",
                """
                import http.client, json, time
                c = http.client.HTTPConnection("127.0.0.1", \(port))
                body = json.dumps({"model": "gpt-4o-mini", "stream": True, "messages": [{"role": "user", "content": "Say hello"}]})
                start = time.monotonic()
                c.request("POST", "/v1/chat/completions", body=body, headers={"Content-Type": "application/json"})
                r = c.getresponse()
                events, data = [], []
                while True:
                    line = r.readline()
                    if not line:
                        break
                    line = line.rstrip(b"\\n")
                    if line.startswith(b"data: "):
                        data.append(line[6:].decode())
                    elif line == b"" and data:
                        events.append([time.monotonic() - start, "\\n".join(data)])
                        data = []
                print(json.dumps({"status": r.status, "type": r.getheader("Content-Type"), "framing": r.getheader("Transfer-Encoding"),
                                  "events": events}))
                """,
            ])
        let printed = python.output
        let result = try #require(
            try JSONSerialization.jsonObject(with: printed) as? [String: Any], "\(String(decoding: printed, as: UTF8.self))")
        #expect(result["status"] as? Int == 200)
        #expect(result["type"] as? String == "text/event-stream; charset=utf-8")
        #expect(result["framing"] as? String == "chunked")
        let events = try #require(result["events"] as? [[Any]])
        #expect(events.compactMap { $0.last as? String }.last == "[DONE]")
        let arrivals = events.compactMap { $0.first as? Double }
        let recorded = [0.412, 0.436, 0.471, 0.502, 0.538, 0.566, 0.601, 0.633, 0.66, 0.694, 0.721, 0.722]
        #expect(arrivals.count == recorded.count)
        for (arrival, offset) in zip(arrivals, recorded) {
            #expect(
                TimingIsolation.isOnTime(arrival, recorded: offset),
                "an event arrived at \(arrival) s, recorded at \(offset) s")
        }
        let (status, errors) = served.stop()
        #expect(status == 0)
        #expect(errors.contains("cassette serve: stopped by SIGTERM; 1 replayed, 0 recorded, 0 unmatched"), "\(errors)")
    }

    @Test func anUnmatchedRequestIsReportedAndStrictExitsOne() throws {
        let served = try Served([
            "--cassette", Self.examples.appendingPathComponent("users-api.json").path, "--strict", "--unmatched-status", "599",
        ])
        let miss = Self.curl(["-i", served.base + "/nothing"])
        #expect(miss.out.hasPrefix("HTTP/1.1 599 \r\n"))
        #expect(miss.out.contains("X-Cassette-Unmatched: true\r\n"))
        let (status, errors) = served.stop(SIGINT)
        #expect(status == 1)
        #expect(errors.contains("error: Cassette: no recorded interaction matches GET "), "\(errors)")
        #expect(errors.contains("0 replayed, 0 recorded, 1 unmatched"))
    }

    /// `--cassette` twice: the first is served, the second answers what the first has no
    /// recording for.
    @Test func aSecondCassetteAnswersWhatTheFirstHasNoRecordingFor() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        func write(_ pairs: [(String, String)], to name: String) throws {
            try JSONCassetteCodec.encode(
                CassetteDocument(
                    interactions: pairs.map { path, text in
                        Interaction(request: .init(url: "http://127.0.0.1" + path), response: .init(status: 200, body: .init(text: text)))
                    })
            ).write(to: folder.file(name))
        }
        try write([("/config", "scenario config")], to: "scenario.json")
        try write([("/config", "common config"), ("/session", "common session")], to: "common.json")
        let served = try Served(["--cassette", folder.file("scenario.json").path, "--cassette", folder.file("common.json").path])
        #expect(Self.curl([served.base + "/config"]).out == "scenario config")
        #expect(Self.curl([served.base + "/session"]).out == "common session")
        #expect(Self.curl(["-o", "/dev/null", "-w", "%{http_code}", served.base + "/config"]).out == "500")
        let (status, errors) = served.stop()
        #expect(status == 0)
        #expect(errors.contains("stopped by SIGTERM; 2 replayed, 0 recorded, 1 unmatched"), "\(errors)")
    }

    /// A month-old login replayed to curl: as recorded, curl drops the expired cookie and the
    /// account request misses; with `--time shifted` the cookie is valid, `Date` is today's and
    /// the JWT's `exp` a minute ahead, and `--verbose` lists what moved.
    @Test func aMonthOldLoginServedWithTimeShifted() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let old = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 30 * 86_400)
        var login = Interaction(
            request: .init(url: "http://127.0.0.1/login"),
            response: .init(
                status: 200,
                headers: [
                    "Content-Type": "application/json", "Date": LoopbackRoutes.httpDate(old),
                    "Set-Cookie": "session=s3ss10n; Expires=\(LoopbackRoutes.httpDate(old + 60)); Path=/",
                ],
                body: .init(
                    Data(#"{"jwt":"\#(LoopbackRoutes.jwt(issuedAt: old, expiresAt: old + 60))"}"#.utf8), contentType: "application/json")))
        login.recordedAt = old
        var account = Interaction(
            request: .init(url: "http://127.0.0.1/account", headers: ["Cookie": "session=s3ss10n"]),
            response: .init(status: 200, body: .init(text: "account of ada")))
        account.recordedAt = old + 1
        try JSONCassetteCodec.encode(CassetteDocument(interactions: [login, account])).write(to: folder.file("login.json"))
        try Data(#"{"matching": {"includingHeaders": ["Cookie"]}}"#.utf8).write(to: folder.file("cassette-rules.json"))
        let jar = folder.file("cookies.txt").path

        let recorded = try Served(["--cassette", folder.file("login.json").path])
        #expect(Self.curl(["-c", jar, "-b", jar, recorded.base + "/login"]).out.hasPrefix(#"{"jwt":""#))
        #expect(Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "-b", jar, recorded.base + "/account"]).out == "500")
        let (_, recordedErrors) = recorded.stop()
        #expect(recordedErrors.contains("Note: the cookie session set by interaction #1 expired on \(LoopbackRoutes.httpDate(old + 60))"))

        try? FileManager.default.removeItem(atPath: jar)
        let shifted = try Served(["--cassette", folder.file("login.json").path, "--time", "shifted", "--verbose"])
        let head = Self.curl(["-i", "-c", jar, "-b", jar, shifted.base + "/login"]).out
        let now = Date()
        let date = head.components(separatedBy: "\r\n").first { $0.hasPrefix("Date: ") }.flatMap { HTTPDate.parse(String($0.dropFirst(6))) }
        #expect(date.map { abs($0.timeIntervalSince(now)) < 30 } == true, "\(head)")
        #expect(Self.curl(["-b", jar, shifted.base + "/account"]).out == "account of ada")
        let (status, errors) = shifted.stop()
        #expect(status == 0)
        #expect(errors.contains("moved: #1 Set-Cookie session expires: \(LoopbackRoutes.httpDate(old + 60)) → "), "\(errors)")
        #expect(errors.contains("moved: #1 $.jwt: a JWT's iat, exp"))
        #expect(errors.contains("2 replayed, 0 recorded, 0 unmatched"))
    }

    @Test func recordsAsAReverseProxyAndSavesOnSIGTERM() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let upstream = try LoopbackServer()
        let file = scratch.file("proxy.json").path
        let recording = try Served(["--cassette", file, "--upstream", upstream.baseURL, "--mode", "once"])
        let live = Self.curl(["-i", recording.base + "/echo?via=proxy"])
        #expect(live.out.hasPrefix("HTTP/1.1 200 OK\r\n") && live.out.contains(#""query":"via=proxy""#))
        let (status, errors) = recording.stop()
        #expect(status == 0 && errors.contains("0 replayed, 1 recorded, 0 unmatched; saved \(file)"), "\(errors)")
        upstream.stop()

        let replaying = try Served(["--cassette", file, "--upstream", upstream.baseURL, "--mode", "none"])
        #expect(Self.curl(["-i", replaying.base + "/echo?via=proxy"]).out == live.out)
        #expect(replaying.stop().status == 0)
    }

    /// Connect and gRPC-Web calls through `cassette serve`, for a client that does not use a
    /// tape's session: a unary Connect POST and a gRPC-Web server stream recorded in front of the
    /// loopback server, kept message by message, then replayed offline to the same bytes.
    @Test func recordsAndReplaysRPCCallsAsAReverseProxy() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let upstream = try LoopbackServer()
        let file = scratch.file("rpc.json").path
        let client = URLSession(configuration: .ephemeral)
        let message = ProtobufWire.encode([.init(1, .delimited(.text("hello")))])
        func calls(_ base: String) throws -> [URLRequest] {
            var unary = URLRequest(url: try #require(URL(string: base + "/rpc.Echo/Say")))
            unary.httpMethod = "POST"
            unary.setValue("application/proto", forHTTPHeaderField: "Content-Type")
            unary.httpBody = message
            return [unary, URLRequest(url: try #require(URL(string: base + "/grpc-web/3/20")))]
        }

        let recording = try Served(["--cassette", file, "--upstream", upstream.baseURL, "--mode", "once"])
        var live: [Fetched] = []
        for request in try calls(recording.base) { live.append(await Fetch.run(request, on: client, style: .async)) }
        let (status, errors) = recording.stop()
        #expect(status == 0 && errors.contains("0 replayed, 2 recorded, 0 unmatched; saved \(file)"), "\(errors)")
        upstream.stop()
        #expect(live[0].status == 200 && live[0].body == Data([0x0A, UInt8(message.count)]) + message)
        let stream = (0..<3).map(LoopbackRoutes.grpcWebMessage).reduce(Data(), +) + LoopbackRoutes.grpcWebTrailers
        #expect(live[1].status == 200 && live[1].body == stream)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains(#""proto": [{ "field": 1, "message": [{ "field": 1, "text": "hello" }] }]"#), "\(text)")
        #expect(text.contains(#""trailers": ["grpc-status: 0", "grpc-message: "]"#), "\(text)")

        let replaying = try Served(["--cassette", file, "--upstream", upstream.baseURL, "--mode", "none"])
        for (request, seen) in zip(try calls(replaying.base), live) {
            let replayed = await Fetch.run(request, on: client, style: .async)
            #expect(replayed.status == seen.status && replayed.body == seen.body, "\(replayed)")
            #expect(replayed.headers["Content-Type"] == seen.headers["Content-Type"])
        }
        let replayedStatus = replaying.stop()
        #expect(
            replayedStatus.status == 0 && replayedStatus.errors.contains("2 replayed, 0 recorded, 0 unmatched"), "\(replayedStatus.errors)")
    }

    /// A WebSocket conversation recorded through `cassette serve` in front of the loopback
    /// server's `ws://` echo + push, by the project's own client and by Python's `websockets`,
    /// then replayed offline with the recorded latency: each client sees what it saw live, in the
    /// same order, each server message within 10 % + 20 ms of its recorded time after the client
    /// message it answered (the five pushes, 0.1–0.5 s after the third), the same close.
    @Test(.enabled(if: PythonWebSocketClient.python != nil, "needs a Python with websockets (CASSETTE_PYTHON)"))
    func recordsAWebSocketConversationAndReplaysItToPythonAndOurClient() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let upstream = try LoopbackServer()
        let file = scratch.file("chat.json").path
        let live = try PythonWebSocketClient.converse("ws://127.0.0.1:\(upstream.port)\(LoopbackWebSocket.path)")
        #expect(live.messages.count == 8 && live.close == [.code(1000), .reason("done")])

        func ours(port: Int) throws -> [WebSocketFrameReader.Message] {
            let client = try WebSocketTestClient(port: port, path: LoopbackWebSocket.path)
            var seen: [WebSocketFrameReader.Message] = []
            for n in 1...3 {
                client.send(text: #"{"say":"hello \#(n)"}"#)
                if let answer = try client.receive() { seen.append(answer.message) }
            }
            return seen + (try client.receiveAll(timeout: 5 * TimingIsolation.scale)).map(\.message)
        }
        let ourLive = try ours(port: upstream.port)

        let recording = try Served(["--cassette", file, "--upstream", "ws://127.0.0.1:\(upstream.port)", "--mode", "once"])
        let port = Int(recording.base.split(separator: ":").last ?? "") ?? 0
        #expect(try ours(port: port) == ourLive)
        let recorded = try PythonWebSocketClient.converse("ws://127.0.0.1:\(port)\(LoopbackWebSocket.path)")
        #expect(recorded.messages == live.messages && recorded.close == live.close && recorded.subprotocol == "chat.v1")
        let (status, errors) = recording.stop()
        #expect(status == 0 && errors.contains("0 replayed, 2 recorded, 0 unmatched; saved \(file)"), "\(errors)")
        upstream.stop()

        let document = try CassetteFile.read(URL(fileURLWithPath: file))
        #expect(document.interactions.map(\.response?.status) == [101, 101])
        let pythonsRecording = try #require(document.interactions.last?.webSocket)
        #expect(pythonsRecording.messages.first?.kind == .ping)
        // Each server message's time after the client message it answered, as recorded.
        var recordedGaps: [Double] = []
        var lastClient = 0.0
        for message in pythonsRecording.messages {
            if message.from == .client, message.kind == .text { lastClient = message.at }
            if message.from == .server, message.kind == .text { recordedGaps.append(message.at - lastClient) }
        }

        let replaying = try Served(["--cassette", file, "--mode", "none", "--latency", "recorded"])
        let replayPort = Int(replaying.base.split(separator: ":").last ?? "") ?? 0
        #expect(try ours(port: replayPort) == ourLive)
        let replayed = try PythonWebSocketClient.converse("ws://127.0.0.1:\(replayPort)\(LoopbackWebSocket.path)")
        #expect(replayed.messages == live.messages && replayed.close == live.close && replayed.pong)
        #expect(replayed.answeredAfter.count == recordedGaps.count)
        for (seen, gap) in zip(replayed.answeredAfter, recordedGaps) {
            #expect(TimingIsolation.isOnTime(seen, recorded: gap), "replayed \(seen) s after, recorded \(gap) s after")
        }
        let stopped = replaying.stop()
        #expect(stopped.status == 0 && stopped.errors.contains("2 replayed, 0 recorded, 0 unmatched"), "\(stopped.errors)")
    }

    /// SIGINT and SIGTERM are held from the process's start, so a signal sent the moment
    /// "listening on" is read (a quick CI script) stops the server cleanly: no kill by the
    /// default action, no signal lost while the server serves on.
    @Test func aSignalTheMomentTheServerListensStopsItCleanlyEveryTime() throws {
        let cassette = Self.examples.appendingPathComponent("users-api.json").path
        var outcomes: [String: Int] = [:]
        for attempt in 0..<100 {
            let served = try Served(["--cassette", cassette])
            let (status, errors) = served.stop(attempt % 2 == 0 ? SIGTERM : SIGINT)
            let signal = attempt % 2 == 0 ? "SIGTERM" : "SIGINT"
            let clean = status == 0 && errors == "cassette serve: stopped by \(signal); 0 replayed, 0 recorded, 0 unmatched\n"
            outcomes[clean ? "clean" : "status \(status): \(errors)", default: 0] += 1
        }
        #expect(outcomes == ["clean": 100])
    }

    /// `serve --mode once` on a new cassette, stopped before any client came: no file is left (an
    /// empty one blocked every later recording in mode once), and nothing blames another session.
    @Test func anIdleRecordingServerLeavesNoFile() throws {
        try withScratchTape { scratch in
            let file = scratch.file("idle.json").path
            let served = try Served(["--cassette", file, "--upstream", scratch.server.baseURL, "--mode", "once"])
            let (status, errors) = served.stop()
            #expect(status == 0)
            #expect(errors == "cassette serve: stopped by SIGTERM; 0 replayed, 0 recorded, 0 unmatched\n")
            #expect(!FileManager.default.fileExists(atPath: file))
        }
    }

    /// SIGTERM while a recording waits on a slow upstream (a minute): the server stops within a
    /// second, keeps nothing of the exchange cut short, and leaves no file.
    @Test func aSignalDuringARecordingStopsTheServerWithinASecond() throws {
        try withScratchTape { scratch in
            let file = scratch.file("slow.json").path
            let recording = try Served(["--cassette", file, "--upstream", scratch.server.baseURL, "--mode", "once"])
            let client = Thread { _ = Self.curl(["-m", "30", recording.base + "/slow-chunks/60/1000"]) }
            client.start()
            let deadline = Date().addingTimeInterval(10)
            while scratch.server.received.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            Thread.sleep(forTimeInterval: 0.3)
            let start = Date()
            let (status, errors) = recording.stop()
            let waited = Date().timeIntervalSince(start)
            #expect(waited < 1 * TimingIsolation.scale, "\(waited) s")
            #expect(status == 0, "\(errors)")
            #expect(errors.hasSuffix("0 replayed, 0 recorded, 0 unmatched\n"), "\(errors)")
            #expect(!FileManager.default.fileExists(atPath: file))
        }
    }

    /// A recording proxy stopped at once after its first exchange keeps that exchange.
    @Test func aRecordingProxyStoppedRightAfterItsFirstExchangeSavesIt() throws {
        try withScratchTape { scratch in
            for attempt in 0..<20 {
                let file = scratch.file("quick-\(attempt).json").path
                let recording = try Served(["--cassette", file, "--upstream", scratch.server.baseURL, "--mode", "once"])
                let live = Self.curl(["-i", recording.base + "/echo?attempt=\(attempt)"])
                let (status, errors) = recording.stop()
                #expect(live.out.hasPrefix("HTTP/1.1 200 OK\r\n"))
                #expect(status == 0 && errors.hasSuffix("0 replayed, 1 recorded, 0 unmatched; saved \(file)\n"), "\(errors)")
                let saved = try JSONCassetteCodec.decode(Data(contentsOf: URL(fileURLWithPath: file)), file: file)
                #expect(saved.interactions.map(\.request.url) == [scratch.server.baseURL + "/echo?attempt=\(attempt)"])
            }
        }
    }

    /// Each recording answers once unless `--allow-repeated-replays` is given; the miss report
    /// names that flag (not the library's option). With it, 64 clients on keep-alive
    /// connections get the one recording 2,000 times each.
    @Test func repeatedReplaysAreAllowedByTheFlagAndTheMissReportNamesIt() throws {
        let cassette = Self.examples.appendingPathComponent("users-api.json").path
        let request = "GET /users/42?fields=name,email HTTP/1.1\r\nHost: api.example.com\r\n\r\n"
        let once = try Served(["--cassette", cassette])
        let first = try RawHTTP(port: try #require(URL(string: once.base)?.port))
        #expect(first.send(request))
        #expect(first.receiveResponse()?.head.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
        #expect(first.send(request))
        let second = first.receiveResponse()
        #expect(second?.head.hasPrefix("HTTP/1.1 500 ") == true)
        let report = String(decoding: second?.body ?? Data(), as: UTF8.self)
        #expect(
            report.hasSuffix("to replay the last answer again instead, run cassette serve with --allow-repeated-replays.\n"), "\(report)")
        #expect(once.stop().status == 0)

        let repeating = try Served(["--cassette", cassette, "--allow-repeated-replays"])
        let port = try #require(URL(string: repeating.base)?.port)
        let failures = Locked<[String]>([])
        let clients = DispatchGroup()
        for client in 0..<64 {
            clients.enter()
            let thread = Thread {
                defer { clients.leave() }
                do {
                    let connection = try RawHTTP(port: port)
                    for attempt in 0..<2_000 {
                        guard connection.send(request), let answer = connection.receiveResponse(timeout: 30),
                            answer.head.hasPrefix("HTTP/1.1 200 OK\r\n"),
                            answer.body == Data(#"{"id":42,"name":"Ada Lovelace","email":"ada@example.com"}"#.utf8)
                        else {
                            failures.withLock { $0.append("client \(client), request \(attempt)") }
                            return
                        }
                    }
                } catch {
                    failures.withLock { $0.append("client \(client): \(error)") }
                }
            }
            thread.start()
        }
        #expect(clients.wait(timeout: .now() + 600) == .success)
        let (status, errors) = repeating.stop()
        #expect(failures.withLock { $0 } == [])
        #expect(status == 0 && errors == "cassette serve: stopped by SIGTERM; 128000 replayed, 0 recorded, 0 unmatched\n", "\(errors)")
    }

    /// serve reads the environment a tape reads; the command line wins.
    @Test func theEnvironmentChoosesWhatTheCommandLineDoesNot() throws {
        try withScratchTape { scratch in
            let upstream = ["--upstream", scratch.server.baseURL]
            for (index, environment) in [["CASSETTE_RECORD_MODE": "none"], ["CI": "true"]].enumerated() {
                let missing = scratch.file("new-\(index).json").path
                do {
                    let served = try Served(["--cassette", missing] + upstream, environment: environment)
                    _ = served.stop()
                    Issue.record("\(environment): cassette serve listened on \(served.base) in a mode that records")
                } catch let refused as ServeError {
                    #expect(refused.text.contains("does not exist and record mode \"none\" never records"), "\(refused.text)")
                }
                // --mode wins over both.
                let recording = try Served(["--cassette", missing, "--mode", "once"] + upstream, environment: environment)
                #expect(recording.stop().status == 0)
            }
            // A relative --cassette is in CASSETTE_FOLDER, unless --folder says where.
            let examples = Self.examples.path
            let served = try Served(["--cassette", "users-api.json"], environment: ["CASSETTE_FOLDER": examples])
            #expect(Self.curl([served.base + "/users/42?fields=name,email"]).out.hasPrefix(#"{"id":42"#))
            #expect(served.stop().status == 0)
            let elsewhere = try ChildProcess.run(
                "cassette", ["serve", "--cassette", "users-api.json", "--folder", scratch.url.path, "--mode", "none"],
                environment: ["CASSETTE_FOLDER": examples])
            #expect(elsewhere.status == 1 && elsewhere.output.contains(scratch.file("users-api.json").path), "\(elsewhere.output)")
        }
    }

    /// --host takes IPv4, IPv6 and names; the first line names an address a client can use.
    @Test func hostTakesAddressesOfBothFamiliesAndNames() throws {
        let cassette = Self.examples.appendingPathComponent("users-api.json").path
        for (host, prefixes, note) in [
            ("::1", ["http://[::1]:"], ""), ("localhost", ["http://127.0.0.1:", "http://[::1]:"], ""),
            ("0.0.0.0", ["http://127.0.0.1:"], " (every interface, 0.0.0.0)"),
        ] {
            let served = try Served(["--cassette", cassette, "--host", host])
            #expect(prefixes.contains { served.base.hasPrefix($0) }, "\(host): \(served.base)")
            #expect(served.firstLine == "listening on \(served.base)\(note)")
            let user = Self.curl([served.base + "/users/42?fields=name,email"])
            #expect(user.out == #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com"}"#, "\(host)")
            let stopped = served.stop()
            #expect(stopped.status == 0, "\(stopped.errors)")
        }
        let unknown = try ChildProcess.run("cassette", ["serve", "--cassette", cassette, "--host", "no-such-host.invalid"])
        #expect(unknown.status == 1)
        #expect(
            unknown.output.hasPrefix(
                "error: Cassette: the replay server cannot start: cannot listen on no-such-host.invalid: no such address or host name ("),
            "\(unknown.output)")
    }

    /// `serve --folder`: scenarios loaded over HTTP; with --admin-token, an admin request without
    /// the token (or with a wrong one) gets 403 and changes nothing.
    @Test func aFolderServerLoadsScenariosForAdminsWithTheToken() throws {
        let examples = Self.examples.path
        let served = try Served(["--folder", examples, "--mode", "none", "--admin-token", "t0ken"])
        let load = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-d", #"{"cassette": "users-api"}"#]
        #expect(Self.curl(load + [served.base + "/__cassette/load"]).out == "403")
        #expect(Self.curl(load + ["-H", "X-Cassette-Admin-Token: t0ke", served.base + "/__cassette/load"]).out == "403")
        #expect(Self.curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", served.base + "/users/42?fields=name,email"]).out == "503")
        #expect(Self.curl(load + ["-H", "X-Cassette-Admin-Token: t0ken", served.base + "/__cassette/load"]).out == "200")
        #expect(Self.curl([served.base + "/users/42?fields=name,email"]).out.hasPrefix(#"{"id":42"#))
        let report = Self.curl(["-H", "X-Cassette-Admin-Token: t0ken", served.base + "/__cassette/report"]).out
        #expect(report.contains(#""replayed":1"#), "\(report)")
        let (status, errors) = served.stop()
        #expect(status == 0 && errors == "cassette serve: stopped by SIGTERM; 1 replayed, 0 recorded, 0 unmatched\n", "\(errors)")

        // Without the admin interface, its paths are requests like any other.
        let plain = try Served(
            ["--cassette", "users-api.json", "--mode", "none", "--no-admin"], environment: ["CASSETTE_FOLDER": examples])
        #expect(Self.curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", plain.base + "/__cassette/report"]).out == "500")
        let plainStop = plain.stop()
        #expect(plainStop.status == 0, "\(plainStop.errors)")
        let moved = try Served(
            ["--cassette", "users-api.json", "--mode", "none", "--admin-prefix", "/_admin"], environment: ["CASSETTE_FOLDER": examples])
        #expect(Self.curl([moved.base + "/_admin/report"]).out.contains(#""replayed":0"#))
        let movedStop = moved.stop()
        #expect(movedStop.status == 0, "\(movedStop.errors)")
    }

    @Test func wrongCommandLinesExitTwo() throws {
        for (arguments, message) in [
            ([String](), "error: 'cassette serve' needs --cassette FILE or --folder DIR. Run 'cassette serve --help'."),
            (["--cassette", "a.json", "--port", "70000"], "error: --port needs a number from 0 to 65535. Run 'cassette serve --help'."),
            (
                ["--cassette", "a.json", "--upstream", "ftp://x"],
                "error: --upstream needs an http, https, ws or wss URL, such as https://api.example.com. Run 'cassette serve --help'."
            ),
            (
                ["--cassette", "a.json", "--unmatched-status", "404"],
                "error: --unmatched-status needs a status from 500 to 599. Run 'cassette serve --help'."
            ),
        ] {
            let result = try ChildProcess.run("cassette", ["serve"] + arguments)
            #expect(result.status == 2 && result.output == message + "\n", "\(arguments): \(result.output)")
        }
        let missing = try ChildProcess.run("cassette", ["serve", "--cassette", "/nonexistent/a.json", "--mode", "none"])
        #expect(
            missing.status == 1 && missing.output.contains("does not exist and record mode \"none\" never records"), "\(missing.output)")
    }
}
#endif
