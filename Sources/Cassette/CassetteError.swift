import Foundation

/// What went wrong opening, using or ejecting a cassette, with what to do next.
///
/// A malformed cassette file throws `CassetteFormatError` instead, which names the file, the
/// JSON path, the line and the column of every problem.
public enum CassetteError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// A record mode name that is not one of `once`, `newEpisodes`, `none`, `all`.
    /// `source` says where it was read (`CASSETTE_RECORD_MODE`, a command-line option).
    case invalidRecordMode(String, source: String)
    /// A latency that is not one of the text forms of `Latency(parsing:)`, or not valid.
    /// `source` says where it was read (`CASSETTE_LATENCY`).
    case invalidLatency(String, source: String)
    /// A body pattern of a ``Redaction`` that is not a valid regular expression.
    case invalidRedactionPattern(String, reason: String)
    /// The cassette file does not exist and the record mode does not allow recording it.
    case cassetteNotFound(file: String, mode: RecordMode)
    /// The cassette file exists but could not be read.
    case unreadableCassette(file: String, reason: String)
    /// The cassette could not be saved. The file on disk, if any, was left as it was.
    case saveFailed(file: String, reason: String)
    /// What was recorded still looks like it holds secrets after redaction, and the tape's
    /// ``SecretCheck`` is ``SecretCheck/failSave``: nothing was saved. One line per finding, each
    /// naming the request, the place and the kind (never the value).
    case suspectedSecrets(file: String, findings: [String])
    /// A cassette name that cannot be a relative file path (empty, absolute, or containing `..`).
    case invalidCassetteName(String)
    /// The cassette was found in a test bundle's resources, and the record mode would write to it.
    case readOnlyCassette(file: String, mode: RecordMode)
    /// `URLSession.shared` existed before Cassette could register its protocol, so its
    /// requests cannot be intercepted in this process.
    case sharedSessionNotInterceptable
    /// ``Tape/interceptEverySession(routingTo:)`` on a platform without an Objective-C runtime (Linux).
    case everySessionNotInterceptable
    /// The cassette was already ejected.
    case alreadyEjected(file: String)
    /// What the ejected tape saw fails the test: requests that found no recorded match, unused
    /// interactions under ``UnusedInteractions/fail``, a cassette stale under ``Staleness/Action/fail``.
    /// One message each.
    case verificationFailed([VerificationFinding])
    /// The `.cassette` trait without a name on a parameterized test, where an argument of a case
    /// cannot name a cassette: its description is not stable (see the trait).
    case cassetteNameNotDerivable(test: String, argument: String, reason: String)
    /// A `TapeServer` could not start: the reason says why and what to do.
    case serverFailed(String)
    /// The platform cannot route a session's requests through Cassette (watchOS, where
    /// `URLProtocol` serves no custom protocol): the platform's name.
    case unsupportedPlatform(String)
    /// An environment variable Cassette reads holds a value it does not take (`CASSETTE_LIVE=2`):
    /// its name, the value, and the values it takes.
    case invalidEnvironmentValue(name: String, value: String, accepted: String)
    /// A background configuration (`URLSessionConfiguration.background(withIdentifier:)`, its
    /// identifier given) handed to ``Tape/configure(_:)``: on Apple platforms a background session
    /// never asks a custom `URLProtocol`, so its requests would reach the network unrecorded.
    case backgroundSessionNotRoutable(identifier: String)

    /// What happened, and what to do about it.
    public var description: String {
        switch self {
        case .invalidRecordMode(let text, let source):
            let valid = RecordMode.allCases.map(\.rawValue).joined(separator: ", ")
            return "\(source): unknown record mode \"\(text)\"; expected one of \(valid)"
        case .invalidEnvironmentValue(let name, let value, let accepted):
            return "\(name)=\(value) is not a value Cassette takes: use \(accepted) (or leave it unset)"
        case .invalidLatency(let text, let source):
            return "\(source): cannot read the latency \"\(text)\"; expected \(Latency.textForms)"
        case .invalidRedactionPattern(let pattern, let reason):
            return "the redaction pattern \"\(pattern)\" is not a regular expression (\(reason)); "
                + "fix it in Redaction.redactingBodyMatches"
        case .cassetteNotFound(let file, let mode):
            return "cassette \(file) does not exist and record mode \"\(mode)\" never records. "
                + "Record it once with CASSETTE_RECORD_MODE=once on a machine with network access, and commit it."
        case .unreadableCassette(let file, let reason):
            return "cannot read cassette \(file): \(reason)"
        case .saveFailed(let file, let reason):
            return "could not save cassette \(file): \(reason). The previous file, if any, is unchanged; "
                + "check that the folder exists and is writable." + (reason.hasPrefix("cannot ") ? " " + Self.writableFolderAdvice : "")
        case .suspectedSecrets(let file, let findings):
            return "did not save cassette \(file): what was recorded still looks like it holds secrets after redaction:\n  "
                + findings.joined(separator: "\n  ") + "\nThe previous file, if any, is unchanged. " + SecretCheck.advice
        case .readOnlyCassette(let file, let mode):
            return "cassette \(file) was found in the test bundle, which cannot be written, and record mode \"\(mode)\" would "
                + "record into it. Record where the source tree is writable (on the Mac, or in the simulator), commit the "
                + "cassette and add it to the bundle's resources again; here, use mode once or none."
        case .invalidCassetteName(let name):
            if [TapeRules.fileName, (TapeRules.fileName as NSString).deletingPathExtension].contains((name as NSString).lastPathComponent) {
                return "\"\(name)\" is not a cassette name: \(TapeRules.fileName) is the folder's rules file (TapeRules), not a cassette"
            }
            return "\"\(name)\" is not a cassette name: use a relative path inside the cassette folder like \"Users/fetch\", "
                + "without \"..\" or a hidden step (a name starting with \".\"), and without a symbolic link that leads out of the folder"
        case .sharedSessionNotInterceptable:
            return "URLSession.shared was created before Cassette registered its URLProtocol, so its requests cannot be "
                + "recorded or replayed in this process (FoundationNetworking copies the protocol list once, when .shared is "
                + "first used). Give the code under test the cassette's own session (tape.session), or call "
                + "Tape.prepareSharedSession() before the first use of URLSession.shared (the .cassette(sharedSession: true) "
                + "trait does so when the tests are discovered; code that uses .shared before that needs the call earlier)."
        case .everySessionNotInterceptable:
            return "Tape.interceptEverySession() cannot work on Linux: FoundationNetworking's URLSessionConfiguration.default "
                + "and .ephemeral are plain Swift properties, and without an Objective-C runtime nothing can replace them. "
                + "Give the code under test the cassette's session (tape.session), or call tape.configure(configuration) on "
                + "the configuration it uses (Alamofire's Session(configuration:), URLSessionTransport, Get's APIClient)."
        case .alreadyEjected(let file):
            return "cassette \(file) was already ejected"
        case .verificationFailed(let findings):
            return findings.count == 1
                ? findings[0].description
                : "\(findings.count) problems with the cassette:\n" + findings.map { "- " + $0.description }.joined(separator: "\n")
        case .serverFailed(let reason):
            return "Cassette: the replay server cannot start: \(reason)"
        case .backgroundSessionNotRoutable(let identifier):
            return "the background configuration \"\(identifier)\" cannot go through a cassette: a background session's transfers "
                + "run in a system process that never asks a URLProtocol (Apple platforms), so its requests would reach the network "
                + "unrecorded. While testing, give the code under test a .default or .ephemeral configuration (make the configuration "
                + "an input of the code that builds its session) and configure that one, or use tape.session."
        case .unsupportedPlatform(let platform):
            return "Cassette cannot record or replay on \(platform): its URLSession never asks a custom URLProtocol, so requests "
                + "would reach the network unrecorded. Run these tests on iOS, tvOS, macOS or Linux, or point the code under test at "
                + "a TapeServer (cassette serve) running on the Mac."
        case .cassetteNameNotDerivable(let test, let argument, let reason):
            return "cannot name a cassette after \(argument) of the parameterized test \(test): \(reason). Give the argument's type a "
                + "stable testDescription (CustomTestStringConvertible), or name the cassette yourself: .cassette(\"\(Self.suggestedName(test))\") "
                + "gives every case that one cassette, and withCassette(\"\(Self.suggestedName(test))/\\(…)\") inside the test one per case."
        }
    }

    /// `fetch` for `fetch(user:)`: the start of a cassette name for a test.
    private static func suggestedName(_ test: String) -> String {
        String(test.prefix { $0 != "(" })
    }

    /// What to do when the folder cannot be written (every file-system reason starts "cannot ").
    static let writableFolderAdvice =
        "Recording needs a writable folder: point folder: (or CASSETTE_FOLDER) at one. On a "
        + "device, where the source tree is out of reach, record on the Mac or in the simulator and ship the cassette in "
        + "the test bundle's resources (bundle:)."

    /// Same as ``description``.
    public var errorDescription: String? { description }
}
