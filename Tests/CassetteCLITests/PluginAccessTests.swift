import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteCLI

/// A command plugin per permission: the tool refuses what the plugin that started it may not do,
/// naming the plugin that runs it, and the README's table names the plugin of every command as
/// the tool decides it.
@Suite struct PluginAccessTests {
    @Test func aCommandBeyondItsPluginsPermissionIsRefusedNamingThePluginThatRunsIt() {
        let fault = Captured.run(["fault", "feed.json", "--status", "503"], environment: ["CASSETTE_PLUGIN": "cassette"])
        #expect(fault.status == 2)
        #expect(
            fault.error
                == "error: 'cassette fault' writes to the package: run it as 'swift package cassette-write fault feed.json --status 503', "
                + "for which SwiftPM asks that permission (or pass --allow-writing-to-package-directory before the verb)\n")
        let record = Captured.run(
            ["record", "--cassette", "a.json", "http://127.0.0.1:9/"], environment: ["CASSETTE_PLUGIN": "cassette-write"])
        #expect(record.status == 2)
        #expect(
            record.error
                == "error: 'cassette record' reaches the network: run it as 'swift package cassette-live record --cassette a.json "
                + "http://127.0.0.1:9/', for which SwiftPM asks that permission (or pass --allow-writing-to-package-directory "
                + "--allow-network-connections all before the verb)\n")
        #expect(Captured.run(["check", "--live", "--update", "a.json"], environment: ["CASSETTE_PLUGIN": "cassette-write"]).status == 2)
        #expect(Captured.run(["lint", "--fix", "a.json"], environment: ["CASSETTE_PLUGIN": "cassette"]).status == 2)
    }

    @Test func aCommandWithinItsPluginsPermissionRuns() throws {
        let folder = try Locations.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("feed.json").path
        try Data(
            #"{ "version": 1, "interactions": [ { "request": { "method": "GET", "url": "https://a.example/" }, "response": { "status": 200 } } ] }"#
                .utf8
        ).write(to: URL(fileURLWithPath: file))
        // What only reads runs under each plugin; the tool run by hand (no plugin) runs everything.
        for plugin in ["cassette", "cassette-write", "cassette-live"] {
            let lint = Captured.run(["lint", file], environment: ["CASSETTE_PLUGIN": plugin])
            #expect(lint.status == 0, "\(plugin): \(lint.error)")
            #expect(lint.out == "1 cassette, 1 interaction, 0 errors\n")
        }
        let converted = folder.appendingPathComponent("feed.har").path
        #expect(Captured.run(["convert", file, converted], environment: ["CASSETTE_PLUGIN": "cassette-write"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: converted))
        // A dry run writes nothing, so the plugin that only reads runs it.
        let dryRun = Captured.run(
            ["fault", file, "--interaction", "1", "--status", "503", "--dry-run"], environment: ["CASSETTE_PLUGIN": "cassette"])
        #expect(dryRun.status == 0, "\(dryRun.error)")
        #expect(
            dryRun.out.hasPrefix("\(file): interaction #1 (GET https://a.example/) would become: status 503 (dry run: nothing written)\n"))
    }

    /// `swift package cassette <verb> --help` prints that verb's help whatever plugin the verb
    /// belongs to: help writes nothing and sends nothing.
    @Test func everyCommandsHelpRunsUnderEveryPlugin() {
        for command in CassetteToolTests.commands {
            let byHand = Captured.run([command, "--help"])
            #expect(byHand.status == 0 && byHand.out.hasPrefix("USAGE: cassette \(command) "), "\(command): \(byHand.out.prefix(80))")
            for plugin in ["cassette", "cassette-write", "cassette-live"] {
                for flag in ["--help", "-h"] {
                    let helped = Captured.run([command, flag], environment: ["CASSETTE_PLUGIN": plugin])
                    #expect(
                        helped.status == 0 && helped.out == byHand.out && helped.error.isEmpty,
                        "\(plugin) \(command) \(flag): \(helped.error)")
                }
            }
        }
    }

    /// Every `swift package cassette-write|cassette-live COMMAND` the docs print runs as written in
    /// a script, where SwiftPM cannot ask: the permissions are in the line, before the verb.
    @Test func everyPluginLineTheDocsPrintHasItsPermissions() throws {
        var files = ["README.md", "docs/Guide.md", "CONTRIBUTING.md"]
        let docc = PackagePaths.root.appendingPathComponent("Sources/Cassette/Cassette.docc")
        files += try FileManager.default.contentsOfDirectory(atPath: docc.path).filter { $0.hasSuffix(".md") }.map {
            "Sources/Cassette/Cassette.docc/" + $0
        }
        var lines = 0
        for file in files {
            let text = try String(contentsOf: PackagePaths.root.appendingPathComponent(file), encoding: .utf8)
            // One line of words: a command may be wrapped across lines of prose.
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "`" }).map(String.init)
            for (index, word) in words.enumerated() where word == "package" && index > 0 && words[index - 1] == "swift" {
                var flags: [String] = []
                var next = index + 1
                while next < words.count, words[next].hasPrefix("--") {
                    flags.append(words[next])
                    next += 1
                    // `--allow-network-connections all`: the scope is the flag's value.
                    if flags.last == "--allow-network-connections", next < words.count, !words[next].hasPrefix("--") { next += 1 }
                }
                guard next + 1 < words.count, ["cassette-write", "cassette-live"].contains(words[next]),
                    CassetteToolTests.commands.contains(words[next + 1])
                else { continue }
                lines += 1
                let command = words[index - 1...min(next + 2, words.count - 1)].joined(separator: " ")
                #expect(flags.contains("--allow-writing-to-package-directory"), "\(file): \(command)")
                if words[next] == "cassette-live" {
                    #expect(
                        flags.contains("--allow-network-connections") || flags.contains("--allow-network-connections=all"),
                        "\(file): \(command)")
                }
            }
        }
        #expect(lines >= 5, "found \(lines) plugin command lines in the docs")
    }

    /// The README's command table: the last column names the plugin each command needs, and any
    /// command or option in it that needs another (`` `--fix`: `cassette-write` ``).
    @Test func theREADMEsTableNamesThePluginTheToolAsksFor() throws {
        let readme = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "| command | what it does | plugin |"))
        let rows = readme[start.upperBound...].components(separatedBy: "\n").dropFirst(2).prefix { $0.hasPrefix("| ") }
        var covered: Set<String> = []
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            try #require(cells.count == 3, "\(row)")
            let named = Self.quoted(cells[0]).map { $0.split(separator: " ").map(String.init) }
            let plugin = cells[2]
            for words in named {
                let (command, options) = (words[0], words.dropFirst().filter { $0.hasPrefix("--") })
                covered.insert(command)
                let needed = PluginAccess.needed(by: command, options: options).verb
                let exception = Self.quoted(plugin).firstIndex(of: command).map { Self.quoted(plugin)[$0 + 1] }
                #expect(
                    (exception ?? Self.quoted(plugin)[0]) == needed, "\(command): the README says \(plugin), the tool asks for \(needed)")
            }
            // Each option the cell names: the plugin it needs.
            let quoted = Self.quoted(plugin)
            for (index, word) in quoted.enumerated() where word.hasPrefix("--") && index + 1 < quoted.count {
                let verbs = named.map {
                    PluginAccess.needed(by: $0[0], options: $0.dropFirst().filter { $0.hasPrefix("--") } + [word]).verb
                }
                #expect(verbs.contains(quoted[index + 1]), "\(row): with \(word), the tool asks for \(verbs)")
            }
        }
        #expect(covered == Set(CassetteTool.commands))
    }

    /// The texts between backquotes, in order.
    static func quoted(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }
}
