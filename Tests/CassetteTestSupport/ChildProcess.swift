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
        try run(executable: url(of: name), arguments, environment: environment)
    }

    /// Runs the program at `executable` (a test tool such as `/usr/bin/env swiftc …`) in
    /// `folder` (this process's current one when nil), as ``run(_:_:environment:)`` runs a helper.
    public static func run(
        executable: URL, _ arguments: [String], environment: [String: String] = [:], in folder: URL? = nil
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
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
