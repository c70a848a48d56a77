import Foundation

// The `cassette` command-line tool. Everything it does lives in `CassetteTool`, which tests drive.
let arguments = Array(CommandLine.arguments.dropFirst())
// Before any thread starts: a signal at any moment after this is the command's to take.
if Termination.handles(arguments.first) {
    Termination.hold()
    Termination.endWithParent(environment: ProcessInfo.processInfo.environment)
}
exit(CassetteTool.run(arguments, output: .standard))
