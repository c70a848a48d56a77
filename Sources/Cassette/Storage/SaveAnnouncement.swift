import Foundation

/// The line a tape prints when it wrote its cassette, so that a recording run says what it wrote
/// and where:
///
/// ```
/// Cassette: recorded 3 interactions into Cassettes/UserTests/fetchesUser.json (a new cassette)
/// ```
///
/// Printed whatever standard error is: `swift test` pipes a test process's output, so a line kept
/// for terminals never reached the person whose first run recorded. A replay prints nothing.
/// `CASSETTE_SUMMARY=0` silences it (in a tape's environment, or the tool's). Under the
/// `.cassette` trait it stays a line, not a warning issue: a first run records every test's
/// cassette, and a warning on each would mark a green run as one to look into.
enum SaveAnnouncement {
    /// Whether a tape opened with `environment` prints the line: unless `CASSETTE_SUMMARY` is off.
    static func isWanted(environment: [String: String]) -> Bool {
        EnvironmentSwitch.isOn(RunSummary.variable, in: environment) ?? true
    }

    /// The line for `recorded` interactions written into `file`: a new file, added to what it
    /// held, or replacing it (mode `all`) but for the scenarios it kept (`keptScenarios`, each
    /// as its mark says), shown from `currentFolder` (``ShownPath``).
    static func line(
        recorded: Int, file: URL, replacing: Bool, fileExisted: Bool, keptScenarios: [String] = [], currentFolder: String
    ) -> String {
        let shown = ShownPath.of(file, from: currentFolder)
        var what = !fileExisted ? "a new cassette" : replacing ? "replacing what it held" : "added after what it held"
        if !keptScenarios.isEmpty {
            let count = keptScenarios.count
            what +=
                "; kept \(count) scenario\(count == 1 ? "" : "s") as \(count == 1 ? "it was" : "they were"): "
                + keptScenarios.joined(separator: ", ")
        }
        return "Cassette: recorded \(recorded) interaction\(recorded == 1 ? "" : "s") into \(shown) (\(what))"
    }
}
