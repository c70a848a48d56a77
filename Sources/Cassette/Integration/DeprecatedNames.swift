import Foundation

// Names an earlier release used, kept as deprecated forwarders until the next major version, 2.0
// (CONTRIBUTING, "The promise"; CHANGELOG.md lists each).

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

/// The earlier name of ``IgnoredChanges``.
@available(*, deprecated, renamed: "IgnoredChanges")
public typealias VolatileParts = IgnoredChanges

/// The earlier name of ``VerificationFinding``.
@available(*, deprecated, renamed: "VerificationFinding")
public typealias EjectFinding = VerificationFinding

extension Tape.Options {
    /// The earlier name of ``allowsRepeatedReplays``.
    @available(*, deprecated, renamed: "allowsRepeatedReplays")
    public var allowsPlaybackRepeats: Bool {
        get { allowsRepeatedReplays }
        set { allowsRepeatedReplays = newValue }
    }

    /// The earlier name of ``beforeReplay``, from before it could decline a recording (read
    /// back, a declined recording replays as it is).
    @available(*, deprecated, renamed: "beforeReplay")
    public var beforePlayback: (@Sendable (Interaction) -> Interaction)? {
        get {
            guard let hook = beforeReplay else { return nil }
            return { @Sendable interaction in hook(interaction) ?? interaction }
        }
        set { beforeReplay = Self.declining(newValue) }
    }

    /// The earlier name of ``ignoredChanges``.
    @available(*, deprecated, renamed: "ignoredChanges")
    public var volatileParts: IgnoredChanges {
        get { ignoredChanges }
        set { ignoredChanges = newValue }
    }

    /// Options with the earlier names of ``allowsRepeatedReplays``, ``beforeReplay`` and
    /// ``ignoredChanges``. Disfavoured, so that a call with none of the earlier names, such as
    /// `Options()`, is the current initializer's.
    @available(
        *, deprecated,
        message:
            "use init(allowsRepeatedReplays:latency:redaction:beforeRecord:beforeReplay:unusedInteractions:staleness:savesConnectionFailures:secretCheck:ignoredChanges:)"
    )
    @_disfavoredOverload
    public init(
        allowsPlaybackRepeats: Bool = false,
        latency: Latency? = nil,
        redaction: Redaction = .default,
        beforeRecord: (@Sendable (Interaction) -> Interaction?)? = nil,
        beforePlayback: (@Sendable (Interaction) -> Interaction)? = nil,
        unusedInteractions: UnusedInteractions = .ignore,
        staleness: Staleness? = nil,
        savesConnectionFailures: Bool = false,
        secretCheck: SecretCheck = .warn,
        volatileParts: IgnoredChanges = .default
    ) {
        self.init(
            allowsRepeatedReplays: allowsPlaybackRepeats, latency: latency, redaction: redaction, beforeRecord: beforeRecord,
            beforeReplay: Self.declining(beforePlayback), unusedInteractions: unusedInteractions, staleness: staleness,
            savesConnectionFailures: savesConnectionFailures, secretCheck: secretCheck, ignoredChanges: volatileParts)
    }
}

extension Tape.Options {
    /// A `beforeReplay` hook of the earlier shape, which never declines.
    fileprivate static func declining(
        _ hook: (@Sendable (Interaction) -> Interaction)?
    ) -> (@Sendable (Interaction) -> Interaction?)? {
        guard let hook else { return nil }
        return { @Sendable interaction in hook(interaction) }
    }
}

extension Tape.Report {
    /// How many of the cassette's interactions answered no request: the count of
    /// ``unusedInteractions``, which names them.
    @available(*, deprecated, message: "use unusedInteractions.count; unusedInteractions names each unused interaction")
    public var unused: Int { unusedInteractions.count }
}

/// The earlier name of ``ConfigurationInterception``.
@available(*, deprecated, renamed: "ConfigurationInterception")
public typealias EverySessionInterception = ConfigurationInterception

extension Tape.Options {
    /// The earlier name of ``writesMisses``, when the misses were written as a page: they are now
    /// written as a cassette (`feed.misses.json`), which `cassette view` shows as that page.
    @available(*, deprecated, renamed: "writesMisses")
    public var writesMissReportPage: Bool {
        get { writesMisses }
        set { writesMisses = newValue }
    }
}

extension Tape.Report {
    /// The earlier name of ``missesFile``: the file is now `feed.misses.json`, not a page.
    @available(*, deprecated, renamed: "missesFile")
    public var missReportPage: URL? { missesFile }
}
