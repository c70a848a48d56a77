// swift-tools-version: 6.0
// Code a team wrote against Cassette 1.0, the way the documentation writes it: every public
// declaration of the release used at least once. CI builds it against the tree (`.ci/steps/api`):
// a deprecation warning is allowed, an error is a broken promise. Nothing here runs.
import PackageDescription

let package = Package(
    name: "CassetteCompatibility",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15)],
    dependencies: [.package(name: "Cassette", path: "../..")],
    targets: [
        .target(
            name: "Compatibility",
            dependencies: [
                .product(name: "Cassette", package: "Cassette"),
                .product(name: "CassetteFormats", package: "Cassette"),
                .product(name: "CassetteServer", package: "Cassette"),
                .product(name: "CassetteTesting", package: "Cassette"),
                .product(name: "CassetteXCTest", package: "Cassette"),
            ])
    ]
)
