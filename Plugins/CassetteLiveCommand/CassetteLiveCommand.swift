import PackagePlugin

/// `swift package cassette-live COMMAND …`: the `cassette` tool with permission to reach the
/// network and to write what it records, for `record`, `serve` and `check --live` (`--update`
/// too), and every other command.
@main
struct CassetteLiveCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try ToolRun.run(verb: "cassette-live", context: context, packageManager: packageManager, arguments: arguments)
    }
}
