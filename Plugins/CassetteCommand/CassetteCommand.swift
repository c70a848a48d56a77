import Foundation
import PackagePlugin

/// `swift package cassette COMMAND …`: the `cassette` tool, run in the package's folder, for the
/// commands that only read (`lint`, `show`, `check-secrets`, `diff`, `report`, `play`, `help`).
/// One that writes or reaches the network is refused with the command that runs it with
/// SwiftPM's permission: `swift package cassette-write COMMAND …`.
@main
struct CassetteCommand: CommandPlugin {
    /// Commands that write to the package, or send requests, whatever their options; and
    /// those that do only with one of the options listed.
    static let writing: Set<String> = ["redact", "convert", "fault", "record", "serve", "view"]
    static let writingWith: [String: Set<String>] = ["prune": ["--apply"], "check": ["--live", "--update"], "lint": ["--fix"]]

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        if let command = arguments.first, Self.writes(command, arguments.dropFirst()) {
            Diagnostics.error(
                "'cassette \(command)' writes to the package or reaches the network: run it as "
                    + "'swift package cassette-write \(arguments.joined(separator: " "))', which asks for that permission "
                    + "(or pass --allow-writing-to-package-directory --allow-network-connections all before the verb)")
            throw NotRun()
        }
        try run(context.tool(named: "CassetteCLI").url, arguments, in: context.package.directoryURL)
    }

    static func writes(_ command: String, _ options: ArraySlice<String>) -> Bool {
        writing.contains(command) || !(writingWith[command] ?? []).isDisjoint(with: options.map { String($0.split(separator: "=")[0]) })
    }
}

/// Runs the tool with `arguments` in `folder`, its output passed through; a failure when it does not exit 0.
func run(_ tool: URL, _ arguments: [String], in folder: URL) throws {
    let process = Process()
    process.executableURL = tool
    process.arguments = arguments
    process.currentDirectoryURL = folder
    try process.run()
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
        throw CassetteToolFailed(status: process.terminationStatus)
    }
}

/// A command refused before it ran (the reason was said as a diagnostic).
struct NotRun: Error, CustomStringConvertible {
    var description: String { "nothing was run" }
}

struct CassetteToolFailed: Error, CustomStringConvertible {
    var status: Int32
    var description: String { "cassette exited with status \(status)" }
}
