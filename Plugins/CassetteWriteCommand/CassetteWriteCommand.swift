import Foundation
import PackagePlugin

/// `swift package cassette-write COMMAND …`: the `cassette` tool, run in the package's folder,
/// for every command, those that write cassettes (`redact`, `convert`, `prune --apply`, `check
/// --live --update`, `record`, `view`) and reach the network (`check --live`, `record`, `serve`)
/// included. SwiftPM asks for those permissions first (or takes
/// `--allow-writing-to-package-directory --allow-network-connections all`).
@main
struct CassetteWriteCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        let process = Process()
        process.executableURL = try context.tool(named: "CassetteCLI").url
        process.arguments = arguments
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw ToolFailed(status: process.terminationStatus)
        }
    }
}

struct ToolFailed: Error, CustomStringConvertible {
    var status: Int32
    var description: String { "cassette exited with status \(status)" }
}
