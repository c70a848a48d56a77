import Foundation

/// What opening a tape means, worked out before it opens: the record mode in force, whether it is
/// a pass-through, what it replays (its own interactions, then those of the cassettes beneath),
/// whether it records, and how staleness is judged — from the settings, the environment and what
/// is on disk. A value: ``Tape`` opens from one, and `TapePlanTests` checks every row of the
/// README's record-mode table and the `CI`, `CASSETTE_RECORD_MODE`, `CASSETTE_LIVE` and staleness
/// cases against a disk in memory.
struct TapePlan {
    /// What the plan reads of the disk: whether a file exists, a cassette, and the scenarios of a
    /// cassette that re-records (``read`` filtered, when not given).
    struct Disk: Sendable {
        var exists: @Sendable (URL) -> Bool
        var read: @Sendable (URL) throws -> CassetteDocument
        var scenarios: (@Sendable (URL) throws -> [Interaction])? = nil

        /// The file system.
        static let files = Disk(
            exists: { FileManager.default.fileExists(atPath: $0.path) }, read: { try CassetteFile.read($0) },
            scenarios: { try CassetteFile.scenarios(in: $0) })

        /// The interactions of `file` marked as scenarios.
        func scenarios(in file: URL) throws -> [Interaction] {
            try scenarios?(file) ?? read(file).interactions.filter { $0.scenario != nil }
        }
    }

    /// The mode in force: the requested one, or the environment's, or `all` for a stale cassette
    /// that re-records.
    var mode: RecordMode
    /// A pass-through (`CASSETTE_LIVE`): nothing recorded or written, and only the interactions
    /// marked as scenarios (``Interaction/scenario``) replayed: the live service cannot be made to fail.
    var live: Bool
    /// Whether the cassette's file existed when the tape opened.
    var fileExisted: Bool
    /// The cassette as read, when it was read (not in mode `all`).
    var stored: CassetteDocument?
    /// What replays, in order: the cassette's own interactions, then each underlying cassette's.
    var replayed: [Interaction]
    /// Where each cassette's interactions end in ``replayed`` when there are underlying ones (else empty).
    var layerEnds: [Int]
    /// How many of ``replayed`` are the cassette's own.
    var ownCount: Int
    /// The interactions marked as scenarios (``Interaction/scenario``) that a re-recording (mode
    /// `all`, from the test, the environment or staleness) keeps: they replay, and the saved file
    /// holds them as they were. To record a scenario again, delete its `scenario` member.
    var keptScenarios: [Interaction] = []
    /// Whether the replayed interactions are judged for staleness when the tape is ejected: whether
    /// a stale one fails, and what to add to the message.
    var staleJudgment: (fails: Bool, note: String)?

    /// Whether requests no recording answers are recorded.
    var recordsNewRequests: Bool {
        !live && (mode == .newEpisodes || mode == .all || (mode == .once && !fileExisted))
    }

    /// Whether recordings answer requests: live, or re-recording, only when scenarios do.
    var replays: Bool { live || mode == .all ? !replayed.isEmpty : true }

    /// The plan for the cassette at `file`.
    ///
    /// - Parameters:
    ///   - requested: The mode the test asked for (the environment's `CASSETTE_RECORD_MODE` and `CI` win).
    ///   - inBundle: Whether `file` is a test bundle's resource, which can only replay.
    ///   - now: The tape's clock, for staleness.
    /// - Throws: ``CassetteError`` for a wrong mode or switch in the environment, a missing cassette in mode
    ///   `none`, a bundle's cassette in a mode that records; what reading a cassette throws.
    init(
        file: URL, requested: RecordMode, options: Tape.Options, environment: [String: String], inBundle: Bool = false,
        now: Date, disk: Disk = .files
    ) throws {
        try EnvironmentSwitch.check(environment)
        var mode = try RecordMode.resolve(requested: requested, environment: environment)
        let live = LiveSwitch.isOn(environment: environment)
        if inBundle, !live, mode == .all || mode == .newEpisodes { throw CassetteError.readOnlyCassette(file: file.path, mode: mode) }
        // Mode all replaces the file, which is therefore not read (nor judged): its metadata is kept when saving.
        // Live, the file is read for its scenarios, which replay; the rest goes to the service.
        // A file to read is read at once: whether it is there is asked only when reading failed
        // (a `stat` fewer for every tape that opens a cassette).
        let exists: Bool
        let stored: CassetteDocument?
        if mode != .all || live {
            do {
                stored = try disk.read(file)
                exists = true
            } catch  where !disk.exists(file) {
                (stored, exists) = (nil, false)
            }
        } else {
            (stored, exists) = (nil, disk.exists(file))
        }
        if !exists, mode == .none, !live { throw CassetteError.cassetteNotFound(file: file.path, mode: mode) }
        var replayed = (stored?.interactions ?? []).filter { !live || $0.scenario != nil }
        // Re-recording is decided now, before any request; a warning or a failure when the tape is
        // ejected, by the interactions replayed.
        var staleJudgment: (fails: Bool, note: String)?
        if let staleness = options.staleness, !live {
            switch staleness.action {
            case .warn, .fail:
                staleJudgment = (staleness.action == .fail, "")
            case .reRecord where mode == .none || RecordMode.isCI(environment):
                staleJudgment = (staleness.onCI == .fail, " (On CI — record mode none, or CI set — a stale cassette is never re-recorded.)")
            case .reRecord:
                if staleness.isStale(replayed, at: now) {
                    mode = .all
                    replayed = replayed.filter { $0.scenario != nil }
                }
            }
        }
        if mode == .all, !live {
            // Re-recording never re-records a scenario: read for them alone (the rest is replaced).
            if stored == nil, exists { replayed = (try? disk.scenarios(in: file)) ?? [] }
            keptScenarios = replayed
        }
        ownCount = replayed.count
        var layerEnds: [Int] = []
        if mode != .all || live, !options.underlyingCassettes.isEmpty {
            layerEnds.append(ownCount)
            for underlying in options.underlyingCassettes {
                replayed += try disk.read(underlying).interactions.filter { !live || $0.scenario != nil }
                layerEnds.append(replayed.count)
            }
        }
        self.mode = mode
        self.live = live
        self.fileExisted = exists
        self.stored = stored
        self.replayed = replayed
        self.layerEnds = layerEnds
        self.staleJudgment = staleJudgment
    }
}
