import Cassette
import CassetteTestSupport
// A child process for the memory tests: it replays or records many requests and prints the
// heap in use (HeapUsage) at each stage, so that the test sees memory nothing else touched.
//
// USAGE:
//   CassetteMemoryCheck replay FOLDER COUNT
//     Replays one small response COUNT times (after 200 to warm up) from a tape, then ejects it.
//   CassetteMemoryCheck record FOLDER COUNT SIZE
//     Records a SIZE-byte body from the loopback server into a new tape COUNT times (one tape
//     each, ejected and saved), after one to warm up.
//   CassetteMemoryCheck rss FOLDER COUNT SIZE tape|plain
//     Downloads a SIZE-byte body from the loopback server COUNT times: each recorded through a
//     new tape, ejected and saved (`tape`), or through a plain URLSession (`plain`), and prints
//     "RSS <n> <peak bytes> <current bytes>" after each (HeapUsage.residentSet).
// Prints "HEAP <stage> <bytes>" lines: `baseline` after warming up, `after` when done.
// Exits 0, or 1 with the error on standard error.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct UnexpectedAnswer: Error {
    var text: String
}

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func heap(_ stage: String) {
    say("HEAP \(stage) \(HeapUsage.bytesInUse)")
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: CassetteMemoryCheck replay FOLDER COUNT | record FOLDER COUNT SIZE\n".utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: arguments[2])

do {
    switch arguments[1] {
    case "replay":
        let file = folder.appendingPathComponent("memory-replay.json")
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(url: "https://memory.example/item"),
                response: .init(
                    status: 200, headers: ["Content-Type": "text/plain"], body: .init(text: String(repeating: "x", count: 1024))))
        ])
        try JSONCassetteCodec.encode(document).write(to: file)
        let tape = try Tape(file: file, mode: .none, options: .init(allowsRepeatedReplays: true), environment: .tests)
        let request = URLRequest(url: URL(string: "https://memory.example/item")!)
        func replay(_ times: Int) async throws {
            for _ in 0..<times {
                let fetched = await Fetch.run(request, on: tape.session, style: .async)
                guard fetched.status == 200, fetched.body.count == 1024 else { throw UnexpectedAnswer(text: "\(fetched)") }
            }
        }
        try await replay(200)
        heap("baseline")
        try await replay(count)
        try tape.eject()
        heap("after")
    case "record" where arguments.count == 5:
        guard let size = Int(arguments[4]) else { throw UnexpectedAnswer(text: "SIZE is not a number") }
        let server = try LoopbackServer()
        func record(_ index: Int) async throws {
            let tape = try Tape(file: folder.appendingPathComponent("memory-record-\(index).json"), mode: .all, environment: .tests)
            let fetched = await Fetch.get(server.baseURL + "/bytes/\(size)?i=\(index)", on: tape.session)
            guard fetched.body.count == size else { throw UnexpectedAnswer(text: "\(fetched)") }
            try tape.eject()
        }
        try await record(0)
        heap("baseline")
        for index in 1...max(1, count) { try await record(index) }
        heap("after")
        server.stop()
    case "rss" where arguments.count == 6:
        guard let size = Int(arguments[4]) else { throw UnexpectedAnswer(text: "SIZE is not a number") }
        let server = try LoopbackServer()
        let plain = URLSession(configuration: .ephemeral)
        for index in 1...max(1, count) {
            let url = server.baseURL + "/bytes/\(size)?i=\(index)"
            if arguments[5] == "plain" {
                let fetched = await Fetch.get(url, on: plain)
                guard fetched.body.count == size else { throw UnexpectedAnswer(text: "\(fetched)") }
            } else {
                let tape = try Tape(file: folder.appendingPathComponent("rss-\(index).json"), mode: .all, environment: .tests)
                let fetched = await Fetch.get(url, on: tape.session)
                guard fetched.body.count == size else { throw UnexpectedAnswer(text: "\(fetched)") }
                try tape.eject()
            }
            guard let resident = HeapUsage.residentSet else { throw UnexpectedAnswer(text: "no resident set on this platform") }
            say("RSS \(index) \(resident.peak) \(resident.current)")
        }
        plain.invalidateAndCancel()
        server.stop()
    default:
        FileHandle.standardError.write(Data("unknown scenario \(arguments[1])\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
