import Foundation
import PackagePlugin

// The one way the three command plugins run the tool (a plugin cannot link a library, so each
// plugin's folder holds a link to this file): in the package's folder, with `CASSETTE_PLUGIN`
// naming the plugin, so the tool refuses what its permissions do not cover and names the plugin
// that runs it (`PluginAccess` in the tool). The tool's exit status is the plugin's; SwiftPM
// prints it ("Plugin ended with exit code 3") and itself exits 1 for any failure
// (swiftlang/swift-package-manager#7380).
//
// The tool is the `cassette` product as `swift build` builds it, asked of SwiftPM here, not a
// plugin dependency: SwiftPM builds a plugin's dependencies in a configuration of their own, a
// second copy of every module (33 s on two cores after `swift build --build-tests`, against 10 s
// this way, which reuses the modules the tests built), and `swift run cassette` then runs the
// same executable without building it again.
enum ToolRun {
    static func run(verb: String, context: PluginContext, packageManager: PackageManager, arguments: [String]) throws -> Never {
        let build = try packageManager.build(.product("cassette"), parameters: .init(configuration: .debug, logging: .concise))
        guard build.succeeded else {
            FileHandle.standardError.write(Data("error: building the cassette tool failed:\n\(build.logText)\n".utf8))
            exit(1)
        }
        guard let tool = build.builtArtifacts.first(where: { $0.kind == .executable }) else {
            let message = "error: SwiftPM built the cassette product but named no executable; run swift run cassette instead\n"
            FileHandle.standardError.write(Data(message.utf8))
            exit(1)
        }
        let process = Process()
        process.executableURL = tool.url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        process.environment = ProcessInfo.processInfo.environment.merging(["CASSETTE_PLUGIN": verb]) { $1 }
        try process.run()
        process.waitUntilExit()
        exit(process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus)
    }
}
