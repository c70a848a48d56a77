import Testing

@testable import CassetteCLI

/// `cassette --help` lists every command with a one-line summary and points to each command's
/// own help, which every command has.
@Suite struct CassetteToolTests {
    static let commands = [
        "lint", "show", "view", "convert", "fault", "check", "diff", "report", "prune", "redact", "check-secrets", "record", "play",
        "serve",
    ]

    @Test func theHelpListsEveryCommandAndPointsToItsOwnHelp() {
        let help = Captured.run(["--help"])
        #expect(help.status == 0)
        let listed = help.out.components(separatedBy: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first else { return nil }
            return String(word)
        }
        #expect(listed == Self.commands + ["help", "-h,", "--version"])
        #expect(help.out.contains("Run 'cassette COMMAND --help' (or 'cassette help COMMAND') for a command's arguments and options."))
    }

    @Test(arguments: commands)
    func everyCommandHasItsOwnHelp(command: String) {
        let asked = Captured.run([command, "--help"])
        #expect(asked.status == 0)
        #expect(asked.out.hasPrefix("USAGE: cassette \(command) "), "\(asked.out)")
        #expect(Captured.run(["help", command]).out == asked.out)
    }

    /// One table of exit statuses: `cassette --help` prints it, every command's help says "2 the
    /// command line was wrong", and only the commands the table names for 3 use 3.
    @Test(arguments: commands)
    func everyCommandsExitStatusesAreTheTables(command: String) throws {
        #expect(Captured.run(["--help"]).out.contains(ExitCode.table))
        #expect(CassetteTool.commands.sorted() == Self.commands.sorted())
        let help = Captured.run([command, "--help"]).out
        let statuses = try #require(help.range(of: "EXIT STATUS:")).upperBound
        let section = " " + help[statuses...].split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ") + " "
        #expect(section.contains("2 the command line was wrong"), "\(section)")
        let usesThree = section.contains(" 3 ")
        #expect(usesThree == ["diff", "check", "record", "play"].contains(command), "\(command): \(section)")
        if usesThree { #expect(ExitCode.table.contains("(\(command == "diff" || command == "check" ? "diff," : "record,")"), "\(section)") }
    }
}
