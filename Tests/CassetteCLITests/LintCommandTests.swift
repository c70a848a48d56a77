import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteCLI

/// Runs the tool in-process and captures what it prints.
final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var outBytes = Data()
    private var errorText = ""

    var out: String { String(decoding: outData, as: UTF8.self) }
    var outData: Data { locked { outBytes } }
    var error: String { locked { errorText } }

    var output: ConsoleOutput {
        ConsoleOutput(
            out: { data in self.locked { self.outBytes += data } },
            error: { text in self.locked { self.errorText += text } })
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Runs the tool in this process with `environment` (none by default: `CI` and the
    /// `CASSETTE_` variables of the test run do not reach the command; nor does a tape's line for
    /// each cassette it saves reach the suite's output, unless `environment` sets `CASSETTE_SUMMARY`).
    static func run(_ arguments: [String], environment: [String: String] = [:]) -> (status: Int32, out: String, error: String) {
        let result = runCapturingBytes(arguments, environment: environment)
        return (result.status, String(decoding: result.out, as: UTF8.self), result.error)
    }

    static func runCapturingBytes(_ arguments: [String], environment: [String: String] = [:]) -> (status: Int32, out: Data, error: String) {
        let captured = Captured()
        let status = CassetteTool.run(
            arguments, output: captured.output, environment: environment.merging(["CASSETTE_SUMMARY": "0"]) { given, _ in given })
        return (status, captured.outData, captured.error)
    }
}

enum Locations {
    static let packageRoot = PackagePaths.root
    static let examples = PackagePaths.examples.path
    static let malformed = packageRoot.appendingPathComponent("Tests/CassetteFormatsTests/Fixtures/Malformed").path

    /// A fresh folder under the system's temporary folder, removed by the caller.
    static func scratch() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cassette-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

@Suite struct LintCommandTests {
    @Test func validCassettesPassWithASummary() {
        let result = Captured.run(["lint", Locations.examples])
        #expect(result.status == 0)
        #expect(result.out == "6 cassettes, 15 interactions, 0 errors\n")
        #expect(result.error == "")
    }

    @Test func aContentLengthTheBodyDoesNotKeepIsAWarning() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("edited.http").path
        try Data(
            """
            ### 
            GET https://a.example/user

            HTTP/1.1 200 OK
            Content-Length: 26
            Content-Type: application/json

            {"name":"Ada Lovelace, Countess"}

            ### 
            GET https://a.example/short

            HTTP/1.1 200 OK
            content-length: 10

            abc


            """.utf8
        ).write(to: URL(fileURLWithPath: file))
        let result = Captured.run(["lint", file])
        #expect(result.status == 0, "a warning does not fail the lint")
        #expect(
            result.out == """
                \(file):5:17: warning: interactions[0].response.headers["Content-Length"]: Content-Length is 26 but the body holds 33 bytes: a replay delivers the first 26 bytes, as live. If the body was edited, set Content-Length to 33 or remove it.
                \(file):14:17: warning: interactions[1].response.headers["content-length"]: Content-Length is 10 but the body holds 3 bytes: a replay delivers the 3 bytes, then fails with networkConnectionLost, as live. If the body was edited, set Content-Length to 3 or remove it.
                1 cassette, 2 interactions, 0 errors, 2 warnings

                """)
    }

    /// A gRPC-Web response edited by hand into a status gRPC does not have, and a Connect stream
    /// that lost its end: warnings at the body, with the line and column where it is written.
    @Test func anRPCResponseAClientWouldNotTakeIsAWarning() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("rpc.json").path
        try Data(
            """
            { "version": 1, "interactions": [
              { "request": { "method": "POST", "url": "https://a.example/users.v1.UserService/GetUser" },
                "response": { "status": 200, "headers": { "Content-Type": "application/grpc-web+proto" },
                  "body": { "envelopes": [ { "proto": [ { "field": 1, "text": "ada" } ] }, { "trailers": [ "grpc-status: 20" ] } ] } } },
              { "request": { "method": "POST", "url": "https://a.example/users.v1.UserService/ListUsers" },
                "response": { "status": 200, "headers": { "Content-Type": "application/connect+json" },
                  "body": { "envelopes": [ { "json": { "name": "ada" } } ] } } } ] }

            """.utf8
        ).write(to: URL(fileURLWithPath: file))
        let result = Captured.run(["lint", file])
        #expect(result.status == 0, "a warning does not fail the lint")
        #expect(
            result.out == """
                \(file):4:15: warning: interactions[0].response.body: grpc-status is "20", not a gRPC status code (0 to 16)
                \(file):7:15: warning: interactions[1].response.body: a Connect stream ends with its end-of-stream message ("endStream"); a client reports this call as failed
                1 cassette, 2 interactions, 0 errors, 2 warnings

                """)
    }

    /// In JSON and HAR too, a warning points at the header's value, as an error would.
    @Test func aWarningHasItsLineAndColumnInEveryFormat() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("edited.json").path
        try Data(
            """
            {
              "version": 1,
              "interactions": [
                {
                  "request": { "method": "GET", "url": "https://a.example/user" },
                  "response": { "status": 503, "headers": { "Content-Length": "49" }, "body": "down" }
                }
              ]
            }

            """.utf8
        ).write(to: URL(fileURLWithPath: json))
        let har = folder.appendingPathComponent("edited.har").path
        let converted = Captured.run(["convert", json, har])
        #expect(converted.status == 0, "\(converted.error)")
        let harLines = try String(contentsOfFile: har, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let harIndex = try #require(harLines.firstIndex { $0.contains(#""value": "49""#) })
        let harColumn = try #require(harLines[harIndex].range(of: #""49""#)).lowerBound.utf16Offset(in: harLines[harIndex]) + 1

        let result = Captured.run(["lint", json, har])
        let message =
            #"interactions[0].response.headers["Content-Length"]: Content-Length is 49 but the body holds 4 bytes: a replay delivers "#
            + "the 4 bytes, then fails with networkConnectionLost, as live. If the body was edited, set Content-Length to 4 or remove it."
        #expect(result.status == 0)
        #expect(
            result.out == """
                \(json):6:67: warning: \(message)
                \(har):\(harIndex + 1):\(harColumn): warning: \(message)
                2 cassettes, 2 interactions, 0 errors, 2 warnings

                """)
    }

    /// `lint --fix` changes the bytes of each mechanical fix and nothing else, says each one, and
    /// then lints what it wrote.
    @Test func fixChangesOnlyWhatIsMechanical() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = folder.appendingPathComponent("edited.json")
        let before = """
            {
              "version": 1,
              "interactions": [
                {
                  "request": { "method": "GET", "url": "https://a.example/user" },
                  "response": { "status": 503, "headers": { "Content-Length":   "49", "X-Kept": "as written" }, "body": "down" }
                },
                { "request": { "method": "GET", "url": "https://a.example/feed" }, "error": { "code": "timedOt" } }
              ]
            }

            """
        try Data(before.utf8).write(to: json)
        let http = folder.appendingPathComponent("edited.http")
        try Data(
            "### error=notConectedToInternet\nGET https://a.example/profile\n\n### \nGET https://a.example/user\n\nHTTP/1.1 200 OK\nContent-Length: 26\n\nshort\n"
                .utf8
        )
        .write(to: http)

        let result = Captured.run(["lint", "--fix", json.path, http.path])
        #expect(result.status == 0, "\(result.out)")
        #expect(
            result.out == """
                \(json.path):8:91: fixed: error code "timedOt" → "timedOut"
                \(json.path):6:69: fixed: Content-Length 49 → 4 (the size of the body)
                \(http.path):1:11: fixed: error code "notConectedToInternet" → "notConnectedToInternet"
                \(http.path):8:17: fixed: Content-Length 26 → 5 (the size of the body)
                2 cassettes, 4 interactions, 0 errors, 4 fixed

                """)
        let after = before.replacingOccurrences(of: #""timedOt""#, with: #""timedOut""#)
            .replacingOccurrences(of: #""Content-Length":   "49""#, with: #""Content-Length":   "4""#)
        #expect(try String(contentsOf: json, encoding: .utf8) == after, "nothing else changes, spacing included")
        #expect(
            try String(contentsOf: http, encoding: .utf8)
                == "### error=notConnectedToInternet\nGET https://a.example/profile\n\n### \nGET https://a.example/user\n\nHTTP/1.1 200 OK\nContent-Length: 5\n\nshort\n"
        )
        #expect(Captured.run(["lint", json.path, http.path]).out == "2 cassettes, 4 interactions, 0 errors\n")
    }

    /// A valid cassette is never changed, a file with a syntax error neither, and what needs a
    /// person (a code with no close match) stays an error.
    @Test func fixLeavesWhatItCannotFix() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let valid = folder.appendingPathComponent("faults.json")
        try FileManager.default.copyItem(atPath: Locations.examples + "/faults.json", toPath: valid.path)
        let broken = folder.appendingPathComponent("broken.json")
        try Data(#"{ "version": 1, "interactions": [ { "error": { "code": "timedOt" } } "#.utf8).write(to: broken)
        let unknown = folder.appendingPathComponent("unknown.json")
        try Data(
            #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "https://a.example/" }, "error": { "code": "zzz" } } ] }"#
                .utf8
        )
        .write(to: unknown)
        let originals = try [valid, broken, unknown].map { try Data(contentsOf: $0) }

        let result = Captured.run(["lint", "--fix", folder.path])
        #expect(result.status == 1)
        #expect(!result.out.contains("fixed:"), "\(result.out)")
        #expect(result.out.contains("\(broken.path):1:"))
        #expect(result.out.contains("\(unknown.path):1:117: error: interactions[0].error.code: unknown error code \"zzz\";"))
        #expect(try [valid, broken, unknown].map { try Data(contentsOf: $0) } == originals)
    }

    @Test func eachProblemIsOneLineWithItsPlace() throws {
        let file = Locations.malformed + "/several-problems.json"
        let result = Captured.run(["lint", file])
        #expect(result.status == 1)
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 6)  // four problems, the summary, and the final newline
        #expect(
            lines[0]
                == "\(file):5:44: error: interactions[0].request.url: expected an absolute URL like \"https://api.example.com/path\", found \"relative\" (no scheme)"
        )
        #expect(lines[1] == "\(file):6:31: error: interactions[0].response.status: expected an HTTP status from 100 to 599, found 0")
        #expect(
            lines[2].hasPrefix(
                "\(file):10:26: error: interactions[1].error.code: unknown error code \"timedOt\" (did you mean \"timedOut\"?)"))
        #expect(lines[3] == "\(file):11:32: error: interactions[1].timing.firstByte: expected a number of seconds, zero or more, found -1")
        #expect(lines[4] == "1 cassette, 0 interactions, 4 errors")
    }

    /// Hand edits of a streamed response that cannot replay are found with their place: an event
    /// moved before the one above it, and an event name with a line break in it.
    @Test(arguments: [
        (
            #""at": 0.4,"#,
            #"46:21: error: interactions[0].response.stream.events[1].at: this chunk arrives at 0.4 s, before the one above it (0.412 s): "#
                + #""at" counts seconds from the start of the request and never decreases; to slow a chunk down, move it and the ones after it"#
        ),
        (
            #""at": 0.436, "event": "chunk\nsplit","#,
            #"46:37: error: interactions[0].response.stream.events[1].event: "event" is one line of the stream: it cannot hold a line break"#
        ),
    ])
    func aStreamEditedWrongIsFoundWithItsPlace(_ edit: String, _ expected: String) throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = try String(contentsOfFile: Locations.examples + "/chat-stream.json", encoding: .utf8)
        #expect(text.contains(#""at": 0.436,"#))
        let file = folder.appendingPathComponent("chat-stream-edited.json")
        try text.replacingOccurrences(of: #""at": 0.436,"#, with: edit).write(to: file, atomically: true, encoding: .utf8)

        let result = Captured.run(["lint", file.path])
        #expect(result.status == 1)
        #expect(result.out == "\(file.path):\(expected)\n1 cassette, 0 interactions, 1 error\n")
    }

    @Test func foldersAreSearchedRecursivelyForCassettesOnly() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let nested = folder.appendingPathComponent("Users/fetch")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent(".build"), withIntermediateDirectories: true)
        let valid = "{\n  \"version\": 1,\n  \"interactions\": []\n}\n"
        try valid.write(to: nested.appendingPathComponent("ok.json"), atomically: true, encoding: .utf8)
        try "{".write(to: folder.appendingPathComponent("broken.json"), atomically: true, encoding: .utf8)
        try "not a cassette".write(to: folder.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        try "{".write(to: folder.appendingPathComponent(".build/hidden.json"), atomically: true, encoding: .utf8)

        let result = Captured.run(["lint", folder.path])
        #expect(result.status == 1)
        #expect(
            result.out == """
                \(folder.path)/broken.json:1:2: error: expected a key in double quotes, found end of file
                2 cassettes, 0 interactions, 1 error

                """)
    }

    @Test func aCassetteThatCannotBeReadIsReportedNotSkipped() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("gone.json")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: folder.appendingPathComponent("missing").path)
        let result = Captured.run(["lint", folder.path])
        #expect(result.status == 1)
        #expect(result.out.hasPrefix("\(link.path): error: cannot read the file: "))
        #expect(result.out.hasSuffix("1 cassette, 0 interactions, 1 error\n"))
    }

    @Test func aMissingPathIsAnErrorButOthersAreStillChecked() {
        let result = Captured.run(["lint", "/no/such/cassette.json", Locations.examples])
        #expect(result.status == 1)
        #expect(result.out == "/no/such/cassette.json: error: no such file or folder\n6 cassettes, 15 interactions, 1 error\n")
    }

    @Test func aFolderWithoutCassettesIsAnError() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = Captured.run(["lint", folder.path])
        #expect(result.status == 1)
        #expect(result.out.hasPrefix("\(folder.path): error: no cassettes (*.json, *.http, *.har) in this folder\n"))
    }

    @Test func theWholeMalformedCorpusFails() {
        let result = Captured.run(["lint", Locations.malformed])
        #expect(result.status == 1)
        #expect(result.out.hasSuffix("64 cassettes, 0 interactions, 67 errors\n"))
    }

    @Test func usageErrorsExitTwoOnStandardError() {
        let noPaths = Captured.run(["lint"])
        #expect(noPaths.status == 2)
        #expect(noPaths.out == "")
        #expect(noPaths.error.hasPrefix("error: 'cassette lint' needs at least one file or folder."))

        let badOption = Captured.run(["lint", "--strict", Locations.examples])
        #expect(badOption.status == 2)
        #expect(badOption.error == "error: unknown option '--strict' for 'cassette lint'. Run 'cassette lint --help'.\n")

        let misspelt = Captured.run(["lint", "--fx", Locations.examples])
        #expect(misspelt.status == 2)
        #expect(misspelt.error == "error: unknown option '--fx' for 'cassette lint' (did you mean '--fix'?). Run 'cassette lint --help'.\n")

        let badCommand = Captured.run(["lnt"])
        #expect(badCommand.status == 2)
        #expect(
            badCommand.error == "error: unknown command 'lnt' (did you mean 'lint'?). Run 'cassette --help' for the list of commands.\n")
        #expect(
            Captured.run(["frobnicate"]).error == "error: unknown command 'frobnicate'. Run 'cassette --help' for the list of commands.\n")
        #expect(
            Captured.run(["help", "shw"]).error
                == "error: unknown command 'shw' (did you mean 'show'?). Run 'cassette --help' for the list of commands.\n")

        // The commands that read their command line with ArgumentList, and record, play and serve.
        #expect(
            Captured.run(["report", "--stale-afte", "3", "."]).error.hasPrefix(
                "error: unknown option '--stale-afte' (did you mean '--stale-after'?)."))
        #expect(
            Captured.run(["play", "--cassete", "x.json", "https://e.com"]).error.hasPrefix(
                "error: unknown option '--cassete' for 'cassette play' (did you mean '--cassette'?)."))
        #expect(
            Captured.run(["serve", "--prot", "8080"]).error.hasPrefix(
                "error: unknown option '--prot' for 'cassette serve' (did you mean '--port'?)."))

        let nothing = Captured.run([])
        #expect(nothing.status == 2)
        #expect(nothing.error.hasPrefix("USAGE: cassette <command>"))
    }

    @Test func helpDescribesUsage() {
        let help = Captured.run(["--help"])
        #expect(help.status == 0)
        #expect(help.out.contains("  lint            Check cassettes (files, or folders of them) and report every problem."))
        #expect(
            help.out.contains(
                "EXIT STATUS (every command): 0 done, nothing found; 1 a finding or a failure (an invalid or\n"
                    + "unreadable cassette, a change, a secret, a miss, a file that cannot be written); 2 the\n"
                    + "command line was wrong; 3 what was to be compared could not be: a cassette it compares\n"
                    + "cannot be read (diff, check), a live server cannot be reached (check), the answer was a\n"
                    + "transport error (record, play).\n"
            ))
        for command in ["show", "convert", "redact", "check-secrets"] {
            let commandHelp = Captured.run([command, "--help"])
            #expect(commandHelp.status == 0)
            #expect(commandHelp.out.hasPrefix("USAGE: cassette \(command) "))
            #expect(commandHelp.out.contains("EXIT STATUS: 0 "))
            #expect(Captured.run(["help", command]).out == commandHelp.out)
        }
        let lintHelp = Captured.run(["lint", "--help"])
        #expect(lintHelp.status == 0)
        #expect(lintHelp.out.hasPrefix("USAGE: cassette lint [--fix] PATH..."))
        #expect(lintHelp.out.contains("FILE:LINE:COLUMN: error: PATH: MESSAGE"))
        #expect(Captured.run(["help", "lint"]).out == lintHelp.out)
    }

    @Test func aPathAfterDoubleDashMayStartWithADash() throws {
        let result = Captured.run(["lint", "--", "-missing.json"])
        #expect(result.status == 1)
        #expect(result.out.hasPrefix("-missing.json: error: no such file or folder\n"))
    }
}
