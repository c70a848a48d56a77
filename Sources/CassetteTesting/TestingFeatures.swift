#if canImport(Testing)
import Cassette
import Testing

/// What the traits need of Swift Testing that differs between the Swift versions Cassette
/// supports (6.2 and later): the one place a trait asks which Testing it runs with.
///
/// Swift 6.3's Testing makes public what 6.2's keeps as SPI (`@_spi(Experimental)`,
/// `@_spi(ForToolsIntegrationOnly)`), which Cassette does not import: an SPI may change in any
/// release and Xcode does not promise it. With 6.2's Testing, then:
///
/// - a tape's warnings (unused interactions, a stale cassette, nothing recorded) are written to
///   standard error as `Cassette warning: …`, since an issue cannot be a warning;
/// - every issue the test records counts as a failure, known issues too (6.2 cannot tell them
///   apart), so a test that records one keeps its new recordings only when
///   `Tape/Options/savesWhenTestFails` says so;
/// - the test's file is `SourceLocation._filePath`, the public field 6.3 renamed `filePath`.
///
/// `docs/Decisions.md` ("The Swift versions Cassette supports") says why 6.2 is the floor.
enum TestingFeatures {
    /// Whether a tape's warnings become issues of severity warning (else: standard error).
    static var recordsWarningIssues: Bool {
        #if compiler(>=6.3)
        true
        #else
        false
        #endif
    }

    /// The path of the file `location` is in.
    static func filePath(of location: SourceLocation) -> String {
        #if compiler(>=6.3)
        location.filePath
        #else
        location._filePath
        #endif
    }

    /// Whether `issue` fails the test it is recorded in.
    static func isFailure(_ issue: Issue) -> Bool {
        #if compiler(>=6.3)
        issue.isFailure
        #else
        true
        #endif
    }

    /// Records `text` as a warning of the running test, at `location`: an issue of severity
    /// warning where Testing has them, a line on standard error where it does not.
    static func recordWarning(_ text: String, at location: SourceLocation) {
        #if compiler(>=6.3)
        Issue.record(Comment(rawValue: text), severity: .warning, sourceLocation: location)
        #else
        StandardError.warn(text)
        #endif
    }
}
#endif
