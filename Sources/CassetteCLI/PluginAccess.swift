/// What a command needs of SwiftPM's plugin permissions, and which of the three command plugins
/// grants it: `swift package cassette` (reads), `swift package cassette-write` (writes to the
/// package), `swift package cassette-live` (writes and reaches the network). The one table: each
/// plugin runs the tool with `CASSETTE_PLUGIN` set to its verb, and the tool refuses a command
/// that needs more than that plugin was allowed, naming the plugin that runs it. The README's
/// command table is checked against it.
enum PluginAccess: Int, Comparable, CaseIterable {
    /// Reads cassettes and the ledger; writes nothing into the package, sends nothing.
    case read
    /// Writes into the package (cassettes, pages, copies); sends nothing.
    case write
    /// Reaches the network, and may write what it records.
    case network

    /// The environment variable a plugin sets to its verb.
    static let environmentVariable = "CASSETTE_PLUGIN"
    /// The plugin's process, which the tool ends with (``Termination/endWithParent(environment:interval:)``).
    static let parentVariable = "CASSETTE_PLUGIN_PID"

    /// The plugin's verb: `cassette`, `cassette-write`, `cassette-live`.
    var verb: String {
        switch self {
        case .read: return "cassette"
        case .write: return "cassette-write"
        case .network: return "cassette-live"
        }
    }

    /// What the permission lets a command do, as a refusal says it.
    var what: String {
        switch self {
        case .read: return "only reads"
        case .write: return "writes to the package"
        case .network: return "reaches the network"
        }
    }

    /// The plugin a verb names, or nil for a verb no plugin has.
    init?(verb: String) {
        guard let access = Self.allCases.first(where: { $0.verb == verb }) else { return nil }
        self = access
    }

    /// What `command` needs with these `options`: the commands that always write or send, and
    /// those that do only with one of their options.
    static func needed(by command: String, options: [String]) -> PluginAccess {
        let given = Set(options.map { String($0.split(separator: "=", maxSplits: 1).first ?? "") })
        // Help writes nothing and sends nothing, whichever plugin the command belongs to.
        if given.contains("--help") || given.contains("-h") { return .read }
        switch command {
        case "record", "serve": return .network
        case "check" where given.contains("--live") && !given.contains("--dry-run"): return .network
        case "fault" where given.contains("--dry-run"): return .read
        case "redact", "convert", "fault", "view": return .write
        case "lint" where given.contains("--fix"): return .write
        case "prune" where given.contains("--apply"): return .write
        default: return .read
        }
    }

    static func < (a: PluginAccess, b: PluginAccess) -> Bool { a.rawValue < b.rawValue }

    /// Why `arguments` cannot run under the plugin `environment` names, or nil when they can (or
    /// the tool was not started by a plugin).
    static func refusal(of arguments: [String], environment: [String: String]) -> String? {
        guard let verb = environment[environmentVariable], let granted = PluginAccess(verb: verb),
            let command = arguments.first
        else { return nil }
        let needed = needed(by: command, options: Array(arguments.dropFirst()))
        guard needed > granted else { return nil }
        return "error: 'cassette \(command)' \(needed.what): run it as 'swift package \(needed.verb) \(arguments.joined(separator: " "))', "
            + "for which SwiftPM asks that permission (or pass --allow-writing-to-package-directory"
            + (needed == .network ? " --allow-network-connections all" : "") + " before the verb)"
    }
}
