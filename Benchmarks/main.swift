import Cassette
import CassetteTestSupport
import Foundation

// CassetteBench: Cassette's costs as ratios against the platform floor, measured side by side
// (A B A B …) in one run. docs/Performance.md says what each one compares.
//
//   swift run -c release CassetteBench            full run (several minutes)
//   swift run -c release CassetteBench --quick    small sizes, few runs: CI checks it still works
//   swift run -c release CassetteBench --only replay_vs_floor,match_scaling
//   swift run -c release CassetteBench --sizes    the cost-by-size tables of docs/Performance.md
//   Benchmarks/counts                             instruction counts of fixed workloads, under valgrind

let usage = """
    USAGE: CassetteBench [--quick] [--only NAME[,NAME...]]
           CassetteBench --sizes
           CassetteBench --workload NAME [--setup-only]    one fixed workload, for Benchmarks/counts

    Runs each benchmark's pair interleaved, prints a table, then one line per benchmark:
    BENCH name=<name> ratio=<median A/B> a_median=<…> b_median=<…> unit=<…> n=<runs>
    """

var arguments = Array(CommandLine.arguments.dropFirst())
// No `await` at the top level: an async `main` parks the main thread with `dispatch_main`, under
// which valgrind cannot start a thread (it crashes), and `--workload` runs under valgrind. The
// benchmarks still run on the main actor, as they did in an async `main`.

/// Runs `body` on the main actor and exits: 0, or 1 after printing its error after `label`.
func runOnMainActor(_ label: String, _ body: @escaping @MainActor () async throws -> Void) -> Never {
    Task { @MainActor in
        do {
            try await body()
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("\(label)\(error)\n".utf8))
            exit(1)
        }
    }
    dispatchMain()
}

if arguments.first == "--child" {
    let childArguments = Array(arguments.dropFirst())
    runOnMainActor("child: ") { try await MemoryBenchmarks.child(childArguments) }
}
if arguments.first == "--workload", arguments.count == 2 || (arguments.count == 3 && arguments[2] == "--setup-only") {
    // One fixed workload, for Benchmarks/counts to count under valgrind: on a task the main thread
    // waits for, which stays alive (see above).
    let name = arguments[1]
    let setupOnly = arguments.count == 3
    let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cassette-workload-\(UUID().uuidString)")
    let done = DispatchSemaphore(value: 0)
    let failure = Locked<Error?>(nil)
    Task.detached {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try await InstructionWorkloads.run(name, setupOnly: setupOnly, folder: folder)
        } catch {
            failure.withLock { $0 = error }
        }
        done.signal()
    }
    done.wait()
    try? FileManager.default.removeItem(at: folder)
    if let error = failure.current {
        FileHandle.standardError.write(Data("workload \(name): \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
var quick = false
var sizes = false
var only: Set<String>?
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--quick": quick = true
    case "--sizes": sizes = true
    case "--only":
        guard let names = arguments.first else {
            FileHandle.standardError.write(Data("error: --only needs benchmark names\n\(usage)\n".utf8))
            exit(2)
        }
        arguments.removeFirst()
        only = Set(names.split(separator: ",").map(String.init))
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data("error: unknown argument '\(argument)'\n\(usage)\n".utf8))
        exit(2)
    }
}

@MainActor func wanted(_ name: String) -> Bool { only.map { $0.contains(name) } ?? true }

@MainActor func benchmarks() async throws {
    let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("cassette-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    if sizes {
        try await SizeTable.print(folder: folder)
        return
    }
    // Started only for the benchmarks that need a server.
    let needsServer = ["record_vs_direct", "memory_record_100mb"].contains(where: wanted)
    let server = needsServer ? try LoopbackServer() : nil
    defer { server?.stop() }

    let harness = Harness(runs: quick ? 9 : 25)
    let slowHarness = Harness(runs: quick ? 1 : 5, warmUp: quick ? 0 : 1)
    var results: [Harness.Result] = []
    func run(_ pair: @autoclosure () throws -> Harness.Pair, with chosen: Harness? = nil) async throws {
        let pair = try pair()
        print("running \(pair.name): \(pair.what)…")
        results.append(try await (chosen ?? harness).run(pair))
    }

    if wanted("replay_vs_floor") {
        try await run(try ReplayBenchmarks.versusFloor(inFlight: 1, requests: quick ? 100 : 1000, folder: folder))
    }
    if wanted("replay_vs_floor_64") {
        try await run(try ReplayBenchmarks.versusFloor(inFlight: 64, requests: quick ? 256 : 4096, folder: folder))
    }
    if wanted("replay_cpu_64") {
        try await run(try ReplayBenchmarks.versusFloor(inFlight: 64, requests: quick ? 256 : 4096, cpu: true, folder: folder))
    }
    if wanted("replay_distinct_64") {
        try await run(try ReplayBenchmarks.distinctVersusFloor(requests: quick ? 512 : 4096, folder: folder))
    }
    if wanted("match_scaling") {
        try await run(try ReplayBenchmarks.matchScaling(large: quick ? 10_000 : 100_000, requests: quick ? 200 : 2000, folder: folder))
    }
    for cpu in [false, true] where wanted(cpu ? "suite_replay_cpu" : "suite_replay") {
        try await run(try SuiteBenchmark.pair(tests: quick ? 60 : 400, cpu: cpu, folder: folder))
    }
    for cpu in [false, true] where wanted(cpu ? "suite_replay_vs_files_cpu" : "suite_replay_vs_files") {
        try await run(try SuiteBenchmark.pair(tests: quick ? 60 : 400, cpu: cpu, floor: .files, folder: folder))
    }
    if wanted("tape_lifecycle") {
        try await run(try LifecycleBenchmarks.tapeLifecycle(interactions: 50, repetitions: quick ? 5 : 50, folder: folder))
    }
    for stubs in [false, true] where wanted(stubs ? "stub_session_setup" : "session_setup") {
        try await run(try LifecycleBenchmarks.sessionSetup(stubs: stubs, repetitions: quick ? 5 : 50, folder: folder))
    }
    if wanted("tape_setup") {
        try await run(try LifecycleBenchmarks.tapeSetup(repetitions: quick ? 5 : 50, folder: folder))
    }
    if wanted("ledger_cost") {
        try await run(try LedgerBenchmarks.cost(interactions: 50, repetitions: quick ? 5 : 50, folder: folder))
    }
    if wanted("report_10k") {
        try await run(try LedgerBenchmarks.report(cassettes: quick ? 1_000 : 10_000, folder: folder), with: Harness(runs: quick ? 1 : 5))
    }
    if wanted("save_10k") {
        try await run(
            try LifecycleBenchmarks.save(interactions: quick ? 1_000 : 10_000, repetitions: quick ? 1 : 3, folder: folder),
            with: Harness(runs: quick ? 1 : 9))
    }
    let codecNames = [
        "json_decode_vs_floor", "json_encode_vs_floor", "http_decode_vs_json", "http_encode_vs_json", "har_decode_vs_json",
        "har_encode_vs_json",
    ]
    if codecNames.contains(where: wanted) {
        for pair in try CodecBenchmarks.pairs(megabytes: quick ? 5 : 50) where wanted(pair.name) {
            try await run(pair, with: Harness(runs: quick ? 1 : 7, warmUp: quick ? 0 : 1))
        }
    }
    for pair in try ScalingBenchmarks.pairs() where wanted(pair.name) {
        try await run(pair, with: Harness(runs: quick ? 3 : 9))
    }
    if wanted("view_5k") {
        try await run(ViewBenchmark.pair(), with: Harness(runs: quick ? 3 : 9))
        try ViewBenchmark.render(folder: folder)
    }
    if wanted("record_vs_direct"), let server {
        try await run(RecordBenchmark.pair(server: server, requests: quick ? 100 : 500, folder: folder))
    }
    if wanted("serve_vs_static") {
        try await run(
            try ServeBenchmark.pair(clients: 64, requestsPerClient: quick ? 100 : 200, folder: folder), with: Harness(runs: quick ? 3 : 5))
        // Not while profiling one side: the load check is the server's, and would be most of either profile.
        if Harness.oneSide == nil {
            try ServeBenchmark.load(clients: 64, requestsPerClient: quick ? 50 : 10_000, folder: folder)
        }
    }
    if wanted("ws_replay_vs_echo") {
        try await run(
            try WebSocketBenchmark.pair(clients: 8, messages: quick ? 100 : 2_000, folder: folder), with: Harness(runs: quick ? 1 : 7))
    }
    let bigBody = (quick ? 10 : 100) * 1_048_576
    if wanted("memory_replay_100mb") {
        try await run(try MemoryBenchmarks.replayPair(size: bigBody, folder: folder, runs: 1), with: slowHarness)
    }
    if wanted("memory_record_100mb"), let server {
        try await run(
            MemoryBenchmarks.recordPair(url: server.baseURL + "/bytes/\(bigBody)", size: bigBody, folder: folder), with: slowHarness)
    }

    print("")
    print(Report.table(results))
    print("")
    for result in results { print(Report.benchLine(result)) }
}

runOnMainActor("error: ") { try await benchmarks() }
