// swift-tools-version:6.2
// The oldest Swift Cassette supports, so that an older SwiftPM refuses the package with its own
// message (docs/Decisions.md, "The Swift versions Cassette supports").
import PackageDescription

// Cassette records the HTTP traffic of code under test and replays it offline.
// Zero package dependencies, by design: only what the Swift toolchain ships.

/// Where the tests may start a child process (Foundation's `Process`): not iOS or tvOS.
let startsProcesses = TargetDependencyCondition.when(platforms: [.linux, .macOS])

let package = Package(
    name: "Cassette",
    // The async URLSession API, task-locals and Swift concurrency the runtime is built on.
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15)],
    products: [
        // The runtime: links neither Swift Testing nor XCTest, so an app target may link it.
        .library(name: "Cassette", targets: ["Cassette"]),
        // The Swift Testing traits (`.cassette`, `.stubs`); re-exports Cassette.
        .library(name: "CassetteTesting", targets: ["CassetteTesting"]),
        // The XCTest integration (`XCTestCase.withCassette`); re-exports Cassette.
        .library(name: "CassetteXCTest", targets: ["CassetteXCTest"]),
        // The server for clients outside the process: `tape.serve()`, a folder server.
        .library(name: "CassetteServer", targets: ["CassetteServer"]),
        // The cassette as data and its codecs, for tools.
        .library(name: "CassetteFormats", targets: ["CassetteFormats"]),
        .executable(name: "cassette", targets: ["CassetteCLI"]),
        // The tool as SwiftPM commands, from any package that depends on this one, one per
        // permission: `swift package cassette lint Cassettes` (commands that read),
        // `swift package cassette-write fault …` (that write to the package) and
        // `swift package cassette-live record …` (that reach the network).
        .plugin(name: "CassetteCommand", targets: ["CassetteCommand"]),
        .plugin(name: "CassetteWriteCommand", targets: ["CassetteWriteCommand"]),
        .plugin(name: "CassetteLiveCommand", targets: ["CassetteLiveCommand"]),
    ],
    targets: [
        // The cassette as data: value types and codecs. Foundation only.
        .target(name: "CassetteFormats"),
        // The runtime: URLProtocol, routing, recording, playback. Re-exports CassetteFormats. Its
        // privacy manifest goes with it into an app that links it (Apple's required-reason APIs).
        .target(name: "Cassette", dependencies: ["CassetteFormats"], resources: [.copy("PrivacyInfo.xcprivacy")]),
        // The server: an HTTP/1.1 and WebSocket server answering from a tape for clients outside
        // the process (`tape.serve()`, `cassette serve`), with its sockets and wire protocols.
        .target(name: "CassetteServer", dependencies: ["Cassette"]),
        // What only the `cassette` tool (and the tests' support) calls: the diff, the drift check and
        // its update, the prune plan, and starting a child process.
        .target(name: "CassetteTools", dependencies: ["Cassette"]),
        // The test-framework integration: Swift Testing traits. Re-exports Cassette.
        .target(name: "CassetteTesting", dependencies: ["Cassette"]),
        // The XCTest integration: `XCTestCase.withCassette`, which knows the test's failures and
        // attaches the tape's evidence. Re-exports Cassette. Test targets only (it links XCTest).
        .target(name: "CassetteXCTest", dependencies: ["Cassette"]),
        // The `cassette` command-line tool.
        .executableTarget(name: "CassetteCLI", dependencies: ["Cassette", "CassetteServer", "CassetteTools"]),
        // The command plugins ask SwiftPM to build the `cassette` product, not for a tool: SwiftPM
        // builds a plugin's tool dependencies as a second copy of every module (Plugins/ToolRun.swift).
        // `swift package cassette …`: the tool for the commands that only read.
        .plugin(
            name: "CassetteCommand",
            capability: .command(
                intent: .custom(verb: "cassette", description: "Runs a cassette command that only reads (lint, show, …)"))),
        // `swift package cassette-write …`: the commands that write to the package and send nothing.
        .plugin(
            name: "CassetteWriteCommand",
            capability: .command(
                intent: .custom(verb: "cassette-write", description: "Runs a cassette command that writes (fault, lint --fix, redact, …)"),
                permissions: [
                    .writeToPackageDirectory(reason: "fault, lint --fix, redact, convert, prune --apply and view write cassettes and pages")
                ])),
        // `swift package cassette-live …`: the commands that reach the network, and write what they record.
        .plugin(
            name: "CassetteLiveCommand",
            capability: .command(
                intent: .custom(
                    verb: "cassette-live", description: "Runs a cassette command that reaches the network (record, serve, check --live)"),
                permissions: [
                    .writeToPackageDirectory(reason: "record, serve and check --live --update write what they record into cassettes"),
                    .allowNetworkConnections(scope: .all(), reason: "record, serve and check --live reach the servers the cassettes name"),
                ])),
        // The benchmarks: `swift run -c release CassetteBench` (ratios against the platform floor).
        .executableTarget(
            name: "CassetteBench", dependencies: ["Cassette", "CassetteServer", "CassetteTools", "CassetteTestSupport"], path: "Benchmarks",
            exclude: ["compare", "counts", "build-time", "baseline.json", "instructions.json"]),
        // Test-only support: an in-process loopback HTTP server, so tests record without network.
        .target(
            name: "CassetteTestSupport", dependencies: ["Cassette", "CassetteServer", "CassetteTools", "CHeapUsage"],
            path: "Tests/CassetteTestSupport"),
        // Test-only: the heap in use (mallinfo2, which the Glibc module does not export), for the memory tests.
        .target(name: "CHeapUsage", path: "Tests/CHeapUsage"),
        // A child process for the URLSession.shared tests, which each need a fresh process.
        .executableTarget(name: "SharedSessionCheck", dependencies: ["Cassette", "CassetteTestSupport"], path: "Tests/SharedSessionCheck"),
        // A child process for the data-safety tests: killed while saving, or run several at once.
        .executableTarget(name: "CassetteSaveCheck", dependencies: ["Cassette", "CassetteTestSupport"], path: "Tests/CassetteSaveCheck"),
        // A child process for the memory tests: replays or records many requests and prints the heap in use.
        .executableTarget(
            name: "CassetteMemoryCheck", dependencies: ["Cassette", "CassetteTestSupport"], path: "Tests/CassetteMemoryCheck"),
        // A test process for the ledger tests: opens tapes in parallel, then exits as a test process does.
        .executableTarget(
            name: "CassetteLedgerCheck", dependencies: ["Cassette"], path: "Tests/CassetteLedgerCheck"),
        .testTarget(name: "CassetteFormatsTests", dependencies: ["CassetteFormats", "CassetteTestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "CassetteTests",
            dependencies: [
                "Cassette", "CassetteServer", "CassetteTesting", "CassetteTestSupport", "CassetteTools", "CassetteXCTest",
                // The child processes, built only where a test can start one (not iOS, tvOS).
                .target(name: "SharedSessionCheck", condition: startsProcesses),
                .target(name: "CassetteSaveCheck", condition: startsProcesses),
                .target(name: "CassetteMemoryCheck", condition: startsProcesses),
                .target(name: "CassetteLedgerCheck", condition: startsProcesses),
            ], exclude: ["Fixtures"]),
        .testTarget(
            name: "CassetteCLITests", dependencies: ["CassetteCLI", "CassetteServer", "CassetteTestSupport"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
