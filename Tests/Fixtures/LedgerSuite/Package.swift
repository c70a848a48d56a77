// swift-tools-version:6.0
// A small app package whose suite runs in several test processes (XCTest and Swift Testing,
// `swift test --parallel`): .ci/steps/ledger-suite copies it, points CASSETTE_PATH at the checkout, and
// shows the suite ledger, `cassette report` and `cassette prune` on it.
import Foundation
import PackageDescription

let cassette = ProcessInfo.processInfo.environment["CASSETTE_PATH"] ?? "../../.."

let package = Package(
    name: "LedgerSuite",
    dependencies: [.package(name: "Cassette", path: cassette)],
    targets: [
        .target(name: "FeedClient"),
        .testTarget(
            name: "LedgerSuiteTests",
            dependencies: ["FeedClient", .product(name: "CassetteTesting", package: "Cassette")]),
    ],
    swiftLanguageModes: [.v6]
)
