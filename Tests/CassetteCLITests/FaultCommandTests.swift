import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `cassette fault`: each fault it writes replays as the fault it names through every API and
/// through `cassette serve`, and only the chosen interaction's bytes change.
@Suite(.timingIsolated) struct FaultCommandTests {
    /// A scratch copy of the committed `faults.json`.
    private static func copyOfFaults(in folder: URL) throws -> (file: String, original: Data) {
        let file = folder.appendingPathComponent("faults.json")
        let original = try Data(contentsOf: PackagePaths.examples.appendingPathComponent("faults.json"))
        try original.write(to: file)
        return (file.path, original)
    }

    // MARK: The file

    @Test func onlyTheChosenInteractionsBytesChange() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, original) = try Self.copyOfFaults(in: folder)
        let result = Captured.run([
            "fault", file, "--match", "GET /search", "--status", "503", "--body", "down for maintenance", "--header", "Retry-After: 30",
        ])
        #expect(result.status == 0, "\(result.error)")
        #expect(
            result.out
                == "\(file): interaction #5 (GET https://api.example.com/search?q=swift): status 503, a body of 20 bytes, Retry-After: 30\n"
        )
        let before = String(decoding: original, as: UTF8.self)
        let oldInteraction = """
            {
                  "request": { "method": "GET", "url": "https://api.example.com/search?q=swift" },
                  "response": {
                    "status": 200,
                    "headers": { "Content-Type": "application/json" },
                    "body": { "json": { "results": [] } }
                  },
                  "latency": { "firstByte": 2, "duration": 2 }
                }
            """
        let newInteraction = """
            {
                  "request": { "method": "GET", "url": "https://api.example.com/search?q=swift" },
                  "response": {
                    "status": 503,
                    "headers": { "Content-Type": "application/json", "Retry-After": "30" },
                    "body": { "text": "down for maintenance" }
                  },
                  "latency": { "firstByte": 2, "duration": 2 },
                  "scenario": "status 503, a body of 20 bytes, Retry-After: 30"
                }
            """
        #expect(before.components(separatedBy: oldInteraction).count == 2)
        #expect(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)
                == before.replacingOccurrences(of: oldInteraction, with: newInteraction))
        #expect(Captured.run(["lint", file]).out == "1 cassette, 5 interactions, 0 errors\n")
    }

    /// Hand-written layout elsewhere in the file survives: a compact interaction before and after.
    @Test func aHandWrittenLayoutAroundTheInteractionIsKept() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("hand.json")
        let text = """
            {"version":1,"interactions":[
             {"request":{"method":"GET","url":"https://a.example/one"},"response":{"status":200,"headers":{"Content-Length":"5"},"body":"hello"}},
             {"request":{"method":"GET","url":"https://a.example/two"},"response":{"status":200}}   ]}

            """
        try Data(text.utf8).write(to: file)
        let result = Captured.run(["fault", file.path, "--interaction", "1", "--body", "bye"])
        #expect(result.status == 0, "\(result.error)")
        #expect(
            String(decoding: try Data(contentsOf: file), as: UTF8.self) == """
                {"version":1,"interactions":[
                 {
                      "request": { "method": "GET", "url": "https://a.example/one" },
                      "response": { "status": 200, "headers": { "Content-Length": "3" }, "body": { "text": "bye" } },
                      "scenario": "a body of 3 bytes"
                    },
                 {"request":{"method":"GET","url":"https://a.example/two"},"response":{"status":200}}   ]}

                """)
        // Content-Length followed the body, so lint has nothing to say.
        #expect(Captured.run(["lint", file.path]).out == "1 cassette, 2 interactions, 0 errors\n")
    }

    @Test func aDryRunPrintsTheChangeAndWritesNothing() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, original) = try Self.copyOfFaults(in: folder)
        let result = Captured.run(["fault", file, "--interaction", "4", "--error", "timedOut", "--dry-run"])
        #expect(result.status == 0)
        #expect(
            result.out == """
                \(file): interaction #4 (GET https://api.example.com/orders) would become: fails with timedOut (-1001) (dry run: nothing written)
                        "request": { "method": "GET", "url": "https://api.example.com/orders" },
                -       "response": {
                -         "status": 503,
                -         "headers": { "Content-Type": "application/json", "Retry-After": "30" },
                -         "body": { "json": { "error": "maintenance" } }
                -       }
                +       "error": { "code": "timedOut" },
                +       "scenario": "fails with timedOut (-1001)"
                      }

                """)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original)
    }

    @Test func asACopyLeavesTheCassetteAndWritesAScenarioBesideIt() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, original) = try Self.copyOfFaults(in: folder)
        let result = Captured.run(["fault", file, "--interaction", "3", "--cut-after-bytes", "4", "--as-copy", "download-cut-early"])
        #expect(result.status == 0, "\(result.error)")
        let copy = folder.appendingPathComponent("download-cut-early.json")
        #expect(
            result.out
                == "\(file) → \(copy.path): interaction #3 (GET https://api.example.com/download): networkConnectionLost after 4 bytes\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original)
        let text = String(decoding: try Data(contentsOf: copy), as: UTF8.self)
        #expect(
            text
                == String(decoding: original, as: UTF8.self).replacingOccurrences(
                    of: "\"afterBytes\": 10 }\n",
                    with: "\"afterBytes\": 4 },\n      \"scenario\": \"networkConnectionLost after 4 bytes\"\n"))
        // A copy into another folder of the package's cassettes, as the README's first example makes
        // one (named as the test names it): the folder is created.
        try Data().write(to: folder.appendingPathComponent("Package.swift"))
        let tests = folder.appendingPathComponent("Cassettes/UserTests")
        try FileManager.default.createDirectory(at: tests, withIntermediateDirectories: true)
        let (inTests, _) = try Self.copyOfFaults(in: tests)
        let elsewhere = Captured.run(["fault", inTests, "--interaction", "1", "--error", "timedOut", "--as-copy", "Users/timeout"])
        #expect(elsewhere.status == 0, "\(elsewhere.error)")
        #expect(try CassetteFile.read(folder.appendingPathComponent("Cassettes/Users/timeout.json")).interactions.count == 5)
        // Printed paths are normalized: no `..` of the command line.
        let dotted = Captured.run([
            "fault", tests.path + "/../UserTests/faults.json", "--interaction", "1", "--error", "timedOut", "--as-copy",
            "Feed/timeout",
        ])
        #expect(dotted.status == 0, "\(dotted.error)")
        #expect(
            dotted.out
                == "\(inTests) → \(folder.path)/Cassettes/Feed/timeout.json: interaction #1 (GET https://api.example.com/feed): "
                + "fails with timedOut (-1001)\n")
        // An existing file is not replaced.
        let again = Captured.run(["fault", file, "--interaction", "3", "--cut-after-bytes", "4", "--as-copy", "download-cut-early"])
        #expect(again.status == 1)
        #expect(again.error == "\(copy.path): error: already exists; choose another name for the copy, or delete it first\n")
    }

    /// `--as-copy NAME` names the copy as a test names a cassette (`CassetteStore`): every name of
    /// the table the tape, `withCassette`, the trait and the folder server resolve
    /// (`CassetteStoreTests`) is the same file here — written when new, refused when it exists —
    /// or the same refusal.
    @Test(arguments: CassetteNames.table.indices)
    func asACopyNamesTheCopyAsATapeDoes(_ index: Int) throws {
        let row = CassetteNames.table[index]
        let scratch = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Data().write(to: scratch.appendingPathComponent("Package.swift"))
        let folder = try CassetteNames.folder(in: scratch)
        let source = folder.appendingPathComponent("plain.json").path
        let result = Captured.run(["fault", source, "--interaction", "1", "--status", "503", "--as-copy", row.name])
        guard let file = row.file else {
            #expect(result.status == 2, "\(row.name): \(result.error)")
            #expect(result.error.contains("\(CassetteError.invalidCassetteName(row.name))"), "\(row.name): \(result.error)")
            return
        }
        let path = folder.appendingPathComponent(file).path
        if path == source {
            #expect(result.status == 1, "\(row.name): \(result.error)")
            #expect(result.error == "\(path): error: is the cassette being changed; give --as-copy another name\n")
        } else if CassetteNames.exists(file) {
            #expect(result.status == 1, "\(row.name): \(result.error)")
            #expect(result.error == "\(path): error: already exists; choose another name for the copy, or delete it first\n")
        } else {
            #expect(result.status == 0, "\(row.name): \(result.error)")
            #expect(try CassetteFile.read(URL(fileURLWithPath: path)).interactions.first?.response?.status == 503)
        }
    }

    /// An `.http` cassette has no byte-exact splice: it is written whole, in its canonical form.
    @Test func anHTTPMessageCassetteIsWrittenWhole() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let json = PackagePaths.examples.appendingPathComponent("faults.json").path
        let file = folder.appendingPathComponent("faults.http").path
        #expect(Captured.run(["convert", json, file]).status == 0)
        let result = Captured.run(["fault", file, "--match", "GET https://api.example.com/feed", "--status", "200", "--body", "ok"])
        #expect(result.status == 0, "\(result.error)")
        let document = try CassetteFormat.httpMessages.decode(try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(document.interactions[0].response?.status == 200)
        #expect(document.interactions[0].response?.body.data == Data("ok".utf8))
        #expect(document.interactions[0].error == nil)
        #expect(document.interactions.count == 5)
    }

    // MARK: Wrong input

    @Test func wrongInputIsRefusedWithWhyAndChangesNothing() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (file, original) = try Self.copyOfFaults(in: folder)
        let usage = " Run 'cassette fault --help'.\n"
        let cases: [(arguments: [String], status: Int32, error: String)] = [
            (
                ["--interaction", "1"], 2,
                "error: say which fault: --status, --body, --header, --error, --cut-after-bytes, --cut-after-events, --latency or --rpc-status."
                    + usage
            ),
            (["--status", "503"], 2, "error: choose the interaction with --interaction N or --match 'METHOD URL'." + usage),
            (
                ["--interaction", "1", "--match", "GET /feed", "--status", "503"], 2,
                "error: give --interaction or --match, not both." + usage
            ),
            (["--interaction", "1", "--status", "1000"], 2, "error: --status takes an HTTP status from 100 to 599, found '1000'." + usage),
            (
                ["--interaction", "1", "--latency", "2"], 2,
                "error: --latency takes FIRSTBYTE,DURATION in seconds, like 0.5,2, found '2'." + usage
            ),
            (
                ["--interaction", "1", "--latency", "2,1"], 2,
                "error: --latency 2,1: duration (1) cannot be less than firstByte (2): both count from the start of the request." + usage
            ),
            (
                ["--interaction", "1", "--header", "Retry-After 30"], 2,
                "error: --header takes 'NAME: VALUE', like 'Retry-After: 30', found 'Retry-After 30'." + usage
            ),
            (
                ["--interaction", "1", "--error", "timedOut", "--status", "503"], 2,
                "error: --error alone replaces the response with a failure, so --status, --body and --header have nothing to change; "
                    + "add --cut-after-bytes or --cut-after-events for a response that fails part-way." + usage
            ),
            (
                ["--interaction", "0", "--status", "503"], 2,
                "error: --interaction numbers interactions from 1, as 'cassette show', 'cassette report' and 'cassette prune' do: "
                    + "there is no interaction 0 (before 1.0 'fault' counted from 0; that interaction is #1)." + usage
            ),
            (
                ["--interaction", "first", "--status", "503"], 2,
                "error: --interaction takes an interaction's number, from 1 as 'cassette show' numbers them, found 'first'." + usage
            ),
            (
                ["--interaction", "#10", "--status", "503"], 1,
                "\(file): error: there is no interaction #10: the cassette holds 5, numbered 1 to 5 ('cassette show' lists them)\n"
            ),
            (
                ["--interaction", "10", "--status", "503"], 1,
                "\(file): error: there is no interaction #10: the cassette holds 5, numbered 1 to 5 ('cassette show' lists them)\n"
            ),
            (
                ["--match", "POST /feed", "--status", "503"], 1,
                "\(file): error: no interaction is POST /feed ('cassette show' lists the 5 it holds)\n"
            ),
            (
                ["--interaction", "3", "--cut-after-bytes", "27"], 1,
                "\(file): error: interaction #3 (GET https://api.example.com/download) cannot take this fault: its response body holds 26 bytes, fewer than --cut-after-bytes 27\n"
            ),
            (
                ["--interaction", "5", "--cut-after-events", "1"], 1,
                "\(file): error: interaction #5 (GET https://api.example.com/search?q=swift) cannot take this fault: its response is not a stream "
                    + "(it has no \"stream\" of events or chunks); use --cut-after-bytes for a body\n"
            ),
            (
                ["--interaction", "1", "--cut-after-bytes", "1"], 1,
                "\(file): error: interaction #1 (GET https://api.example.com/feed) cannot take this fault: it has no response to cut; give --status (and --body) for one first, or --error alone\n"
            ),
        ]
        for test in cases {
            let result = Captured.run(["fault", file] + test.arguments)
            #expect(result.status == test.status, "\(test.arguments)")
            #expect(result.error == test.error, "\(test.arguments)")
            #expect(result.out == "")
        }
        // A misspelt error code gets the reader's "did you mean".
        let misspelt = Captured.run(["fault", file, "--interaction", "1", "--error", "timedOt"])
        #expect(misspelt.status == 2)
        #expect(
            misspelt.error.hasPrefix(
                "error: --error: unknown error code \"timedOt\" (did you mean \"timedOut\"?); expected a URLError.Code name or number."))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original)
    }
}

/// Recorded from the loopback server, faulted by the command, replayed: each fault reaches the
/// caller as the fault it names, through `data(for:)`, a completion handler and a delegate, and
/// through `cassette serve`.
@Suite(.timingIsolated) struct FaultReplayTests {
    /// A cassette recorded live: a JSON body (`/echo/cut`, `/echo/down`, `/echo/slow`) and a
    /// stream of five server-sent events (`/sse/5/30`), each then given its fault.
    private static func faultedCassette(in scratch: ScratchTape) async throws -> (file: String, events: [Data]) {
        let tape = try scratch.tape(mode: .once)
        for path in ["/echo/cut", "/echo/down", "/echo/slow", "/sse/5/30"] {
            #expect(await Fetch.get(scratch.url(path), on: tape.session).status == 200)
        }
        try tape.eject()
        let file = scratch.file.path
        let stream = try CassetteFile.read(scratch.file).interactions[3].response?.stream
        let events = stream?.chunks.map(\.data) ?? []
        #expect(events.count == 5)
        #expect(stream?.chunks.allSatisfy { $0.event != nil } == true)
        for arguments in [
            ["--match", "GET /echo/cut", "--cut-after-bytes", "10"],
            ["--match", "GET /echo/down", "--status", "503", "--body", "down for maintenance", "--header", "Retry-After: 30"],
            ["--match", "GET /echo/slow", "--error", "timedOut", "--latency", "0.4,0.4"],
            ["--match", "GET /sse/5/30", "--cut-after-events", "3"],
        ] {
            let result = Captured.run(["fault", file] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.error)")
        }
        #expect(Captured.run(["lint", file]).out == "1 cassette, 4 interactions, 0 errors\n")
        return (file, events)
    }

    @Test(arguments: FetchStyle.allCases)
    func eachFaultReplaysAsItsName(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let (_, events) = try await Self.faultedCassette(in: scratch)
            let tape = try scratch.tape(mode: .none)
            let session = Fetch.session(of: tape, style: style)
            let base = scratch.server.baseURL

            let cut = await Fetch.get(base + "/echo/cut", on: session, style: style)
            #expect(cut.errorCode == .networkConnectionLost)
            // A delegate sees the head and exactly 10 bytes; the others get the error alone, as live.
            #expect(cut.body.count == (style == .delegate ? 10 : 0))
            #expect(cut.status == (style == .delegate ? 200 : nil))

            let down = await Fetch.get(base + "/echo/down", on: session, style: style)
            #expect(down.status == 503)
            #expect(down.text == "down for maintenance")
            #expect(down.headers["Retry-After"] == "30")
            #expect(down.headers["Content-Length"] == "20")
            #expect(down.errorCode == nil)

            let start = Date()
            let slow = await Fetch.get(base + "/echo/slow", on: session, style: style)
            let waited = Date().timeIntervalSince(start)
            #expect(slow.errorCode == .timedOut)
            #expect(waited >= 0.35 && waited < 5 * TimingIsolation.scale, "timed out after \(waited) s")

            let stream = await Fetch.get(base + "/sse/5/30", on: session, style: style)
            #expect(stream.errorCode == .networkConnectionLost)
            #expect(stream.body == (style == .delegate ? events.prefix(3).reduce(Data(), +) : Data()))
            _ = try tape.eject()
        }
    }

    #if os(Linux) || os(macOS)  // starts a process
    @Test func eachFaultReplaysAsItsNameThroughServe() async throws {
        try await withScratchTape { scratch in
            let (file, events) = try await Self.faultedCassette(in: scratch)
            // Each recording answers the URLSession client, then curl.
            let served = try ServeCommandTests.Served(["--cassette", file, "--allow-repeated-replays"])
            let session = Fetch.delegateSession { _ in }
            defer { session.invalidateAndCancel() }

            // On the wire: the head, exactly 10 bytes of the promised body, then the connection closes.
            // URLSession names that as its platform does for a live server (networkConnectionLost on
            // Apple platforms; FoundationNetworking says badServerResponse or unknown); curl says 18.
            let lost: Set<URLError.Code> = [.networkConnectionLost, .badServerResponse, .unknown]
            let cut = await Fetch.get(served.base + "/echo/cut", on: session, style: .delegate)
            #expect(cut.errorCode.map(lost.contains) == true, "\(cut)")
            #expect(cut.body.count == 10)
            let curled = ServeCommandTests.curl([served.base + "/echo/cut"])
            #expect(curled.status == 18, "curl: transfer closed with outstanding read data remaining")
            #expect(curled.out.utf8.count == 10)

            let down = await Fetch.get(served.base + "/echo/down", on: session, style: .delegate)
            #expect(down.status == 503)
            #expect(down.text == "down for maintenance")
            #expect(down.headers["Retry-After"] == "30")

            var request = URLRequest(url: try #require(URL(string: served.base + "/echo/slow")))
            request.timeoutInterval = 1
            let slow = await Fetch.run(request, on: session, style: .delegate)
            #expect(slow.errorCode == .timedOut)

            let stream = await Fetch.get(served.base + "/sse/5/30", on: session, style: .delegate)
            #expect(stream.errorCode.map(lost.contains) == true, "\(stream)")
            #expect(stream.body == events.prefix(3).reduce(Data(), +))
            let curledStream = ServeCommandTests.curl([served.base + "/sse/5/30"])
            #expect(curledStream.status == 18)
            #expect(Data(curledStream.out.utf8) == events.prefix(3).reduce(Data(), +))
            let (status, errors) = served.stop()
            #expect(status == 0, "\(errors)")
        }
    }
    #endif
}
