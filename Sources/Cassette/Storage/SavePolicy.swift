import Foundation

/// Whether an ejected tape writes its cassette, and how: decided from the mode, whether the file
/// existed, how many interactions were recorded and how many requests could not connect. Pure, so
/// every rule is tested without a tape (`SavePolicyTests`).
enum SavePolicy {
    /// What happens to the file.
    enum Verdict: Equatable {
        /// Nothing is written: the mode does not record, or nothing new was recorded.
        case leaveAsIs
        /// The recordings are written: added to what the file holds, or `replacing` it (mode `all`).
        case save(replacing: Bool)
        /// A request could not connect, so the recording is incomplete: it neither replaces a
        /// cassette (mode `all`) nor creates an empty one that would replay nothing. The warning says so.
        case incomplete(warning: String)
        /// The test failed, and what it recorded is not saved (``Tape/Options/savesWhenTestFails``).
        /// The warning says so.
        case testFailed(warning: String)
    }

    /// `CASSETTE_SAVE_ON_FAILURE`: `1` saves what a failing test recorded.
    static let saveOnFailureVariable = "CASSETTE_SAVE_ON_FAILURE"

    /// Whether what a failing test recorded is saved: by the option, or `CASSETTE_SAVE_ON_FAILURE=1`.
    static func savesWhenTestFails(option: Bool, environment: [String: String]) -> Bool {
        option || EnvironmentSwitch.isOn(saveOnFailureVariable, in: environment) == true
    }

    /// - Parameters:
    ///   - live: a pass-through tape (``Tape/isLive``), which never writes.
    ///   - testFailed: whether the test failed and what it recorded is not to be saved.
    ///   - createsEmpty: whether a tape that recorded nothing creates its new cassette empty (a
    ///     test's tape: "recorded, no traffic"); the `cassette` tool's tapes do not — a `record`
    ///     stopped by a signal or a `serve` stopped idle leaves no file that mode `once` would then
    ///     never record into.
    static func verdict(
        mode: RecordMode, fileExisted: Bool, recorded: Int, connectionFailures: Int, file: URL, live: Bool = false,
        testFailed: Bool = false, createsEmpty: Bool = true
    ) -> Verdict {
        let recordingMode = !live && mode != .none && !(mode == .once && fileExisted)
        guard recordingMode else { return .leaveAsIs }
        if !createsEmpty, !fileExisted, recorded == 0 { return .leaveAsIs }
        if testFailed, recorded > 0 || !fileExisted {
            return .testFailed(
                warning: "cassette \(file.path) was not saved: its test failed, and what a failing test records is often the failure "
                    + "itself" + (fileExisted ? "; the file is unchanged" : "") + ". The next run records again; to keep such a "
                    + "recording, set Tape.Options(savesWhenTestFails: true) or CASSETTE_SAVE_ON_FAILURE=1.")
        }
        if connectionFailures > 0, mode == .all || recorded == 0 {
            return .incomplete(
                warning: "cassette \(file.path) was not saved: \(connectionFailures) request\(connectionFailures == 1 ? "" : "s") "
                    + "could not connect, so the recording is incomplete" + (fileExisted ? "; the file is unchanged" : "")
                    + ". Record again when the servers can be reached.")
        }
        guard recorded > 0 || !fileExisted || mode == .all else { return .leaveAsIs }
        return .save(replacing: mode == .all)
    }
}
