import Foundation

/// The line a tape prints when it wrote its cassette, so that a recording run says what it wrote
/// and where:
///
/// ```
/// Cassette: recorded 3 interactions into Cassettes/UserTests/fetchesUser.json (a new cassette)
/// ```
///
/// Printed when standard error is a terminal (a person is watching `swift test`), or when
/// `CASSETTE_SUMMARY=1` asks (a CI log); `CASSETTE_SUMMARY=0` silences it.
enum SaveAnnouncement {
    /// Whether a tape opened with `environment` prints the line.
    static func isWanted(environment: [String: String], standardErrorIsTerminal: Bool) -> Bool {
        EnvironmentSwitch.isOn(RunSummary.variable, in: environment) ?? standardErrorIsTerminal
    }

    /// Whether this process's standard error is a terminal: asked once, not by every tape.
    static let standardErrorIsTerminal = isatty(STDERR_FILENO) == 1

    /// The line for `recorded` interactions written into `file`: a new file, added to what it
    /// held, or replacing it (mode `all`). A path inside `currentFolder` is shown relative to it.
    static func line(recorded: Int, file: URL, replacing: Bool, fileExisted: Bool, currentFolder: String) -> String {
        let path = file.standardizedFileURL.path
        let prefix = currentFolder.hasSuffix("/") ? currentFolder : currentFolder + "/"
        let shown = path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
        let what = !fileExisted ? "a new cassette" : replacing ? "replacing what it held" : "added after what it held"
        return "Cassette: recorded \(recorded) interaction\(recorded == 1 ? "" : "s") into \(shown) (\(what))"
    }
}
