import Cassette
import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteCLI

/// `cassette record --mode`, `cassette play --latency` (and `CASSETTE_LATENCY`), and
/// `--match-ignoring` on both. Timing is asserted with generous bounds only.
@Suite(.timingIsolated) struct ExchangeOptionsTests {
    /// A cassette whose one interaction took 0.8 s to arrive when it was recorded.
    static func slowCassette(in scratch: ScratchFolder, seconds: TimeInterval = 0.8) throws -> String {
        let file = scratch.file("slow.json")
        try JSONCassetteCodec.encode(
            CassetteDocument(interactions: [
                Interaction(
                    request: .init(url: "https://api.example.com/slow"), response: .init(status: 200, body: .init(text: "finally")),
                    timing: .init(firstByte: seconds, duration: seconds))
            ])
        ).write(to: file)
        return file.path
    }

    static func timed(_ body: () throws -> Void) rethrows -> TimeInterval {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    @Test func playTakesTheRecordedLatencyWhenAskedAndInstantByDefault() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let file = try Self.slowCassette(in: scratch)
        var result: (status: Int32, out: String, error: String) = (0, "", "")
        let recorded = Self.timed {
            result = Captured.run(["play", "--cassette", file, "--latency", "recorded", "https://api.example.com/slow"])
        }
        #expect(result.status == 0 && result.out == "finally")
        #expect(recorded >= 0.75 && recorded < 10, "\(recorded) s")
        let instant = Self.timed { result = Captured.run(["play", "--cassette", file, "https://api.example.com/slow"]) }
        #expect(result.status == 0 && instant < 0.5, "\(instant) s")
        let fixed = Self.timed {
            result = Captured.run(["play", "--cassette", file, "--latency", "fixed:0.6,0.6", "https://api.example.com/slow"])
        }
        #expect(result.status == 0 && fixed >= 0.55 && fixed < 10, "\(fixed) s")

        let wrong = Captured.run(["play", "--cassette", file, "--latency", "slow", "https://api.example.com/slow"])
        #expect(wrong.status == 2)
        #expect(
            wrong.error.hasPrefix(
                "error: --latency takes instant, recorded, scaled:FACTOR, fixed:FIRSTBYTE,DURATION, or speed:SPEED[,FIRSTBYTE]"))
    }

    #if os(Linux) || os(macOS)  // starts a process
    /// The README promises every tape honours `CASSETTE_LATENCY`; `play` is one (a child process,
    /// since the tool reads its own environment). `--latency` wins over it.
    /// Through a child process, whose start-up alone can take a second under a sanitizer on a
    /// loaded machine: the recorded 2 s must show as the difference between the two runs (at
    /// least 1 s of it), not as an absolute time.
    @Test func playHonoursCassetteLatencyFromTheEnvironment() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let file = try Self.slowCassette(in: scratch, seconds: 2)
        var result: (status: Int32, output: String) = (0, "")
        let fromEnvironment = try Self.timed {
            result = try ChildProcess.run(
                "cassette", ["play", "--cassette", file, "https://api.example.com/slow"], environment: ["CASSETTE_LATENCY": "recorded"])
        }
        #expect(result.status == 0 && result.output == "finally")
        #expect(fromEnvironment >= 2 && fromEnvironment < 60, "\(fromEnvironment) s")
        let overridden = try Self.timed {
            result = try ChildProcess.run(
                "cassette", ["play", "--cassette", file, "--latency", "instant", "https://api.example.com/slow"],
                environment: ["CASSETTE_LATENCY": "recorded"])
        }
        #expect(result.status == 0 && overridden < fromEnvironment - 1, "\(overridden) s, against \(fromEnvironment) s with the latency")
        let wrong = try ChildProcess.run(
            "cassette", ["play", "--cassette", file, "https://api.example.com/slow"], environment: ["CASSETTE_LATENCY": "sometimes"])
        #expect(wrong.status == 1 && wrong.output.contains("sometimes"), "\(wrong.output)")
    }

    /// `CASSETTE_WRITE_MISSES` reaches the tool's tapes as a test's: `1` writes the misses beside
    /// the cassette (the tool ignored it), `maybe` is refused naming the accepted values (the tool
    /// accepted it).
    @Test func playHonoursCassetteWriteMisses() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let file = try Self.slowCassette(in: scratch, seconds: 0)
        let missed = try ChildProcess.run(
            "cassette", ["play", "--cassette", file, "https://api.example.com/other"], environment: ["CASSETTE_WRITE_MISSES": "1"])
        #expect(missed.status != 0, "\(missed.output)")
        let misses = (file as NSString).deletingPathExtension + ".misses.json"
        #expect(FileManager.default.fileExists(atPath: misses), "\(missed.output)")
        let wrong = try ChildProcess.run(
            "cassette", ["play", "--cassette", file, "https://api.example.com/slow"], environment: ["CASSETTE_WRITE_MISSES": "maybe"])
        #expect(wrong.status == 1, "\(wrong.output)")
        #expect(wrong.output.contains(#"CASSETTE_WRITE_MISSES"#) && wrong.output.contains("maybe"), "\(wrong.output)")
    }
    #endif

    @Test func recordWithModeAllTwiceGivesTheSameFile() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let file = scratch.file("again.json").path
        let url = server.baseURL + "/volatile/a"
        #expect(Captured.run(["record", "--cassette", file, "--mode", "all", url]).status == 0)
        let first = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(Captured.run(["record", "--cassette", file, "--mode", "all", url]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == first)
        #expect(server.received.count == 2, "mode all records again rather than replaying")

        // newEpisodes (the default) replays what the cassette holds; once never records into an existing cassette.
        #expect(Captured.run(["record", "--cassette", file, url]).status == 0)
        #expect(server.received.count == 2)
        let once = Captured.run(["record", "--cassette", file, "--mode", "once", server.baseURL + "/volatile/b"])
        #expect(once.status == 1 && once.error.contains("record mode once"), "\(once.error)")
        #expect(server.received.count == 2)

        let none = Captured.run(["record", "--cassette", file, "--mode", "none", url])
        #expect(none.status == 2 && none.error == "error: --mode takes once, newEpisodes, all, not 'none'. Run 'cassette record --help'.\n")
        #expect(Captured.run(["play", "--cassette", file, "--mode", "all", url]).status == 2, "play has no --mode")
    }

    @Test func matchIgnoringPortReplaysForAServerOnAnotherPort() throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let file = scratch.file("port.json").path
        let first = try LoopbackServer()
        #expect(Captured.run(["record", "--cassette", file, first.baseURL + "/echo?q=1"]).status == 0)
        first.stop()
        let second = try LoopbackServer()
        defer { second.stop() }
        let url = second.baseURL + "/echo?q=1"

        let strict = Captured.run(["play", "--cassette", file, url])
        #expect(strict.status == 1)
        // The advice names the flag, not the library's matching rule.
        #expect(
            strict.error.contains(
                "if the server may listen on another port (a test server on a random port), give --match-ignoring port; "),
            "\(strict.error)")
        let ignoring = Captured.run(["play", "--cassette", file, "--match-ignoring", "port", url])
        #expect(ignoring.status == 0 && ignoring.out.contains("q=1"))
        let host = Captured.run(["play", "--cassette", file, "--match-ignoring", "host", "https://elsewhere.example/echo?q=1"])
        #expect(host.status == 0)
        // record takes it too: the request is found in the cassette, so nothing is sent.
        #expect(Captured.run(["record", "--cassette", file, "--match-ignoring", "port", url]).status == 0)
        #expect(second.received.isEmpty)

        let wrong = Captured.run(["play", "--cassette", file, "--match-ignoring", "path", url])
        #expect(wrong.status == 2 && wrong.error == "error: --match-ignoring takes port or host, not 'path'. Run 'cassette play --help'.\n")
    }

    @Test func helpShowsTheNewOptions() {
        let play = Captured.run(["play", "--help"]).out
        #expect(
            play.contains("[--latency L] [--allow-repeated-replays] [--time recorded|shifted] [--verbose] [--match-ignoring port|host]..."))
        #expect(play.contains("  --time recorded|shifted\n"))
        #expect(play.contains("--latency L        How the response is timed: recorded (as recorded), instant,"))
        let record = Captured.run(["record", "--help"]).out
        #expect(record.contains("[--mode MODE] [--save-connection-failures] [--match-ignoring port|host]..."))
        #expect(record.contains("--mode MODE        once, newEpisodes or all; default CASSETTE_RECORD_MODE, else none"))
    }
}
