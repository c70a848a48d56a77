import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTools

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Cassette never loses or corrupts a recording: appends keep what was there, saves are in start
/// order, atomic even under SIGKILL, refused without damage, and safe across processes.
@Suite(.timingIsolated) struct DataSafetyTests {
    #if os(Linux) || os(macOS)  // starts a process
    /// The child executable, built next to the test bundle (`Tests/CassetteSaveCheck`).
    static var child: URL { ChildProcess.url(of: "CassetteSaveCheck") }

    /// Starts the child (through `SpawnedProcess`: these tests start hundreds of children, and
    /// `Foundation.Process.run()` over-reads memory on this toolchain).
    static func launch(_ arguments: [String]) throws -> SpawnedProcess {
        try SpawnedProcess(executable: child.path, arguments, environment: ChildProcess.environment())
    }

    /// Reads the child's output until a line equal to `line` arrives; false when it closes first.
    static func wait(for line: String, in process: SpawnedProcess) -> Bool {
        var text = ""
        while true {
            let data = process.outputHandle.availableData
            if data.isEmpty { return false }
            text += String(decoding: data, as: UTF8.self)
            if text.split(separator: "\n").contains(Substring(line)) { return true }
        }
    }

    /// Runs blocking work (waiting for child processes) off Swift's cooperative pool.
    static func offThePool<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result(catching: work)) }
        }
    }
    #endif

    static func queryValue(_ name: String, of url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value
    }

    #if os(Linux) || os(macOS)  // starts a process
    /// Kill test: a child recording into a cassette is killed with SIGKILL at a random moment of
    /// a save (its first or second, from 0 to 40 ms after it began, or to 1.25 times as long as a
    /// save was measured to take, when longer), 100 times or more (until one kill
    /// has landed mid-write, at most 400). Every time, the file is
    /// a valid cassette holding one whole recording (set A: 3 interactions, or set B: 4), never a
    /// mix or a partial write; and the temporary files of interrupted saves are cleaned up by the
    /// next save.
    @Test func killedWhileSavingTheCassetteIsAlwaysTheOldOrTheNewOne() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("kill.json")
            let (problems, interrupted, leftoversAfterCleanSave) = try await Self.offThePool { () throws -> ([String], Int, [String]) in
                var problems: [String] = []
                var interrupted = 0
                // A first save, so that there is always an old cassette.
                _ = try Self.launch(["loop", file.path, "1"]).finish()
                // How long a save takes here: a sanitizer or a loaded machine makes it several times
                // longer than 40 ms, and kills that land only in its first 40 ms (reading and
                // encoding) never reach the write. Kills land anywhere in a save's measured span.
                let probe = try Self.launch(["loop", file.path, "1"])
                var span: UInt32 = 40_000
                if Self.wait(for: "saving 1", in: probe) {
                    let began = DispatchTime.now().uptimeNanoseconds
                    if Self.wait(for: "saved 1", in: probe) {
                        span = max(span, UInt32(min((DispatchTime.now().uptimeNanoseconds - began) / 1_000 * 5 / 4, 2_000_000)))
                    }
                }
                _ = probe.finish()
                // 100 rounds, and more (up to 400) until a kill has landed mid-write: a mode-all save
                // spends most of its time reading and encoding, so only a few kills in a hundred do.
                var round = -1
                while true {
                    round += 1
                    if round >= 400 || (round >= 100 && interrupted > 0) { break }
                    let process = try Self.launch(["loop", file.path])
                    guard Self.wait(for: "saving \(Int.random(in: 1...2))", in: process) else {
                        problems.append("round \(round): the child stopped before saving")
                        continue
                    }
                    usleep(UInt32.random(in: 0...span))
                    process.send(SIGKILL)
                    _ = process.finish()

                    let names = (try? FileManager.default.contentsOfDirectory(atPath: scratch.url.path)) ?? []
                    if names.contains(where: { $0.hasPrefix(".kill.json.") && $0.hasSuffix(".tmp") }) { interrupted += 1 }
                    do {
                        let interactions = try JSONCassetteCodec.decode(try Data(contentsOf: file), file: file.path).interactions
                        let sets = Set(interactions.compactMap { Self.queryValue("set", of: $0.request.url) })
                        let sizes = interactions.map { $0.response?.body.data.count ?? -1 }
                        if !(sets == ["A"] && sizes == [200_000, 200_000, 200_000])
                            && !(sets == ["B"] && sizes == [100_000, 100_000, 100_000, 100_000])
                        {
                            problems.append("round \(round): sets \(sets.sorted()), body sizes \(sizes)")
                        }
                    } catch {
                        problems.append("round \(round): \(error)")
                    }
                }
                // A save that runs to the end removes what killed saves left behind.
                let clean = try Self.launch(["loop", file.path, "1"]).finish().status
                if clean != 0 { problems.append("the last save exited \(clean)") }
                let leftovers = ((try? FileManager.default.contentsOfDirectory(atPath: scratch.url.path)) ?? []).filter {
                    $0 != "kill.json"
                }
                return (problems, interrupted, leftovers)
            }
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
            // The kills did land in the middle of writes, and those left only their temporary files.
            #expect(interrupted > 0, "no kill interrupted a save; the test proved nothing")
            #expect(leftoversAfterCleanSave.isEmpty, "\(leftoversAfterCleanSave)")
        }
    }

    /// Four processes add to one cassette at the same time (mode `newEpisodes`): the lock makes
    /// their saves take turns and each re-reads the file, so nothing anyone recorded is lost.
    @Test func processesRecordingIntoOneCassetteAllKeepTheirRecordings() async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("shared.json")
            let seed = CassetteDocument(interactions: [
                Interaction(request: .init(url: "https://example.com/seed"), response: .init(status: 200, body: .init(text: "seed")))
            ])
            try JSONCassetteCodec.encode(seed).write(to: file)
            let tags = ["p1", "p2", "p3", "p4"]
            let statuses = try await Self.offThePool { () throws -> [Int32] in
                let processes = try tags.map { try Self.launch(["append", file.path, $0, "5"]) }
                return processes.map { $0.finish().status }
            }
            #expect(statuses == [0, 0, 0, 0])
            let interactions = try JSONCassetteCodec.decode(try Data(contentsOf: file)).interactions
            #expect(interactions.first?.request.url == "https://example.com/seed")
            let recorded = interactions.dropFirst().map {
                "\(Self.queryValue("tag", of: $0.request.url) ?? "?")#\(Self.queryValue("i", of: $0.request.url) ?? "?")"
            }
            #expect(recorded.sorted() == tags.flatMap { tag in (0..<5).map { "\(tag)#\($0)" } }.sorted())
            // Each process's recordings stay together, in the order its requests started.
            for tag in tags {
                #expect(recorded.filter { $0.hasPrefix(tag) } == (0..<5).map { "\(tag)#\($0)" })
            }
        }
    }
    #endif

    /// 200 requests in flight at once finish in random order; the cassette lists them in the
    /// order they started, the same in every run.
    @Test func concurrentRecordingsAreSavedInTheOrderTheirRequestsStarted() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            var orders: [[Int]] = []
            for run in 0..<2 {
                let file = scratch.file("concurrent-\(run).json")
                let tape = try Tape(file: file, mode: .once, environment: .tests)
                let finished = Locked<[Int]>([])
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let group = DispatchGroup()
                    for i in 0..<200 {
                        let delay = Int.random(in: 0...60)
                        group.enter()
                        tape.session.dataTask(with: URL(string: server.baseURL + "/delay/\(delay)?i=\(i)")!) { _, _, _ in
                            finished.withLock { $0.append(i) }
                            group.leave()
                        }.resume()
                    }
                    group.notify(queue: .global()) { continuation.resume() }
                }
                #expect(finished.current != Array(0..<200), "the requests finished in start order; the test proved nothing")
                try tape.eject()
                let saved = try JSONCassetteCodec.decode(try Data(contentsOf: file)).interactions
                orders.append(saved.compactMap { Self.queryValue("i", of: $0.request.url).flatMap(Int.init) })
            }
            #expect(orders[0] == Array(0..<200))
            #expect(orders[1] == orders[0])
        }
    }

    /// A recorded response reaches its caller from the queue the live request reports on, when
    /// nothing is waiting before it (`ClientChannel.soon`). Many requests of several sessions at
    /// once — async, completion handler, and a delegate that hears every piece — each get their
    /// own response, whole, and the cassette keeps every one.
    @Test func concurrentRecordingsThroughSeveralSessionsReachEveryCallerIntact() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let tape = try Tape(file: scratch.file("sessions.json"), mode: .once, environment: .tests)
            let configured = URLSessionConfiguration.ephemeral
            tape.configure(configured)
            let callers: [(URLSession, FetchStyle)] = [
                (tape.session, .async), (tape.session, .completionHandler),
                (URLSession(configuration: configured), .completionHandler),
                (Fetch.delegateSession(configuredBy: tape.configure), .delegate),
            ]
            let perCaller = 40
            let fetched = await withTaskGroup(of: (String, Fetched).self) { group in
                for (c, (session, style)) in callers.enumerated() {
                    for i in 0..<perCaller {
                        // Odd requests stream in pieces; even ones come whole.
                        let path = i.isMultiple(of: 2) ? "/echo" : "/chunked/\(i % 4 + 2)"
                        let query = "c=\(c)&i=\(i)"
                        let url = server.baseURL + path + "?" + query
                        group.addTask { (path + "?" + query, await Fetch.get(url, on: session, style: style)) }
                    }
                }
                var all: [(String, Fetched)] = []
                for await result in group { all.append(result) }
                return all
            }
            #expect(fetched.count == callers.count * perCaller)
            for (target, response) in fetched {
                #expect(response.status == 200, "\(target): \(response)")
                if target.hasPrefix("/echo") {
                    let query = String(target.drop { $0 != "?" }.dropFirst())
                    let echoed = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
                    #expect(echoed?["query"] as? String == query, "\(target) got \(response.text)")
                } else {
                    let count = Int(target.dropFirst("/chunked/".count).prefix { $0 != "?" }) ?? 0
                    #expect(response.text == (0..<count).map { "chunk \($0)\n" }.joined(), "\(target)")
                }
            }
            let report = try tape.eject()
            #expect(report.recorded == callers.count * perCaller)
        }
    }

    /// `newEpisodes` appends: every interaction already there stays, unused or hand-edited, byte
    /// for byte, and the new one comes after them.
    @Test func newEpisodesKeepsEverythingThatWasThere() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("episodes.json")
            let before = """
                {
                  "version": 1,
                  "recordedWith": "by hand",
                  "interactions": [
                    {
                      "request": { "method": "GET", "url": "\(server.baseURL)/status/200" },
                      "response": { "status": 503, "headers": { "Retry-After": "30" }, "body": "edited by hand" },
                      "latency": { "firstByte": 0, "duration": 0 }
                    },
                    {
                      "request": { "method": "GET", "url": "https://unused.example/never-requested" },
                      "error": { "code": "timedOut" }
                    }
                  ]
                }

                """
            try Data(before.utf8).write(to: file)
            let tape = try Tape(file: file, mode: .newEpisodes, environment: .tests)
            #expect(await Fetch.get(server.baseURL + "/status/200", on: tape.session).status == 503)
            #expect(await Fetch.get(server.baseURL + "/status/201", on: tape.session).status == 201)
            try tape.eject()
            let old = try JSONCassetteCodec.decode(Data(before.utf8)).interactions
            let now = try JSONCassetteCodec.decode(try Data(contentsOf: file)).interactions
            #expect(Array(now.prefix(2)) == old)
            #expect(now.count == 3)
            #expect(now.last?.request.url == server.baseURL + "/status/201")
        }
    }

    /// A recording that cannot be written as a valid cassette: the save is refused, says why, and
    /// the file on disk keeps every byte.
    @Test func aSaveThatCannotBeWrittenLeavesTheOldFileUntouched() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("keep.json")
            let before = try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [
                    Interaction(request: .init(url: "https://example.com/kept"), response: .init(status: 200))
                ]))
            try before.write(to: file)
            // A hook that breaks the recording: a status HTTP does not have.
            let options = Tape.Options(beforeRecord: { interaction in
                var interaction = interaction
                interaction.response?.status = 1000
                return interaction
            })
            let tape = try Tape(file: file, mode: .newEpisodes, options: options, environment: .tests)
            #expect(await Fetch.get(server.baseURL + "/status/201", on: tape.session).status == 201)
            #expect {
                try tape.eject()
            } throws: { error in
                let text = "\(error)"
                return text.hasPrefix("could not save cassette \(file.path): the recording cannot be written as a valid cassette: ")
                    && text.contains("status")
                    && text.hasSuffix("The previous file, if any, is unchanged; check that the folder exists and is writable.")
            }
            #expect(try Data(contentsOf: file) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["keep.json"])
        }
    }
}
