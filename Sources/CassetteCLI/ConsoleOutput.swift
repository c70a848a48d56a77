import Foundation

/// Where a command writes: standard output and standard error, or memory in tests.
struct ConsoleOutput {
    private let writeOut: (String) -> Void
    private let writeError: (String) -> Void

    init(out: @escaping (String) -> Void, error: @escaping (String) -> Void) {
        self.writeOut = out
        self.writeError = error
    }

    /// The process's standard output and standard error.
    static var standard: ConsoleOutput {
        ConsoleOutput(
            out: { FileHandle.standardOutput.write(Data($0.utf8)) },
            error: { FileHandle.standardError.write(Data($0.utf8)) })
    }

    /// Writes one line to standard output.
    func line(_ text: String) { writeOut(text + "\n") }

    /// Writes one line to standard error.
    func errorLine(_ text: String) { writeError(text + "\n") }
}
