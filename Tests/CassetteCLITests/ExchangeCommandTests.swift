import Cassette
import CassetteTestSupport
import CassetteTools
import Foundation
import Testing

@testable import CassetteCLI

#if canImport(Glibc)
import Glibc
#endif

/// Its tests wait for requests on a semaphore (as the tool does), so they take turns with the timing tests.
@Suite(.timingIsolated) struct ExchangeCommandTests {
    @Test func recordAppendsAndPlayReplaysOffline() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let file = scratch.file("cli.json").path
        let server = try LoopbackServer()
        let url = server.baseURL + "/echo?x=1"

        let recorded = Captured.runCapturingBytes([
            "record", "--cassette", file, "-H", "Accept: application/json", "--data", #"{"a":1}"#, url,
        ])
        #expect(recorded.status == 0)
        #expect(recorded.error == "")
        let echoed = try #require(try JSONSerialization.jsonObject(with: recorded.out) as? [String: Any])
        #expect(echoed["method"] as? String == "POST")
        #expect(echoed["body"] as? String == #"{"a":1}"#)

        let second = Captured.runCapturingBytes(["record", "--cassette", file, server.baseURL + "/bytes/300"])
        #expect(second.status == 0)
        #expect(second.out == Data((0..<300).map { UInt8($0 % 251) }))
        server.stop()

        let document = try JSONCassetteCodec.decode(Data(contentsOf: URL(fileURLWithPath: file)), file: file)
        #expect(document.interactions.map(\.request.method) == ["POST", "GET"])
        #expect(document.interactions[0].request.headers["Accept"] == "application/json")

        let played = Captured.runCapturingBytes(["play", "--cassette", file, "-H", "Accept: application/json", "-d", #"{"a":1}"#, url])
        #expect(played.status == 0)
        #expect(played.out == recorded.out)

        let included = Captured.run(["play", "--cassette", file, "--include", server.baseURL + "/bytes/300"])
        #expect(included.status == 0)
        #expect(included.out.hasPrefix("HTTP/1.1 200 OK\r\nContent-Length: 300\r\nContent-Type: application/octet-stream\r\n\r\n"))
    }

    /// `CASSETTE_LIVE=1`: `record` sends the request live and keeps nothing; `play` stays offline.
    @Test func theLiveSwitchReachesRecordButNotPlay() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let file = scratch.file("live.json")
        try Data(
            #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "\#(server.baseURL)/status/201" }, "response": { "status": 500, "body": "recorded" } } ] }"#
                .utf8
        ).write(to: file)
        let before = try Data(contentsOf: file)
        let live = Captured.run(["record", "--cassette", file.path, server.baseURL + "/status/201"], environment: ["CASSETTE_LIVE": "1"])
        #expect(live.status == 0, "\(live.error)")
        #expect(live.out == "status 201")
        #expect(server.received.count == 1)
        let played = Captured.run(["play", "--cassette", file.path, server.baseURL + "/status/201"], environment: ["CASSETTE_LIVE": "1"])
        #expect(played.out == "recorded")
        #expect(server.received.count == 1)
        #expect(try Data(contentsOf: file) == before)
    }

    /// The README's main command prints what the README shows.
    @Test func theReadmeMainCommandPrintsWhatTheReadmeShows() throws {
        let examples = Locations.packageRoot.appendingPathComponent("Cassettes/Examples/users-api.json").path
        let result = Captured.run(["play", "--cassette", examples, "--include", "https://api.example.com/users/42?fields=name,email"])
        #expect(result.status == 0)
        let readme = try String(contentsOf: Locations.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let shown =
            "HTTP/1.1 200 OK\nCache-Control: private, max-age=60\nContent-Type: application/json; charset=utf-8\n"
            + "Set-Cookie: session=[REDACTED], theme=dark; Path=/\n\n{\"id\":42,\"name\":\"Ada Lovelace\",\"email\":\"ada@example.com\"}"
        #expect(readme.contains("```text\n" + shown + "\n```"))
        #expect(result.out.replacingOccurrences(of: "\r\n", with: "\n") == shown)
    }

    @Test func playWithoutAMatchExitsOneWithTheReason() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let examples = Locations.packageRoot.appendingPathComponent("Cassettes/Examples/users-api.json").path
        let result = Captured.run(["play", "--cassette", examples, "https://api.example.com/nothing-here"])
        #expect(result.status == 1)
        #expect(result.out == "")
        #expect(
            result.error.hasPrefix(
                "error: Cassette: no recorded interaction matches GET https://api.example.com/nothing-here in cassette \(examples) (record mode none)."
            ))

        let missing = Captured.run(["play", "--cassette", scratch.file("missing.json").path, "https://api.example.com/"])
        #expect(missing.status == 1)
        #expect(missing.error.contains("does not exist and record mode \"none\" never records"))
    }

    @Test func aRecordedTransportErrorExitsThree() throws {
        let examples = Locations.packageRoot.appendingPathComponent("Cassettes/Examples/service-outage.json").path
        let result = Captured.run(["play", "--cassette", examples, "https://api.example.com/status"])
        #expect(result.status == 3)
        #expect(result.out == "")
        #expect(result.error.hasPrefix("error: URLError -1009 (notConnectedToInternet)"))
    }

    #if os(Linux) || os(macOS)  // starts a process
    @Test func recordingAConnectionFailureSavesTheErrorOnlyWhenAskedAndExitsThree() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let file = scratch.file("refused.json").path
        let server = try LoopbackServer()
        let url = server.baseURL + "/nothing"
        server.stop()  // the port is now closed

        // By default the failure reaches the caller but is not saved, and stderr says why.
        // (The built tool, so that what the library writes to standard error is seen too.)
        // An empty CI and CASSETTE_RECORD_MODE count as unset: the CI run's CI=true must not make this replay-only.
        let unsaved = try ChildProcess.run(
            "cassette", ["record", "--cassette", file, url], environment: ["CI": "", "CASSETTE_RECORD_MODE": ""])
        #expect(unsaved.status == 3)
        #expect(
            unsaved.output.hasPrefix(
                "Cassette warning: GET \(url) could not connect (cannotConnectToHost (-1004)) while recording \(file); "
                    + "the caller got the error, but it was not saved"), "\(unsaved.output)")
        #expect(unsaved.output.contains("error: URLError -1004 (cannotConnectToHost)"))
        #expect(!FileManager.default.fileExists(atPath: file))

        let recorded = Captured.run(["record", "--cassette", file, "--save-connection-failures", url])
        #expect(recorded.status == 3)
        #expect(recorded.error.hasPrefix("error: URLError -1004 (cannotConnectToHost)"))
        let replayed = Captured.run(["play", "--cassette", file, url])
        #expect(replayed.status == 3)
        #expect(replayed.error.hasPrefix("error: URLError -1004 (cannotConnectToHost)"))
    }
    #endif

    @Test func recordAndPlayTakeTheLibrarysRedactionOptions() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let file = scratch.file("redacted.json").path
        let server = try LoopbackServer()
        let tenant = "tenant-7f3a9c2e51"
        let pin = "pin-55193874"
        let ssn = "ssn-078051120"
        let url = server.baseURL + "/echo?session=\(pin)"
        let arguments = [
            "--cassette", file, "-H", "X-Tenant: \(tenant)", "-H", "Content-Type: application/json", "--data", #"{"ssn":"\#(ssn)"}"#,
            "--redact-header", "X-Tenant", "--redact-query", "session", "--redact-json-key", "ssn", url,
        ]
        let recorded = Captured.run(["record"] + arguments)
        #expect(recorded.status == 0, "\(recorded.error)")
        #expect(recorded.out.contains(tenant), "the live answer echoes the values")
        server.stop()
        let saved = String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)
        for secret in [tenant, pin, ssn] { #expect(!saved.contains(secret), "\(secret) was saved") }
        #expect(saved.contains(#""X-Tenant": "[REDACTED-1]""#))

        // The same request matches offline, and the answer gives the client its own values back.
        let played = Captured.run(["play"] + arguments)
        #expect(played.status == 0, "\(played.error)")
        #expect(played.out.contains(tenant) && played.out.contains(ssn))
        // A placeholder stands for whatever the request has in its place: the same request
        // matches without the rules too, and still not a changed one.
        let unredacted = Captured.run([
            "play", "--cassette", file, "-H", "X-Tenant: \(tenant)", "-H", "Content-Type: application/json",
            "--data", #"{"ssn":"\#(ssn)"}"#, url,
        ])
        #expect(unredacted.status == 0, "\(unredacted.error)")
        let changed = Captured.run([
            "play", "--cassette", file, "-H", "X-Tenant: \(tenant)", "-H", "Content-Type: application/json",
            "--data", #"{"ssn":"\#(ssn)","extra":1}"#, url,
        ])
        #expect(changed.status == 1)
        #expect(
            changed.error.hasPrefix(
                "error: Cassette: no recorded interaction matches POST \(url.replacingOccurrences(of: pin, with: "[REDACTED]"))"),
            "\(changed.error)")
    }

    @Test func usageErrors() {
        let noCassette = Captured.run(["play", "https://example.com/"])
        #expect(noCassette.status == 2)
        #expect(noCassette.error == "error: 'cassette play' needs --cassette FILE. Run 'cassette play --help'.\n")
        let badHeader = Captured.run(["record", "--cassette", "x.json", "-H", "NoColon", "https://example.com/"])
        #expect(badHeader.status == 2)
        #expect(badHeader.error == "error: \"NoColon\" is not a header field; write it as \"Name: value\". Run 'cassette record --help'.\n")
        let notHTTP = Captured.run(["play", "--cassette", "x.json", "ftp://example.com/"])
        #expect(notHTTP.status == 2)
        #expect(notHTTP.error == "error: 'ftp://example.com/' is not an http or https URL. Run 'cassette play --help'.\n")
        let help = Captured.run(["help", "record"])
        #expect(help.status == 0)
        #expect(help.out.hasPrefix("USAGE: cassette record --cassette FILE"))
    }

    #if os(Linux) || os(macOS)  // starts a process
    /// A signal in the middle of a long replay (or recording) cancels it and says so; the process
    /// does not die with the signal's default action.
    @Test func aSignalDuringPlayStopsItAndSaysSo() throws {
        let examples = Locations.packageRoot.appendingPathComponent("Cassettes/Examples/users-api.json").path
        let process = try SpawnedProcess(
            executable: ChildProcess.url(of: "cassette").path,
            ["play", "--cassette", examples, "--latency", "fixed:60,60", "https://api.example.com/users/42?fields=name,email"],
            environment: ChildProcess.environment())
        Thread.sleep(forTimeInterval: 0.5)  // the replay is waiting out its 60 s first byte
        let start = Date()
        process.send(SIGINT)
        let ended = process.finish()
        let text = String(decoding: ended.errors, as: UTF8.self)
        #expect(Date().timeIntervalSince(start) < 30)
        // 1, its own exit status: not 130, the status of a process the signal ended.
        #expect(ended.status == 1)
        #expect(text == "error: stopped by SIGINT before the answer was complete; nothing was printed\n")
    }

    /// SIGTERM in the middle of a recording that waits on a slow server (a minute): the tool ends
    /// within a second, says so, and leaves no new cassette (it held the signal until the exchange
    /// ended, 404 s, and left `"interactions": []`, which mode once never records into).
    @Test func aSignalDuringRecordStopsItWithinASecondAndLeavesNoFile() throws {
        try withScratchTape { scratch in
            let file = scratch.url.appendingPathComponent("interrupted.json").path
            let process = try SpawnedProcess(
                executable: ChildProcess.url(of: "cassette").path, ["record", "--cassette", file, scratch.url("/delay/60000")],
                environment: ChildProcess.environment(["CI": "", "CASSETTE_RECORD_MODE": ""]))
            let deadline = Date().addingTimeInterval(10)
            while scratch.server.received.isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            #expect(!scratch.server.received.isEmpty, "the request never reached the server")
            let start = Date()
            process.send(SIGTERM)
            let ended = process.finish()
            let waited = Date().timeIntervalSince(start)
            #expect(waited < 1 * TimingIsolation.scale, "\(waited) s")
            #expect(ended.status == 1)
            #expect(
                String(decoding: ended.errors, as: UTF8.self)
                    == "error: stopped by SIGTERM before the answer was complete; nothing was recorded, and no cassette was created\n")
            #expect(!FileManager.default.fileExists(atPath: file))
        }
    }
    #endif

    /// record reads CASSETTE_RECORD_MODE and CI as a tape does, --mode winning; play never
    /// records whatever the environment says; CASSETTE_FOLDER places a relative --cassette.
    @Test func recordAndPlayReadTheEnvironmentAndTheCommandLineWins() throws {
        try withScratchTape { scratch in
            let url = scratch.url("/status/201")
            let first = Captured.run(["record", "--cassette", "ci.json", "--folder", scratch.url.path, scratch.url("/echo?env=0")])
            #expect(first.status == 0, "\(first.error)")
            let underCI = Captured.run(["record", "--cassette", "ci.json", "--folder", scratch.url.path, url], environment: ["CI": "true"])
            #expect(underCI.status == 1)
            #expect(underCI.error.contains("(record mode none)"), "\(underCI.error)")
            #expect(
                underCI.error.hasSuffix(
                    "To fix: if the request is new, record it with --mode newEpisodes on a machine with network access; if the code "
                        + "under test should have sent the recorded request, check what it builds.\n"), "\(underCI.error)")
            let given = Captured.run(
                ["record", "--cassette", "ci.json", "--mode", "newEpisodes", url],
                environment: ["CI": "true", "CASSETTE_FOLDER": scratch.url.path])
            #expect(given.status == 0 && given.error == "", "\(given.error)")
            #expect(FileManager.default.fileExists(atPath: scratch.file("ci.json").path))

            let elsewhere = scratch.url("/echo?env=2")
            let played = Captured.run(
                ["play", "--cassette", "ci.json", elsewhere],
                environment: ["CASSETTE_RECORD_MODE": "all", "CASSETTE_FOLDER": scratch.url.path])
            #expect(played.status == 1)
            #expect(played.error.contains("(record mode none)"), "\(played.error)")
            let again = Captured.run(
                ["play", "--cassette", "ci.json", "--allow-repeated-replays", url], environment: ["CASSETTE_FOLDER": scratch.url.path])
            #expect(again.status == 0, "\(again.error)")
        }
    }
}
