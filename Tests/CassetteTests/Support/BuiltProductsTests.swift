import CassetteTestSupport
import Foundation
import Testing

/// The built products are found beside the test bundle as SwiftPM lays it out on each platform,
/// whatever program runs the tests.
@Suite struct BuiltProductsTests {
    @Test(arguments: [
        // Linux: the test bundle is the executable `swift test` runs.
        ("/p/.build/x86_64-unknown-linux-gnu/debug/CassettePackageTests.xctest", "/p/.build/x86_64-unknown-linux-gnu/debug"),
        // macOS: `xctest` or `swiftpm-testing-helper` loads the bundle's executable.
        (
            "/p/.build/arm64-apple-macosx/debug/CassettePackageTests.xctest/Contents/MacOS/CassettePackageTests",
            "/p/.build/arm64-apple-macosx/debug"
        ),
        // Xcode: the bundle among the scheme's products.
        (
            "/D/Build/Products/Debug/CassetteTests.xctest/Contents/MacOS/CassetteTests",
            "/D/Build/Products/Debug"
        ),
        // A helper executable is a product itself.
        ("/p/.build/debug/CassetteSaveCheck", "/p/.build/debug"),
    ])
    func theFolderIsTheOneHoldingTheTestBundle(executable: String, folder: String) {
        #expect(BuiltProducts.folder(holding: URL(fileURLWithPath: executable)).path == folder)
    }

    // The products are built for Linux and macOS only (an iOS test bundle has no helpers); Apple
    // (macOS): the same check, which is what a Mac contributor's first `swift test` needs.
    #if os(Linux) || os(macOS)
    /// This run's folder holds what the suite runs and reads: the helpers, `Modules` and the
    /// runtime's resource bundle.
    @Test func thisRunsFolderHoldsTheHelpersAndTheModules() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: BuiltProducts.folder.path)
        for helper in ["CassetteSaveCheck", "SharedSessionCheck", "CassetteMemoryCheck", "Modules"] {
            #expect(names.contains(helper), "\(helper) in \(BuiltProducts.folder.path)")
        }
        #expect(names.contains { $0.hasPrefix("Cassette_Cassette.") }, "the runtime's resource bundle in \(BuiltProducts.folder.path)")
        #expect(ChildProcess.url(of: "CassetteSaveCheck") == BuiltProducts.folder.appendingPathComponent("CassetteSaveCheck"))
    }
    #endif
}
