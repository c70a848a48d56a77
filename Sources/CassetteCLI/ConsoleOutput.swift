import Cassette
import Foundation

/// Where a command writes: standard output and standard error, or memory in tests.
struct ConsoleOutput {
    private let writeOut: (Data) -> Void
    private let writeError: (String) -> Void

    init(out: @escaping (Data) -> Void, error: @escaping (String) -> Void) {
        self.writeOut = out
        self.writeError = error
    }

    /// The process's standard output and standard error.
    static var standard: ConsoleOutput {
        ConsoleOutput(
            out: { FileHandle.standardOutput.write($0) },
            error: { FileHandle.standardError.write(Data($0.utf8)) })
    }

    /// Writes one line to standard output.
    func line(_ text: String) { writeOut(Data((text + "\n").utf8)) }

    /// Writes bytes to standard output as they are (a response body).
    func bytes(_ data: Data) { writeOut(data) }

    /// Writes one line to standard error.
    func errorLine(_ text: String) { writeError(text + "\n") }

    /// Writes why something failed to standard error: a malformed cassette's diagnostics as they
    /// are (`file:line:column: error: …`), anything else after `error: `.
    func report(_ error: any Error) {
        if let error = error as? CassetteFormatError {
            errorLine(error.description)
        } else {
            errorLine("error: \(error)")
        }
    }
}
