import Cassette
import CassetteTools
import Foundation

// Processes cannot be started on iOS, tvOS or watchOS (CassetteTools' SpawnedProcess is Linux and macOS only).
#if os(Linux) || os(macOS)

/// The test suites' helper executables (`SharedSessionCheck`, `CassetteSaveCheck`,
/// `CassetteMemoryCheck`), built next to the test bundle, run to the end.
public enum ChildProcess {
    /// The executable `name` among the built products (``BuiltProducts``), next to the test bundle.
    public static func url(of name: String) -> URL {
        BuiltProducts.url(of: name)
    }

    /// This process's environment with `extra` on top, for a child the tests start: it writes no
    /// suite ledger and announces no cassette it saves, unless `extra` asks. A helper's tapes are not the suite's: written into
    /// the ledger `swift test` was given (a CI shard's), they would be a run of their own, the
    /// ledger's last, which `cassette report` would then judge instead of the suite's.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var inherited = ProcessInfo.processInfo.environment
        inherited["CASSETTE_LEDGER"] = "off"
        inherited["CASSETTE_SHARD"] = nil
        inherited["CASSETTE_RUN_ID"] = nil
        inherited["CASSETTE_SUMMARY"] = "0"
        return inherited.merging(extra) { $1 }
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
    ///
    /// The child's environment is ``environment(_:)``'s.
    public static func run(
        executable: URL, _ arguments: [String], environment: [String: String] = [:], in folder: URL? = nil
    ) throws -> (status: Int32, output: String) {
        // Started with posix_spawn (SpawnedProcess), not Foundation.Process: the toolchain's
        // Process.run() over-reads memory, which AddressSanitizer reports.
        let result = try SpawnedProcess.run(
            executable: executable.path, arguments, environment: Self.environment(environment),
            directory: folder?.path, mergingErrors: true)
        return (result.status, String(decoding: result.output, as: UTF8.self))
    }
}
#endif
