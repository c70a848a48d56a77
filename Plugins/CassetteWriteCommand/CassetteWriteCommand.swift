import PackagePlugin

/// `swift package cassette-write COMMAND …`: the `cassette` tool with permission to write to the
/// package, for the commands that write cassettes or pages and send nothing (`fault`, `lint
/// --fix`, `redact`, `convert`, `prune --apply`, `view`), and every command that only reads.
@main
struct CassetteWriteCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try ToolRun.run(verb: "cassette-write", context: context, packageManager: packageManager, arguments: arguments)
    }
}
