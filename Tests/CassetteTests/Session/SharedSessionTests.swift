import CassetteTestSupport
import Foundation
import Testing

// Starts processes (or reads the package's folder through them): Linux and macOS only.
#if os(Linux) || os(macOS)

/// `URLSession.shared` goes through `URLProtocol.registerClass`, which works only in a process
/// that had no URLSession yet: each scenario runs `SharedSessionCheck` in a fresh process and
/// passes when that process saw everything it expected (see `Tests/SharedSessionCheck/main.swift`).
/// Waiting for the process blocks a thread, so these take turns with the timing tests.
@Suite(.timingIsolated) struct SharedSessionTests {

    /// The child executable, built next to the test bundle.
    static var child: URL { ChildProcess.url(of: "SharedSessionCheck") }

    static func run(_ scenario: String) throws -> (status: Int32, output: String) {
        try ChildProcess.run(
            "SharedSessionCheck", [scenario, PackagePaths.cassettes.appendingPathComponent("Shared/feed-outage.json").path])
    }

    @Test func theChildProcessIsBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: Self.child.path), "expected \(Self.child.path)")
    }

    @Test func sharedSessionReplaysWhenRegisteredEarlyAndIsReleasedOnEject() throws {
        let result = try Self.run("early")
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ok: URLSession.shared replays the cassette: 503"))
        #expect(result.output.contains("ok: after eject, URLSession.shared reaches the network again: 200"))
    }

    /// `Tape.isLive`, the live switch in code, is process-wide: tried in a process of its own.
    @Test func theLiveSwitchInCodeTurnsEveryTapeLive() throws {
        let result = try Self.run("live-switch")
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ok: Tape.isLive: the request went live: 201"))
        #expect(result.output.contains("ok: the cassette is unchanged"))
        #expect(result.output.contains("ok: Tape.isLive = false: the next tape replays: 503"))
    }

    @Test func sharedSessionIsInterceptedAfterOtherSessions() throws {
        let result = try Self.run("after-sessions")
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ok: URLSession.shared replays the cassette after other sessions: 503"))
    }

    @Test func aSharedSessionCreatedTooEarlyIsAClearError() throws {
        let result = try Self.run("late")
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ok: throws: URLSession.shared was created before Cassette registered its URLProtocol"))
    }

    @Test func tapesTakeTurnsWithTheSharedSession() throws {
        let result = try Self.run("turns")
        #expect(result.status == 0, "\(result.output)")
        #expect(
            result.output.contains(
                #"ok: tapes take turns with .shared, each replaying its own cassette: ["first ejecting", "first got 503", "second acquired", "second got 503"]"#
            ))
    }
}
#endif
