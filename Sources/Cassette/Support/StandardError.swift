import Foundation

/// Lines for a person reading the test log, where no test framework can take them: the one place
/// the library writes to standard error.
package enum StandardError {
    /// Where `write` keeps its lines instead while `capturing(_:)` runs; nil, and so standard
    /// error, everywhere else.
    @TaskLocal private static var captured: Locked<[String]>?

    package static func write(_ line: String) {
        if let captured {
            captured.withLock { $0.append(line) }
            return
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// `Cassette warning: text`.
    package static func warn(_ text: String) {
        write("Cassette warning: " + text)
    }

    /// Runs `body`, keeping the lines written in its task (and the child tasks it starts) instead
    /// of sending them to standard error, and returns them: how a test reads what the library says
    /// there without reading the process's standard error, which tests running beside it share.
    package static func capturing(_ body: () async throws -> Void) async rethrows -> [String] {
        let lines = Locked<[String]>([])
        try await $captured.withValue(lines) { try await body() }
        return lines.current
    }
}
