import Cassette
import Foundation

/// The environment variables a command honours as a tape does — `CASSETTE_RECORD_MODE`, `CI`,
/// `CASSETTE_LATENCY`, `CASSETTE_FOLDER` — with the command line winning over each.
struct CommandEnvironment {
    /// The variables, by name.
    var variables: [String: String]

    /// The words every command's `--help` uses for this.
    static let help = """
        ENVIRONMENT (the command line wins over each):
          CASSETTE_RECORD_MODE  The record mode when --mode is not given (serve, record).
          CI                    Set (to anything but false or 0): mode none when neither --mode nor
                                CASSETTE_RECORD_MODE is given, as for a tape: CI replays offline.
          CASSETTE_LATENCY      The latency when --latency is not given (serve, play).
          CASSETTE_FOLDER       Where a relative --cassette path is, when --folder is not given.
          CASSETTE_LIVE         1: serve and record send every request live and keep nothing, as a
                                tape does (a nightly run of UI tests against the real service).
          CASSETTE_WRITE_MISSES 1: the misses are written beside the cassette (NAME.misses.json and
                                .txt), as a tape writes them.
        """

    /// The record mode: `given` (`--mode`); else `CASSETTE_RECORD_MODE`; else `none` when `CI`
    /// is set; else `fallback`, the command's own default.
    func mode(given: RecordMode?, fallback: RecordMode) throws(CassetteError) -> RecordMode {
        if let given { return given }
        return try RecordMode.resolve(requested: fallback, environment: variables)
    }

    /// The cassette `path` names: as given when absolute; else in `folder` (`--folder`), else in
    /// `CASSETTE_FOLDER`, else in the current directory (each of those relative to the current
    /// directory when it is relative itself).
    func file(_ path: String, folder: String?) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL }
        guard let base = folder ?? variables[CassetteLocation.folderVariable].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return URL(fileURLWithPath: path).standardizedFileURL
        }
        return URL(fileURLWithPath: base).appendingPathComponent(path).standardizedFileURL
    }

    /// `CASSETTE_FOLDER`, when it is set.
    var folder: String? {
        variables[CassetteLocation.folderVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// What the tape reads itself: the latency, the live switch, whether a saved cassette is
    /// announced (`CASSETTE_SUMMARY=0`) and whether misses are written beside it
    /// (`CASSETTE_WRITE_MISSES`, refused when neither on nor off, as a tape refuses it); the mode
    /// was resolved here, with the command line first. The tapes' ledger records are marked as the
    /// tool's (`Ledger.toolRunVariable`): a `play` or `serve` beside a suite changes no judgment
    /// of `report` or `prune`, and keeps no command line.
    var forTape: [String: String] {
        let read = Set([Latency.environmentVariable, LiveSwitch.environmentVariable, RunSummary.variable] + EnvironmentSwitch.names)
        return variables.filter { read.contains($0.key) }.merging([Ledger.toolRunVariable: "1"]) { _, tool in tool }
    }
}
