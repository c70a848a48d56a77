import Cassette
import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteCLI

/// `cassette check-secrets`: every secret planted in the fixtures is found, in its place, and
/// nothing else; the redacted example cassettes are clean.
@Suite struct CheckSecretsCommandTests {
    static let fixtures = Locations.packageRoot.appendingPathComponent("Tests/CassetteCLITests/Fixtures/Secrets").path

    /// The folder is searched for every file (notes.txt too); a file named again is checked once.
    @Test func everyPlantedSecretIsFoundAndNothingElse() {
        let result = Captured.run(["check-secrets", Self.fixtures, Self.fixtures + "/notes.txt"])
        let f = Self.fixtures
        #expect(
            result.out.components(separatedBy: "\n") == [
                #"\#(f)/notes.txt:2:12: secret: random string in an auth-like field: "Vb7N…" (24 characters)"#,
                #"\#(f)/notes.txt:3:1: secret: private key: "----…" (31 characters)"#,
                #"\#(f)/planted.har:11:56: secret: Google API key in interactions[0].request.url (query key): "AIza…" (39 characters)"#,
                #"\#(f)/planted.har:14:60: secret: Slack token in interactions[0].request.headers.X-Slack-Token: "xoxb…" (30 characters)"#,
                #"\#(f)/planted.har:25:101: secret: Stripe secret key in interactions[0].response.body.billing.key: "sk_l…" (32 characters)"#,
                #"\#(f)/planted.http:5:23: secret: JWT in interactions[0].request.headers.Authorization: "eyJh…" (125 characters)"#,
                #"\#(f)/planted.http:6:28: secret: Basic credentials in interactions[0].request.headers.Proxy-Authorization: "YWRh…" (28 characters)"#,
                #"\#(f)/planted.http:11:13: secret: GitHub token in interactions[0].response.body: "ghp_…" (40 characters)"#,
                #"\#(f)/planted.json:7:60: secret: random string in an auth-like field in interactions[0].request.url (query access_token): "q8Zt…" (20 characters)"#,
                #"\#(f)/planted.json:9:36: secret: bearer token in interactions[0].request.headers.Authorization: "Xk29…" (24 characters)"#,
                #"\#(f)/planted.json:10:25: secret: random string in an auth-like field in interactions[0].request.headers.X-Api-Key: "kJ8n…" (24 characters)"#,
                #"\#(f)/planted.json:14:57: secret: random string in an auth-like field in interactions[0].request.body.password: "Tr0u…" (25 characters)"#,
                #"\#(f)/planted.json:20:30: secret: random string in an auth-like field in interactions[0].response.headers.Set-Cookie (cookie sid): "Zq7R…" (24 characters)"#,
                #"\#(f)/planted.json:22:53: secret: AWS access key ID in interactions[0].response.body: "AKIA…" (20 characters)"#,
                "14 secrets in 4 files",
                "",
            ])
        #expect(result.status == 1)
        #expect(result.error == "")
        // The whole value is never printed.
        #expect(!result.out.contains("Xk29dLq8ZpR3mN7vT4wY6sB1"))
    }

    @Test func theRedactedExampleCassettesAreClean() throws {
        let folder = Locations.packageRoot.appendingPathComponent("Cassettes").path
        let cassettes = try #require(try? CassetteFiles.find(at: folder).get())
        #expect(cassettes.count >= 6)
        // Every file of the folder: the cassettes, and the rules files and notes beside them.
        let everyFile = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { path in
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder)
            return !isFolder.boolValue && !path.split(separator: "/").contains { $0.hasPrefix(".") }
        }
        #expect(everyFile.count >= cassettes.count)
        let result = Captured.run(["check-secrets", folder])
        #expect(result.out == "no secrets in \(everyFile.count) files\n")
        #expect(result.error == "")
        #expect(result.status == 0)
    }

    /// Values that are long, or random, or in an auth-like field, but not all three, are left alone.
    @Test(arguments: [
        ("ETag", #""33a64df551425fcc55e4d42a148795d9f25f89d4""#),
        ("X-Request-ID", "123e4567-e89b-12d3-a456-426614174000"),
        ("Authorization", "Bearer [REDACTED]"),
        ("X-Api-Key", "<API_KEY>"),
        ("X-Api-Key", "short-Key-1"),
        ("Session-Name", "the-afternoon-workshop-session"),
        ("Accept", "application/vnd.example.v3+json"),
    ])
    func lookAlikesAreNotSecrets(name: String, value: String) throws {
        let scanner = try SecretScanner()
        let document = CassetteDocument(interactions: [
            Interaction(request: .init(url: "https://a.example/", headers: [name: value]), response: .init(status: 204))
        ])
        #expect(scanner.findings(in: document) == [])
    }

    @Test func aSecretInARedirectTargetIsFoundPercentEncodedOrNot() throws {
        let scanner = try SecretScanner()
        for location in [
            "/get?api_key=Qw7Er9Ty2Ui4Op6As8", "/get?api%5Fkey=Qw7Er9Ty2Ui4Op6As8",
            "https://b.example/cb?access_token=Qw7Er9Ty2Ui4Op6As8%2D",
        ] {
            let document = CassetteDocument(interactions: [
                Interaction(request: .init(url: "https://a.example/login"), response: .init(status: 302, headers: ["Location": location]))
            ])
            let findings = scanner.findings(in: document)
            #expect(findings.map(\.kind) == ["random string in an auth-like field"], "\(location)")
            #expect(findings.first?.place.hasPrefix("interactions[0].response.headers.Location (query ") == true)
        }
    }

    @Test func aFolderWithoutCassettesAndAMissingFileAreErrors() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let result = Captured.run(["check-secrets", scratch.path, scratch.path + "/missing.json"])
        #expect(result.status == 1)
        #expect(
            result.error
                == "\(scratch.path): error: no files to check in this folder\n\(scratch.path)/missing.json: error: no such file or folder\n"
        )
        #expect(Captured.run(["check-secrets"]).status == 2)
    }

    /// A folder of any files, as a pre-commit hook names it: every text file in it and below is
    /// checked line by line; hidden files and folders, `.build` and binary files are left out.
    @Test func aFolderOfAnyFilesIsSearchedWhole() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let token = "ghp_" + String(repeating: "aB3dE5fG7h", count: 3) + "Jk9LmN"
        func write(_ path: String, _ data: Data) throws {
            let file = scratch.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file)
        }
        try write("Sources/Client.swift", Data("// the key\nlet key = \"\(token)\"\n".utf8))
        try write("Sources/Nested/Clean.swift", Data("let answer = 42\n".utf8))
        try write("cassette-rules.json", Data(#"{ "matching": { "ignoringQueryParameters": ["page"] } }"#.utf8))
        try write("icon.png", Data([0x89, 0x50, 0x4E, 0x47, 0]) + Data(token.utf8))
        try write(".git/config", Data(token.utf8))
        try write(".build/debug/leftover.txt", Data(token.utf8))
        let result = Captured.run(["check-secrets", scratch.path])
        #expect(
            result.out
                == "\(scratch.path)/Sources/Client.swift:2:12: secret: GitHub token: \"ghp_…\" (40 characters)\n"
                + "1 secret in 3 files\n")
        #expect(result.error == "")
        #expect(result.status == 1)
    }

    /// Every pattern runs in time linear in the line: one line of a million token characters
    /// with no `=` or `:` (a run the assignment pattern once re-read from each of its characters:
    /// 40,000 took 93 s), then a token, is read in seconds in a debug build on a busy machine (a
    /// quadratic pattern would take hours); `secrets_1mb_line` in the benchmarks holds it under a
    /// second in release (0.06 s).
    @Test(.timingIsolated) func aOneMegabyteLineIsReadInLinearTime() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let token = "ghp_" + String(repeating: "aB3dE5fG7h", count: 3) + "Jk9LmN"
        // Letters and digits in a fixed pseudo-random order: no separator, so no known shape (`AIza…`
        // in random capitals was once a "Google API key") can form in it.
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var state: UInt64 = 42
        let line = String(
            (0..<1_000_000).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return alphabet[Int(state >> 33) % alphabet.count]
            })
        let file = scratch.appendingPathComponent("blob.txt")
        try Data((line + " " + token + "\n").utf8).write(to: file)
        let start = Date()
        let result = Captured.run(["check-secrets", file.path])
        let seconds = Date().timeIntervalSince(start)
        #expect(seconds < 3 * TimingIsolation.scale, "\(seconds) s")
        #expect(result.out == "\(file.path):1:1000002: secret: GitHub token: \"ghp_…\" (40 characters)\n1 secret in 1 file\n")
    }

    /// Where the tool writes is checked when named: a misses file beside a cassette (read as the
    /// cassette it is) and the suite ledger's process files.
    @Test func missesFilesAndTheLedgerAreChecked() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let token = "ghp_" + String(repeating: "aB3dE5fG7h", count: 3) + "Jk9LmN"
        let misses = scratch.appendingPathComponent("Cassettes/feed.misses.json")
        let ledgerFile = scratch.appendingPathComponent(".build/cassette-ledger/swift-test-1-2/1.jsonl")
        for file in [misses, ledgerFile] {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        try Data(
            #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "https://api.example.com/?t=\#(token)" } } ] }"#
                .utf8
        ).write(to: misses)
        try Data(#"{"process":{"pid":1,"started":"2026-11-28T00:00:00.000Z","arguments":["-H","token \#(token)"]}}"#.utf8 + [0x0A])
            .write(to: ledgerFile)
        let result = Captured.run([
            "check-secrets", scratch.appendingPathComponent("Cassettes").path,
            ledgerFile.deletingLastPathComponent().deletingLastPathComponent().path,
        ])
        #expect(result.out.contains("\(misses.path):"), "\(result.out)")
        #expect(result.out.contains("\(ledgerFile.path):1:"), "\(result.out)")
        #expect(result.out.hasSuffix("2 secrets in 2 files\n"), "\(result.out)")
        #expect(result.status == 1)
    }

    /// A file that is not a cassette: each finding at the line it was found on, said once (a value
    /// that also stands earlier, where it is no secret, does not move it there).
    @Test func aFindingInAFileThatIsNoCassetteHasOneLineNumber() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("notes.txt")
        let value = "Vb7NqX2rT9kLmP4sW8zY1cDf"
        try Data("greeting = \(value)\nnothing here\npassword = \(value)\n".utf8).write(to: file)
        let result = Captured.run(["check-secrets", file.path])
        #expect(
            result.out
                == "\(file.path):3:12: secret: random string in an auth-like field: \"Vb7N…\" (24 characters)\n1 secret in 1 file\n")
    }
}
