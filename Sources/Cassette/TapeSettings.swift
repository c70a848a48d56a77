import Foundation

/// Everything a tape is opened with: the cassette's name and where to look for it, the record
/// mode, the matching rules, the options, whether `URLSession.shared` goes through the tape, and
/// the environment that may override them.
///
/// `Tape(named:…)`, both `withCassette` functions and the `.cassette` trait take these as
/// labelled parameters — the spelling a test reads best — and each builds this one value and opens
/// the tape from it (`Tape(_:)`), so what a setting means is written once. A new *option* belongs
/// in `Tape.Options`, which all of them take whole: adding one touches that type alone.
package struct TapeSettings: Sendable {
    /// The cassette's name, a relative path (`"Users/fetch"`); see `CassetteLocation`.
    package var name: String
    /// The folder holding cassettes, or nil for the default (`CASSETTE_FOLDER`, the package's `Cassettes/`).
    package var folder: String?
    /// A bundle whose resources hold the cassette when the folder does not (device runs).
    package var bundle: Bundle?
    /// The test's source file, to find the folders above it.
    package var filePath: String
    /// The record mode, before `CASSETTE_RECORD_MODE` and `CI` apply.
    package var mode: RecordMode
    package var matching: RequestMatching
    package var options: Tape.Options
    /// Whether `URLSession.shared` goes through the tape too (`withCassette` and the trait).
    package var sharedSession: Bool
    /// Where `CASSETTE_RECORD_MODE`, `CI`, `CASSETTE_LATENCY`, `CASSETTE_FOLDER` and the rest are read.
    package var environment: [String: String]

    package init(
        name: String, folder: String? = nil, bundle: Bundle? = nil, filePath: String, mode: RecordMode = .once,
        matching: RequestMatching = .default, options: Tape.Options = Tape.Options(), sharedSession: Bool = false,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.name = name
        self.folder = folder
        self.bundle = bundle
        self.filePath = filePath
        self.mode = mode
        self.matching = matching
        self.options = options
        self.sharedSession = sharedSession
        self.environment = environment
    }

    /// These settings for the test `test` in `file`, unless the options already name one: who
    /// opened the tape, as the suite ledger records it.
    package func opened(by test: String, in file: String) -> TapeSettings {
        var settings = self
        if settings.options.openedBy == nil { settings.options.openedBy = (test: test, file: file) }
        return settings
    }
}
