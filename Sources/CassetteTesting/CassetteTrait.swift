#if canImport(Testing)
import Foundation
import Testing

/// A Swift Testing trait that gives a test its own cassette.
///
/// ```swift
/// @Test(.cassette) func fetchesUser() async throws {          // Cassettes/UserTests/fetchesUser.json
///     let tape = try #require(Tape.current)
///     let user = try await APIClient(session: tape.session).user(id: 42)
///     #expect(user.name == "Ada")
/// }
///
/// @Test(.cassette("Users/outage", mode: .none)) func showsOutage() async throws { … }
/// ```
///
/// Without a name the cassette is named after the suite and the test: `Suite/test`, in the
/// `Cassettes/` folder of the package that holds the test. The tape is `Tape/current` during
/// the test and is ejected after it. Requests that found no match are recorded as issues of the
/// test (except one the test's own error already reports), and so are unused interactions and a
/// stale cassette when `Tape/Options` says they fail; when it says warn, they are warnings (with
/// Swift 6.2, whose Swift Testing has no warning issues, `Cassette warning: …` lines on standard
/// error). An error opening or saving the cassette fails the test.
///
/// Tests with cassettes run in parallel like any others, each through its own session. Tests that
/// ask for `sharedSession: true` take turns with `URLSession.shared`.
///
/// On a parameterized test (`@Test(arguments:)`), each case gets its own cassette, named after
/// its arguments: `Suite/test/ARGUMENTS` (`SearchTests/finds/swift.json`; see the table in the
/// package's README for how values become names). An argument whose description is not stable
/// (a class instance without one, a memory address) fails the case with an error that says what
/// to write instead. A name given to the trait is shared by every case.
///
/// ```swift
/// @Test(.cassette, arguments: ["swift", "kotlin", "rust"])
/// func finds(language: String) async throws { … }    // Cassettes/SearchTests/finds/swift.json, …/kotlin.json, …/rust.json
/// ```
///
/// On a suite, the trait gives each test of the suite its own cassette, named after the suite
/// and the test unless a name is given (a suite-level name makes every test share that
/// cassette, one at a time). A test with its own `.cassette` uses that one instead; the suite's
/// settings are not merged into it.
public struct CassetteTrait: TestTrait, SuiteTrait, TestScoping {
    /// The cassette's name, or `nil` to derive it from the test.
    package var name: String?
    /// Everything else the tape is opened with; its name and file path are the test's, set when
    /// the test runs. Cassette's own tests set its `environment` (to record under `CI`, say).
    package var settings: TapeSettings

    /// Tells this trait from an equal one given elsewhere (the suite's and a test's).
    private let identity = UUID()

    /// Applies to every test of a suite.
    public var isRecursive: Bool { true }

    /// Opens the tape, runs the test with it, ejects it.
    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's cassette serves each of its tests that has none of its own; a test's own
        // `.cassette` (the last one listed for it) replaces the suite's.
        let cassettes = test.traits.compactMap { $0 as? CassetteTrait }
        let replaced = cassettes.contains { $0.identity == identity } && cassettes.last?.identity != identity
        guard !test.isSuite, !replaced else {
            try await function()
            return
        }
        var settings = settings
        settings.name = name ?? Self.derivedName(for: test)
        if name == nil, let testCase, testCase.isParameterized {
            // One cassette per case: `Suite/test/ARGUMENTS`.
            settings.name = try ArgumentCassetteName.name(base: settings.name, test: test, testCase: testCase)
        }
        settings.filePath = TestingFeatures.filePath(of: test.sourceLocation)
        settings.options.adviceReader = .trait
        // As `swift test --filter` takes it: `Module.Suite/test()`.
        settings.options.openedBy = (
            test: test.id.moduleName + "." + test.id.nameComponents.joined(separator: "/"), file: settings.filePath
        )
        let tape = try Tape(settings)
        let location = test.sourceLocation
        // Whether the test recorded a failing issue: then what it recorded is saved only if the
        // options say so (a thrown error is seen by `play` itself).
        let failed = Locked(false)
        let observedTest: () async throws -> Void = {
            try await IssueHandlingTrait.compactMapIssues { issue in
                if TestingFeatures.isFailure(issue) { failed.withLock { $0 = true } }
                return issue
            }.provideScope(for: test, testCase: testCase, performing: function)
        }
        try await tape.play(
            sharedSession: settings.sharedSession,
            outlet: { verification, _ in
                for failure in verification.failures {
                    Issue.record(Comment(rawValue: failure.description), sourceLocation: location)
                }
                for warning in verification.warnings {
                    TestingFeatures.recordWarning(warning.description, at: location)
                }
                for item in verification.evidence {
                    Attachment.record(item.contents, named: item.name, sourceLocation: location)
                }
            },
            failed: { failed.current }, observedTest)
    }

    /// The cassette name the trait gives `test` when none is set: `Suite/test`, from the test's
    /// name components without the parentheses and labels of its function name
    /// (`UserTests/fetchesUser`). Nested suites make nested folders.
    package static func derivedName(for test: Test) -> String {
        var components = test.id.nameComponents
        if let last = components.popLast() {
            components.append(String(last.prefix { $0 != "(" }))
        }
        return components.map { $0.replacingOccurrences(of: "/", with: "_") }.joined(separator: "/")
    }
}

extension Trait where Self == CassetteTrait {
    /// A cassette named after the suite and the test, in the package's `Cassettes/` folder.
    public static var cassette: CassetteTrait { cassette() }

    /// A cassette with the given name (or the derived one), folder, bundle, mode, matching rules
    /// and options.
    ///
    /// ```swift
    /// @Test(.cassette("Users/fetch", folder: "Fixtures/Cassettes", bundle: .module)) func fetches() async throws { … }
    /// ```
    public static func cassette(
        _ name: String? = nil,
        folder: String? = nil,
        bundle: Bundle? = nil,
        mode: RecordMode = .once,
        matching: RequestMatching = .default,
        options: Tape.Options = Tape.Options(),
        sharedSession: Bool = false
    ) -> CassetteTrait {
        // Traits are made while Swift Testing discovers the tests, before any test runs: the
        // earliest moment to register for URLSession.shared (see Tape.prepareSharedSession()).
        if sharedSession { Tape.prepareSharedSession() }
        return CassetteTrait(
            name: name,
            settings: TapeSettings(
                name: name ?? "", folder: folder, bundle: bundle, filePath: "", mode: mode, matching: matching, options: options,
                sharedSession: sharedSession))
    }
}
#endif
