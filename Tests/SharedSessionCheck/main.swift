import Cassette
import CassetteTestSupport
// A child process for the URLSession.shared tests: whether `.shared` can be intercepted
// depends on what the process did first, so each scenario needs a fresh process. Also for the
// process-wide live switch (`Tape.isLive`), which would turn the tapes of other tests live if a
// test of the shared test process set it.
//
// USAGE: SharedSessionCheck early|after-sessions|late|turns|live-switch CASSETTE_FILE
// Prints one line per observation; exits 0 when every observation is as expected, 1 otherwise.
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    print("usage: SharedSessionCheck early|late|turns CASSETTE_FILE")
    exit(2)
}
let scenario = arguments[1]
let file = URL(fileURLWithPath: arguments[2])
let failures = OrderLog()

func check(_ condition: Bool, _ line: String) {
    print((condition ? "ok: " : "FAILED: ") + line)
    if !condition { failures.append(line) }
}

func feedThroughShared() async -> Fetched {
    await Fetch.get("https://api.example.com/feed", on: URLSession.shared)
}

switch scenario {
case "early":
    Tape.prepareSharedSession()
    let server = try LoopbackServer()
    let tape = try Tape(file: file, mode: .none, environment: .tests)
    try await tape.interceptSharedSession()
    let first = await feedThroughShared()
    check(first.status == 503 && first.text == "down for maintenance", "URLSession.shared replays the cassette: \(first)")
    try tape.eject()
    let live = await Fetch.get(server.baseURL + "/status/200", on: URLSession.shared)
    check(live.text == "status 200" && server.received.count == 1, "after eject, URLSession.shared reaches the network again: \(live)")
    server.stop()

case "after-sessions":
    // Other sessions, even one that sent a request, came first; `.shared` was not used yet.
    let server = try LoopbackServer()
    _ = await Fetch.get(server.baseURL + "/status/200", on: URLSession(configuration: .default))
    _ = URLSession(configuration: .ephemeral)
    let tape = try Tape(file: file, mode: .none, environment: .tests)
    try await tape.interceptSharedSession()
    let fetched = await feedThroughShared()
    check(fetched.status == 503, "URLSession.shared replays the cassette after other sessions: \(fetched)")
    try tape.eject()
    server.stop()

case "late":
    _ = URLSession(configuration: .default)
    _ = URLSession.shared
    let tape = try Tape(file: file, mode: .none, environment: .tests)
    do {
        try await tape.interceptSharedSession()
        check(false, "interceptSharedSession did not throw although .shared was created first")
    } catch let error as CassetteError {
        check(error == .sharedSessionNotInterceptable, "throws: \(error)")
    }
    try tape.eject()

case "turns":
    Tape.prepareSharedSession()
    let first = try Tape(file: file, mode: .none, environment: .tests)
    let second = try Tape(file: file, mode: .none, environment: .tests)
    try await first.interceptSharedSession()
    let order = OrderLog()
    let waiter = Task {
        try await second.interceptSharedSession()
        order.append("second acquired")
        let fetched = await feedThroughShared()
        order.append("second got \(fetched.status ?? 0)")
        try second.eject()
    }
    try await Task.sleep(nanoseconds: 200_000_000)
    order.append("first ejecting")
    let fetched = await feedThroughShared()
    order.append("first got \(fetched.status ?? 0)")
    try first.eject()
    try await waiter.value
    check(
        order.entries == ["first ejecting", "first got 503", "second acquired", "second got 503"],
        "tapes take turns with .shared, each replaying its own cassette: \(order.entries)")

case "live-switch":
    let server = try LoopbackServer()
    let before = try Data(contentsOf: file)
    Tape.isLive = true
    let live = try Tape(file: file, mode: .none, environment: .tests)
    let fetched = await Fetch.get(server.baseURL + "/status/201", on: live.session)
    check(
        fetched.status == 201 && fetched.text == "status 201" && server.received.count == 1,
        "Tape.isLive: the request went live: \(fetched)")
    let report = try live.eject()
    check(
        report.isLive && report.replayed == 0 && report.recorded == 0 && !report.saved && report.unusedInteractions.isEmpty,
        "the report says the tape was live, replayed, recorded and saved nothing, and holds nothing unused: \(report)")
    check(try Data(contentsOf: file) == before, "the cassette is unchanged")
    Tape.isLive = false
    let replaying = try Tape(file: file, mode: .none, environment: .tests)
    let replayed = await Fetch.get("https://api.example.com/feed", on: replaying.session)
    let replayReport = try replaying.eject()
    check(replayed.status == 503 && !replayReport.isLive, "Tape.isLive = false: the next tape replays: \(replayed)")
    server.stop()

default:
    print("unknown scenario \(scenario)")
    exit(2)
}
exit(failures.entries.isEmpty ? 0 : 1)

final class OrderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ entry: String) {
        lock.lock()
        items.append(entry)
        lock.unlock()
    }
    var entries: [String] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
