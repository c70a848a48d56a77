import Foundation

/// The test suites' helper executables (`SharedSessionCheck`, `CassetteSaveCheck`,
/// `CassetteMemoryCheck`), built next to the test bundle, run to the end.
public enum ChildProcess {
    /// The executable `name` next to the running test bundle.
    public static func url(of name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Runs `name` with `arguments` until it exits; its standard output and error together.
    /// Blocks the calling thread: call from a `.timingIsolated` suite.
    ///
    /// - Parameter environment: variables set for the child on top of this process's.
    public static func run(
        _ name: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = url(of: name)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
