import Cassette
import Foundation
import Testing

@testable import CassetteCLI

/// `cassette show`, `convert` and `redact`, and `lint` on every format.
@Suite struct FormatCommandsTests {
    static let examples = ["users-api.json", "faults.json", "avatar-image.json", "service-outage.json"]

    /// What `show` and `view` say of an interaction beyond its request and outcome: a latency written
    /// by hand before the recorded timing, the scenario mark and the challenges, in a NOTES column
    /// that only a cassette with such an interaction gets.
    static let marked = CassetteDocument(interactions: [
        Interaction(
            request: .init(url: "https://api.example.com/feed"), response: .init(status: 200, body: .init(text: "[]")),
            timing: .init(firstByte: 0.01, duration: 0.01), latency: .fixed(firstByte: 1.5, duration: 1.5), scenario: "slow feed"),
        Interaction(
            request: .init(url: "https://api.example.com/me"),
            challenges: [
                .init(
                    method: "HTTPBasic", realm: "api", answer: .useCredential,
                    response: .init(status: 401, headers: ["WWW-Authenticate": #"Basic realm="api""#], body: .init(text: "denied")))
            ],
            response: .init(status: 200, body: .init(text: "{}"))),
        Interaction(request: .init(url: "https://api.example.com/plain"), response: .init(status: 204)),
    ])

    @Test func showPrintsTheLatencyTheScenarioAndTheChallenges() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("marked.json").path
        try JSONCassetteCodec.encode(Self.marked).write(to: URL(fileURLWithPath: file))
        let result = Captured.run(["show", file])
        #expect(result.status == 0)
        #expect(
            result.out == """
                #  METHOD  URL                            STATUS  BODY  TIMING                                       NOTES
                1  GET     https://api.example.com/feed   200     2     latency fixed:1.5,1.5 (recorded 10 / 10 ms)  scenario "slow feed"
                2  GET     https://api.example.com/me     200     2     -                                            challenge HTTPBasic realm "api" (401): useCredential
                3  GET     https://api.example.com/plain  204     0     -
                3 interactions in \(file) (JSON)

                """)
    }

    @Test func showPrintsOneRowPerInteraction() {
        let file = Locations.examples + "/faults.json"
        let result = Captured.run(["show", file])
        #expect(result.status == 0)
        #expect(
            result.out == """
                #  METHOD  URL                                     STATUS                                          BODY  TIMING
                1  GET     https://api.example.com/feed            timedOut                                        -     -
                2  GET     https://api.example.com/profile         notConnectedToInternet                          -     -
                3  GET     https://api.example.com/download        200, then networkConnectionLost after 10 bytes  26    -
                4  GET     https://api.example.com/orders          503                                             23    -
                5  GET     https://api.example.com/search?q=swift  200                                             14    latency fixed:2,2
                5 interactions in \(file) (JSON)

                """)
        let users = Captured.run(["show", Locations.examples + "/users-api.json"])
        #expect(
            users.out.components(separatedBy: "\n")[1]
                == "1  GET     https://api.example.com/users/42?fields=name,email  200     57    84 / 112 ms")
    }

    /// Every example goes JSON → HTTP → HAR → JSON through the tool and comes back byte for byte.
    @Test(arguments: examples)
    func convertGoesRoundTheFormatsWithoutLoss(example: String) throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let original = Locations.examples + "/" + example
        let http = scratch.appendingPathComponent("c.http").path
        let har = scratch.appendingPathComponent("c.har").path
        let back = scratch.appendingPathComponent("c.json").path
        for (from, to) in [(original, http), (http, har), (har, back)] {
            let result = Captured.run(["convert", from, to])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.out.hasPrefix("\(from) ("))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == Data(contentsOf: URL(fileURLWithPath: original)))
        #expect(
            Captured.run(["lint", scratch.path]).out.hasSuffix(
                "3 cassettes, \(try JSONCassetteCodec.decode(Data(contentsOf: URL(fileURLWithPath: original))).interactions.count * 3) interactions, 0 errors\n"
            ))
    }

    /// A cassette's metadata goes round the formats through the tool, and show prints it.
    @Test func metadataGoesRoundTheFormatsAndShowPrintsIt() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let original = scratch.appendingPathComponent("tagged.json").path
        try Data(
            """
            {
              "version": 1,
              "metadata": { "apiVersion": "2026-10-01", "ticket": "API-123" },
              "interactions": [ { "request": { "method": "GET", "url": "https://api.example.com/feed" }, "response": { "status": 204 } } ]
            }
            """.utf8
        ).write(to: URL(fileURLWithPath: original))
        let canonical = scratch.appendingPathComponent("canonical.json").path
        let http = scratch.appendingPathComponent("c.http").path
        let har = scratch.appendingPathComponent("c.har").path
        let back = scratch.appendingPathComponent("c.json").path
        for (from, to) in [(original, canonical), (canonical, http), (http, har), (har, back)] {
            #expect(Captured.run(["convert", from, to]).status == 0)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: back)) == Data(contentsOf: URL(fileURLWithPath: canonical)))
        for file in [original, http, har] {
            let shown = Captured.run(["show", file])
            #expect(
                shown.out.hasSuffix(
                    "1 interaction in \(file) (\(CassetteFormat(path: file)))\nmetadata: {\"apiVersion\":\"2026-10-01\",\"ticket\":\"API-123\"}\n"
                ), "\(shown.out)")
        }
    }

    @Test func convertRefusesAnOutputItCannotName() throws {
        let result = Captured.run(["convert", Locations.examples + "/faults.json", "/tmp/faults.yaml"])
        #expect(result.status == 2)
        #expect(
            result.error
                == "error: cannot tell the format of '/tmp/faults.yaml' from its extension; use .json, .http, .har. Run 'cassette convert --help'.\n"
        )
        let missing = Captured.run(["convert", "/nonexistent/in.json", "/tmp/out.har"])
        #expect(missing.status == 1)
        #expect(missing.error == "/nonexistent/in.json: error: cannot read the file: No such file or directory\n")
    }

    /// `show` takes folders and several files as `lint` does: a section per cassette.
    @Test func showTakesFoldersAndSeveralFiles() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        for name in ["faults.json", "users-api.json"] {
            try FileManager.default.copyItem(
                atPath: Locations.examples + "/" + name, toPath: scratch.appendingPathComponent(name).path)
        }
        let folder = Captured.run(["show", scratch.path])
        #expect(folder.status == 0)
        #expect(folder.error == "")
        let faults = Captured.run(["show", scratch.appendingPathComponent("faults.json").path]).out
        let users = Captured.run(["show", scratch.appendingPathComponent("users-api.json").path]).out
        #expect(folder.out == faults + "\n" + users)
        #expect(users.hasSuffix("3 interactions in \(scratch.appendingPathComponent("users-api.json").path) (JSON)\n"))

        // Several operands, one of them unreadable: the others are still shown, and the exit status says so.
        let mixed = Captured.run(["show", scratch.appendingPathComponent("faults.json").path, "/nonexistent/gone.json"])
        #expect(mixed.status == 1)
        #expect(mixed.out == faults)
        #expect(mixed.error == "/nonexistent/gone.json: error: no such file or folder\n")
    }

    /// A file that cannot be read says why in words, never as a Foundation error number.
    @Test func aFileThatCannotBeReadSaysWhyInWords() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let folder = scratch.appendingPathComponent("looks-like.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let converted = Captured.run(["convert", folder.path, scratch.appendingPathComponent("out.har").path])
        #expect(converted.status == 1)
        #expect(
            converted.error
                == "\(folder.path): error: cannot read the file: it is a folder, not a file; give the path of a cassette file in it, "
                + "such as \(folder.appendingPathComponent("name.json").path)\n")
        let missing = Captured.run(["convert", "/nonexistent/in.json", "/tmp/out.har"])
        #expect(missing.error == "/nonexistent/in.json: error: cannot read the file: No such file or directory\n")
    }

    /// `view` of a folder puts every cassette in it on one page.
    @Test func viewTakesAFolder() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let page = scratch.appendingPathComponent("page.html").path
        let result = Captured.run(["view", Locations.examples, "-o", page])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.out == "wrote \(page) (15 interactions)\n")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        for name in [
            "avatar-image.json", "chat-stream-cut.json", "chat-stream.json", "faults.json", "service-outage.json", "users-api.json",
        ] {
            #expect(html.contains(Locations.examples + "/" + name), "\(name)")
        }
    }

    /// `view --open` without an opener, or with one that fails, says where the page is, and
    /// shows none of the opener's own output.
    @Test func viewOpenFallsBackToThePath() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let page = scratch.appendingPathComponent("page.html").path
        let cassette = Locations.examples + "/faults.json"
        let none = Captured.run(["view", cassette, "-o", page, "--open"], environment: ["PATH": scratch.path])
        #expect(none.status == 0)
        #expect(none.error == "note: no xdg-open on PATH to open the page; open \(page) in a browser\n")

        let opener = scratch.appendingPathComponent("xdg-open")
        try Data("#!/bin/sh\necho 'xdg-open: no method available for opening' >&2\nexit 3\n".utf8).write(to: opener)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: opener.path)
        let failing = Captured.run(["view", cassette, "-o", page, "--open"], environment: ["PATH": scratch.path])
        #expect(failing.status == 0)
        #expect(failing.error == "note: xdg-open could not open the page (exit status 3); open \(page) in a browser\n")
    }

    @Test func lintReportsProblemsInEveryFormat() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Data("### error=timedOt\nGET https://a.example/\n".utf8).write(to: scratch.appendingPathComponent("bad.http"))
        try Data(
            #"{ "log": { "entries": [ { "request": { "method": "GET", "url": "https://a.example/" }, "response": { "status": 9 } } ] } }"#
                .utf8
        )
        .write(to: scratch.appendingPathComponent("bad.har"))
        let result = Captured.run(["lint", scratch.path])
        let lines = result.out.components(separatedBy: "\n")
        #expect(result.status == 1)
        #expect(lines.count == 4)
        #expect(
            lines[0]
                == "\(scratch.path)/bad.har:1:112: error: log.entries[0].response.status: expected an HTTP status from 100 to 599, found 9")
        #expect(
            lines[1].hasPrefix(
                "\(scratch.path)/bad.http:1:11: error: interactions[0].error.code: unknown error code \"timedOt\" (did you mean \"timedOut\"?)"
            ))
        #expect(lines[2] == "2 cassettes, 0 interactions, 2 errors")
    }

    @Test(arguments: ["json", "http", "har"])
    func redactRewritesOnlyWhatItMustAtomically(format: String) throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("old.\(format)")
        let clean = scratch.appendingPathComponent("clean.\(format)")
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(
                    url: "https://api.example.com/me?api_key=K3y-V4lue-0123&page=1",
                    headers: ["Authorization": "Bearer T0ken-V4lue-9876", "X-Team": "blue-team-secret"]),
                response: .init(
                    status: 200, headers: ["Content-Type": "application/json"],
                    body: .init(Data(#"{"user":{"name":"Ada","token":"T0ken-V4lue-9876","refresh":"R3fresh-5555"}}"#.utf8)))),
            Interaction(request: .init(url: "https://api.example.com/public"), response: .init(status: 204)),
        ])
        try CassetteFormat(path: file.path).encode(document).write(to: file)
        try CassetteFormat(path: clean.path).encode(CassetteDocument(interactions: [document.interactions[1]])).write(to: clean)
        let cleanBytes = try Data(contentsOf: clean)

        let result = Captured.run([
            "redact", file.path, clean.path, "--header", "X-Team", "--query", "api_key", "--json-path", "user.refresh",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.out == "\(file.path): redacted 1 of 2 interactions\n\(clean.path): nothing to redact\n")
        #expect(try Data(contentsOf: clean) == cleanBytes, "a file with nothing to redact is not rewritten")
        let redacted = try CassetteFormat(path: file.path).decode(Data(contentsOf: file))
        let first = try #require(redacted.interactions.first)
        // One numbered placeholder per secret, in the order the rules find them.
        #expect(first.request.url == "https://api.example.com/me?api_key=[REDACTED-3]&page=1")
        #expect(first.request.headers["Authorization"] == "Bearer [REDACTED-1]")
        #expect(first.request.headers["X-Team"] == "[REDACTED-2]")
        // The token's echo in the body goes too, though no rule names that place.
        #expect(first.response?.body.text == #"{"user":{"name":"Ada","token":"[REDACTED-1]","refresh":"[REDACTED-4]"}}"#)
        #expect(redacted.interactions[1] == document.interactions[1])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
        // Redacting again finds nothing more.
        #expect(Captured.run(["redact", file.path, "--header", "X-Team"]).out == "\(file.path): nothing to redact\n")
    }

    @Test func redactLeavesAnUnreadableCassetteAsItWas() throws {
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("broken.json")
        let bytes = Data(#"{ "version": 1, "interactions": [ { "request": {} } ] }"#.utf8)
        try bytes.write(to: file)
        let result = Captured.run(["redact", file.path])
        #expect(result.status == 1)
        #expect(
            result.error.components(separatedBy: "\n")[1]
                == "\(file.path):1:48: error: interactions[0].request: missing required field \"method\" (expected an HTTP method like \"GET\")"
        )
        #expect(try Data(contentsOf: file) == bytes)
        #expect(Captured.run(["redact", "--json-path"]).status == 2)
    }
}
