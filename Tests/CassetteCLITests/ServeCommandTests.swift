import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `cassette serve` as a user runs it: a child process that prints where it listens, serves
/// until a signal, then saves and reports. Clients: curl and Python's `http.client`.
@Suite(.timingIsolated) struct ServeCommandTests {
    /// A running `cassette serve`.
    final class Served: @unchecked Sendable {
        let process = Process()
        let base: String
        private let errors = Pipe()

        init(_ arguments: [String]) throws {
            process.executableURL = ChildProcess.url(of: "cassette")
            process.arguments = ["serve"] + arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            // The first line says where it listens.
            var line = Data()
            while !line.contains(0x0A) {
                let byte = output.fileHandleForReading.readData(ofLength: 1)
                if byte.isEmpty { break }
                line += byte
            }
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasPrefix("listening on http://") else {
                process.waitUntilExit()
                throw ServeError(
                    text:
                        "cassette serve printed \(text.debugDescription): \(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))"
                )
            }
            base = String(text.dropFirst("listening on ".count))
        }

        /// Sends `signal`, waits for the exit; the status and what went to standard error.
        func stop(_ signal: Int32 = SIGTERM) -> (status: Int32, errors: String) {
            kill(process.processIdentifier, signal)
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, text)
        }
    }

    struct ServeError: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    static func curl(_ arguments: [String]) -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s"] + arguments
        let out = Pipe()
        process.standardOutput = out
        do { try process.run() } catch { return (-1, "\(error)") }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
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
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let port = served.base.split(separator: ":").last.map(String.init) ?? ""
        python.arguments = [
            "python3", "-c",
            """
            import http.client, json
            c = http.client.HTTPConnection("127.0.0.1", \(port))
            c.request("POST", "/users", body=json.dumps({"name": "Grace Hopper", "languages": ["COBOL", "FLOW-MATIC"]}),
                      headers={"Content-Type": "application/json"})
            r = c.getresponse()
            print(r.status, r.getheader("Location"), json.loads(r.read())["id"])
            """,
        ]
        let out = Pipe()
        python.standardOutput = out
        try python.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        python.waitUntilExit()
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
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
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
        ]
        let out = Pipe()
        python.standardOutput = out
        try python.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
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
                abs(arrival - offset) <= 0.1 * offset + 0.02 * TimingIsolation.scale,
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

    @Test func wrongCommandLinesExitTwo() throws {
        for (arguments, message) in [
            ([String](), "error: 'cassette serve' needs --cassette FILE. Run 'cassette serve --help'."),
            (["--cassette", "a.json", "--port", "70000"], "error: --port needs a number from 0 to 65535. Run 'cassette serve --help'."),
            (
                ["--cassette", "a.json", "--upstream", "ftp://x"],
                "error: --upstream needs an http or https URL, such as https://api.example.com. Run 'cassette serve --help'."
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
