import PackagePlugin

/// `swift package cassette COMMAND …`: the `cassette` tool for the commands that only read
/// (`lint`, `show`, `check-secrets`, `diff`, `report`, `play`, `check --live --dry-run`, `help`).
/// One that writes or reaches the network is refused by the tool, which names the plugin that
/// runs it (`cassette-write`, `cassette-live`).
@main
struct CassetteCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try ToolRun.run(verb: "cassette", context: context, packageManager: packageManager, arguments: arguments)
    }
}
