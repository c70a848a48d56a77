import Cassette
import CassetteTestSupport
// A child process for the data-safety tests: it records into a cassette so that the test can
// kill it at any moment, or run several at once against one cassette.
//
// USAGE:
//   CassetteSaveCheck loop CASSETTE_FILE [SAVES]
//     Records set A (3 interactions, 200,000-byte bodies), then set B (4 interactions, 100,000-byte
//     bodies), and so on, in record mode `all`: every save replaces the whole cassette. Prints
//     "saving N" before each save and "saved N" after it. Stops after SAVES saves (forever without).
//   CassetteSaveCheck append CASSETTE_FILE TAG COUNT
//     Records COUNT requests `/status/200?tag=TAG&i=I` in record mode `newEpisodes`, then saves.
//   CassetteSaveCheck announce CASSETTE_FILE
//     Records two requests in record mode `once` with this process's environment (so that
//     CASSETTE_SUMMARY applies; CI and CASSETTE_RECORD_MODE left out), then saves.
// Exits 0, or 1 with the error on standard error.
import Foundation

struct UnexpectedAnswer: Error {
    var text: String
}

/// Unbuffered, so a parent that kills this process has seen every line printed before.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: CassetteSaveCheck loop FILE [SAVES] | append FILE TAG COUNT\n".utf8))
    exit(2)
}
let file = URL(fileURLWithPath: arguments[2])

do {
    let server = try LoopbackServer()
    switch arguments[1] {
    case "loop":
        let saves = arguments.count > 3 ? Int(arguments[3]) ?? 0 : Int.max
        var saved = 0
        while saved < saves {
            let (set, count, size) = saved % 2 == 0 ? ("A", 3, 200_000) : ("B", 4, 100_000)
            let tape = try Tape(file: file, mode: .all, environment: .tests)
            // A new recording every time (mode all leaves a file whose traffic did not change unwritten).
            let run = UUID().uuidString
            for i in 0..<count {
                let fetched = await Fetch.get(server.baseURL + "/bytes/\(size)?set=\(set)&i=\(i)&run=\(run)", on: tape.session)
                guard fetched.body.count == size else { throw UnexpectedAnswer(text: "\(fetched)") }
            }
            say("saving \(saved + 1)")
            try tape.eject()
            saved += 1
            say("saved \(saved)")
        }
    case "append" where arguments.count == 5:
        let tape = try Tape(file: file, mode: .newEpisodes, environment: .tests)
        for i in 0..<(Int(arguments[4]) ?? 0) {
            _ = await Fetch.get(server.baseURL + "/status/200?tag=\(arguments[3])&i=\(i)", on: tape.session)
        }
        try tape.eject()
        say("saved")
    case "announce" where arguments.count == 3:
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != "CI" && $0.key != "CASSETTE_RECORD_MODE" }
        let tape = try Tape(file: file, mode: .once, environment: environment)
        for i in 0..<2 { _ = await Fetch.get(server.baseURL + "/status/200?i=\(i)", on: tape.session) }
        try tape.eject()
    default:
        FileHandle.standardError.write(Data("unknown scenario \(arguments[1])\n".utf8))
        exit(2)
    }
    server.stop()
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
