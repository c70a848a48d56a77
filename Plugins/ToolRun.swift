import Foundation
import PackagePlugin

// The one way the three command plugins run the tool (a plugin cannot link a library, so each
// plugin's folder holds a link to this file): in the package's folder, with `CASSETTE_PLUGIN`
// naming the plugin, so the tool refuses what its permissions do not cover and names the plugin
// that runs it (`PluginAccess` in the tool). The tool's exit status is the plugin's; SwiftPM
// prints it ("Plugin ended with exit code 3") and itself exits 1 for any failure
// (swiftlang/swift-package-manager#7380).
enum ToolRun {
    static func run(verb: String, context: PluginContext, arguments: [String]) throws -> Never {
        let process = Process()
        process.executableURL = try context.tool(named: "CassetteCLI").url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        process.environment = ProcessInfo.processInfo.environment.merging(["CASSETTE_PLUGIN": verb]) { $1 }
        try process.run()
        process.waitUntilExit()
        exit(process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus)
    }
}
