import Foundation

// Names an earlier release used, kept as forwarders for at least one minor release (CHANGELOG.md).

extension Tape {
    /// Opens the cassette `name` in `folder`, a URL.
    @available(*, deprecated, message: "use init(named:folder:) with the folder's path: Tape(named: name, folder: folder.path)")
    public convenience init(
        named name: String,
        in folder: URL,
        filePath: String = #filePath,
        mode: RecordMode = .once,
        matching: RequestMatching = .default,
        options: Options = Options(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        try self.init(
            named: name, folder: folder.path, filePath: filePath, mode: mode, matching: matching, options: options,
            environment: environment)
    }
}

/// Runs `body` with the cassette `name` in `folder`, a URL.
@available(*, deprecated, message: "use withCassette(_:folder:) with the folder's path: withCassette(name, folder: folder.path)")
public func withCassette<Result>(
    _ name: String,
    in folder: URL,
    filePath: String = #filePath,
    mode: RecordMode = .once,
    matching: RequestMatching = .default,
    options: Tape.Options = Tape.Options(),
    sharedSession: Bool = false,
    environment: [String: String] = ProcessInfo.processInfo.environment,
    _ body: (Tape) async throws -> Result
) async throws -> Result {
    try await withCassette(
        name, folder: folder.path, filePath: filePath, mode: mode, matching: matching, options: options,
        sharedSession: sharedSession, environment: environment, body)
}

/// The synchronous form of the deprecated `withCassette(_:in:)`.
@available(*, deprecated, message: "use withCassette(_:folder:) with the folder's path: withCassette(name, folder: folder.path)")
public func withCassette<Result>(
    _ name: String,
    in folder: URL,
    filePath: String = #filePath,
    mode: RecordMode = .once,
    matching: RequestMatching = .default,
    options: Tape.Options = Tape.Options(),
    environment: [String: String] = ProcessInfo.processInfo.environment,
    _ body: (Tape) throws -> Result
) throws -> Result {
    try withCassette(
        name, folder: folder.path, filePath: filePath, mode: mode, matching: matching, options: options,
        environment: environment, body)
}
