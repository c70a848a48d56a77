import Foundation

/// The folder SwiftPM builds this package's products into (`.build/debug` and its like): the
/// helper executables, the tool, the resource bundles and `Modules`, for tests that run or read
/// them.
///
/// It is the folder holding the running test bundle, found from the bundle this code was loaded
/// from rather than from `CommandLine.arguments[0]`: on Linux the test process is the bundle
/// (`.build/debug/CassettePackageTests.xctest`, an executable), but on macOS it is Xcode's
/// `xctest` or SwiftPM's `swiftpm-testing-helper`, which load
/// `.build/debug/CassettePackageTests.xctest/Contents/MacOS/CassettePackageTests`. Either way the
/// products sit beside the `.xctest`. `CASSETTE_BUILT_PRODUCTS` overrides it (a runner that
/// builds elsewhere hands over `swift build --show-bin-path`).
public enum BuiltProducts {
    /// The folder, as this process finds it.
    public static let folder: URL = {
        if let handed = ProcessInfo.processInfo.environment["CASSETTE_BUILT_PRODUCTS"], !handed.isEmpty {
            return URL(fileURLWithPath: handed, isDirectory: true)
        }
        let bundle = Bundle(for: Marker.self)
        return folder(holding: bundle.executableURL ?? bundle.bundleURL)
    }()

    /// The product `name` (an executable, a resource bundle, `Modules`) in ``folder``.
    public static func url(of name: String) -> URL {
        folder.appendingPathComponent(name)
    }

    /// The folder of products that holds `executable`: the parent of the innermost `.xctest`
    /// on its path (the bundle on macOS, the executable itself on Linux), else the executable's
    /// own folder (a helper executable is a product itself).
    public static func folder(holding executable: URL) -> URL {
        var candidate = executable.standardizedFileURL
        while candidate.pathComponents.count > 1 {
            if candidate.pathExtension == "xctest" { return candidate.deletingLastPathComponent() }
            candidate.deleteLastPathComponent()
        }
        return executable.deletingLastPathComponent()
    }

    /// A class of this module, for the bundle it was loaded from.
    private final class Marker {}
}
