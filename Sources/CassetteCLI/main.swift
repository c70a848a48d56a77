import Foundation

// The `cassette` command-line tool. Everything it does lives in `CassetteTool`, which tests drive.
exit(CassetteTool.run(Array(CommandLine.arguments.dropFirst()), output: .standard))
