import Cassette
import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteCLI
@testable import CassetteTools

/// `cassette check --live` and `LiveCheck`: a cassette recorded from the loopback server, then the
/// server moved on.
@Suite struct CheckCommandTests {
    /// Records `GET /profile` and `POST /echo` from `server` into `file`, with `cassette record`.
    static func record(from server: LoopbackServer, into file: URL) {
        let get = Captured.run(["record", "--cassette", file.path, server.baseURL + "/profile"])
        #expect(get.status == 0, "\(get.error)")
        let post = Captured.run(["record", "--cassette", file.path, "--method", "POST", "--data", "{}", server.baseURL + "/echo"])
        #expect(post.status == 0, "\(post.error)")
    }

    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1))) func anUnchangedServerIsNoDriftAndAChangedOneIsReportedAtItsPaths() throws {
        try withScratchTape(cassette: "profile.json") { scratch in
            let server = scratch.server
            Self.record(from: server, into: scratch.file)
            let path = scratch.file.path
            let requestsBefore = server.received.count

            let same = Captured.run(["check", "--live", path])
            #expect(same.status == 0, "\(same.out)\(same.error)")
            #expect(
                same.out == """
                    \(path)
                      interactions[0] GET \(server.baseURL)/profile: unchanged
                      interactions[1] POST \(server.baseURL)/echo: skipped (POST is not sent without --all-methods (LiveCheck.Options.allMethods))
                    0 drifted, 1 unchanged, 1 skipped, 0 unreachable

                    """, "new Date and request id every time: never drift")
            #expect(server.received.count == requestsBefore + 1, "only the GET was sent")

            server.setEdition(2, of: "profile")
            let drifted = Captured.run(["check", "--live", path])
            #expect(drifted.status == 1)
            #expect(
                drifted.out.contains(
                    """
                      interactions[0] GET \(server.baseURL)/profile: drifted
                          response.headers.Cache-Control: max-age=60 → no-store
                          response.body.$.id: a number 42 → a string "42"
                          response.body.$.tags[0].since: added (2020)
                          response.body.$.email: removed (was "ada@example.com")

                    """), "\(drifted.out)")

            server.setEdition(3, of: "profile")
            let down = Captured.run(["check", "--live", "--json", path])
            #expect(down.status == 1)
            let findings = try #require(try JSONSerialization.jsonObject(with: Data(down.out.utf8)) as? [[String: Any]])
            #expect(findings.first?["outcome"] as? String == "drifted")
            #expect(
                findings.first?["changes"] as? [String] == [
                    "response.status: 200 → 503", "response.headers.Cache-Control: removed (was max-age=60)",
                    "response.headers.Content-Type: application/json → text/plain; charset=utf-8", "response.body: 70 bytes → 4 bytes",
                ])
            #expect(findings.last?["outcome"] as? String == "skipped")

            server.setEdition(1, of: "profile")
            let all = Captured.run(["check", "--live", "--all-methods", path])
            #expect(all.status == 0 && all.out.hasSuffix("0 drifted, 2 unchanged, 0 skipped, 0 unreachable\n"), "\(all.out)")
        }
    }

    /// `--update` records again only the interaction that drifted: the rest of the file keeps its
    /// bytes, the drifted one keeps its request, and the next check finds nothing.
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1))) func updateRewritesOnlyTheDriftedInteraction() throws {
        try withScratchTape(cassette: "profile.json") { scratch in
            let server = scratch.server
            Self.record(from: server, into: scratch.file)
            let status = Captured.run(["record", "--cassette", scratch.file.path, server.baseURL + "/status/200"])
            #expect(status.status == 0, "\(status.error)")
            let path = scratch.file.path
            let before = try Data(contentsOf: scratch.file)
            let old = try JSONCassetteCodec.decode(before)

            server.setEdition(2, of: "profile")
            let updated = Captured.run(["check", "--live", "--update", path])
            #expect(updated.status == 0, "\(updated.out)\(updated.error)")
            #expect(updated.out.contains("  interactions[0] GET \(server.baseURL)/profile: drifted\n"))
            #expect(updated.out.contains("  interactions[2] GET \(server.baseURL)/status/200: unchanged\n"))
            #expect(updated.error == "updated \(path): interactions[0]\n")

            let after = try Data(contentsOf: scratch.file)
            let new = try JSONCassetteCodec.decode(after)
            #expect(new.interactions.count == 3)
            #expect(new.interactions[0].request == old.interactions[0].request)
            #expect(new.interactions[0].response?.body.text == #"{"id":"42","name":"Ada","tags":[{"name":"a","since":2020}]}"#)
            #expect(new.interactions[0].response?.headers["Cache-Control"] == "no-store")
            #expect(try #require(new.interactions[0].recordedAt) > (old.interactions[0].recordedAt ?? .distantFuture))
            // Put the old interaction back: the file is byte for byte what it was.
            var restored = new
            restored.interactions[0] = old.interactions[0]
            #expect(try JSONCassetteCodec.encode(restored) == before)

            let again = Captured.run(["check", "--live", path])
            #expect(again.status == 0, "\(again.out)")
            #expect(again.out.hasSuffix("0 drifted, 2 unchanged, 1 skipped, 0 unreachable\n"))
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1))) func aDryRunSendsNothingAndAnUnreachableServerExitsThree() throws {
        try withScratchTape(cassette: "profile.json") { scratch in
            Self.record(from: scratch.server, into: scratch.file)
            let before = scratch.server.received.count
            let dry = Captured.run(["check", "--live", "--dry-run", scratch.url.path])
            #expect(dry.status == 0)
            #expect(dry.out.contains("  interactions[0] GET \(scratch.server.baseURL)/profile: would be sent\n"))
            #expect(dry.out.hasSuffix("1 would be sent, 1 skipped\n"))
            #expect(scratch.server.received.count == before)

            scratch.server.stop()
            let down = Captured.run(["check", "--live", scratch.file.path])
            #expect(down.status == 3)
            #expect(
                down.out.contains("interactions[0] GET \(scratch.server.baseURL)/profile: unreachable (cannotConnectToHost"), "\(down.out)")
        }
    }

    /// A redacted credential is sent only with `--secret`, and never printed.
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1))) func redactedValuesComeFromTheEnvironment() throws {
        try withScratchTape(cassette: "secret.json") { scratch in
            try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [
                    Interaction(
                        request: .init(url: scratch.url("/echo?k=1"), headers: ["Authorization": "Bearer [REDACTED-1]"]),
                        response: .init(status: 200, headers: ["Content-Type": "application/json"], body: .init(text: "{}")))
                ])
            ).write(to: scratch.file)
            let without = Captured.run(["check", "--live", scratch.file.path])
            #expect(
                without.out.contains("skipped (it holds the redacted value [REDACTED-1]: give it with --secret '[REDACTED-1]=ENV_VAR')"))
            #expect(scratch.server.received.isEmpty)
            let with = Captured.run(
                ["check", "--live", "--secret", "[REDACTED-1]=API_TOKEN", scratch.file.path], environment: ["API_TOKEN": "t0ps3cret"])
            #expect(scratch.server.received.last?.headers["authorization"] == "Bearer t0ps3cret")
            #expect(!with.out.contains("t0ps3cret") && !with.error.contains("t0ps3cret"))
            let missing = Captured.run(["check", "--live", "--secret", "[REDACTED-1]=NOPE", scratch.file.path])
            #expect(missing.status == 2 && missing.error.contains("--secret [REDACTED-1]: the environment has no NOPE"))
        }
    }

    /// The library API returns the findings as values.
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1))) func theLibraryReturnsFindings() async throws {
        try await withScratchTape(cassette: "profile.json") { scratch in
            Self.record(from: scratch.server, into: scratch.file)
            scratch.server.setEdition(3, of: "profile")
            let findings = try await LiveCheck.run([scratch.file])
            #expect(findings.map(\.index) == [0, 1])
            #expect(findings.filter(\.drifted).map(\.request) == ["GET \(scratch.server.baseURL)/profile"])
            guard case .drifted(let changes) = findings[0].outcome else {
                Issue.record("not drifted: \(findings[0])")
                return
            }
            #expect(changes.first == "response.status: 200 → 503")
            #expect(
                findings[1].outcome == .skipped("POST is not sent without --all-methods (LiveCheck.Options.allMethods)"))
        }
    }

    /// A fault made by `cassette fault` is a scenario: the service cannot be asked to answer it
    /// again, so it is skipped, with a line, and never sent.
    @available(macOS 13, iOS 16, tvOS 16, *)  // the time limit
    @Test(.timeLimit(.minutes(1))) func aScenarioIsSkippedWithALineAndNotSent() throws {
        try withScratchTape(cassette: "profile.json") { scratch in
            Self.record(from: scratch.server, into: scratch.file)
            let fault = Captured.run(["fault", scratch.file.path, "--interaction", "1", "--status", "503"])
            #expect(fault.status == 0, "\(fault.error)")
            let before = scratch.server.received.count
            let check = Captured.run(["check", "--live", "--all-methods", scratch.file.path])
            #expect(check.status == 0, "\(check.out)\(check.error)")
            #expect(
                check.out.contains(
                    "  interactions[0] GET \(scratch.server.baseURL)/profile: skipped (a scenario (status 503): the service cannot be "
                        + "asked to answer it again)\n"), "\(check.out)")
            #expect(check.out.hasSuffix("0 drifted, 1 unchanged, 1 skipped, 0 unreachable\n"), "\(check.out)")
            #expect(scratch.server.received.count == before + 1)
            #expect(scratch.server.received.last?.target == "/echo")
        }
    }

    /// An interaction answered after an authentication challenge is skipped with a line: the
    /// check sends no credential, so the service would answer the challenge again.
    @Test func anInteractionAnsweredAfterAChallengeIsSkipped() {
        let interaction = Interaction(
            request: .init(method: "GET", url: "https://api.example.com/me"),
            challenges: [.init(method: "HTTPBasic", realm: "api", answer: .useCredential, response: .init(status: 401))],
            response: .init(status: 200))
        guard case .failure(let skip) = LiveCheck.request(for: interaction, options: .init()) else {
            Issue.record("sent")
            return
        }
        #expect(skip.message == "answered after an authentication challenge (HTTPBasic): the check has no credential to answer it with")
    }
}
