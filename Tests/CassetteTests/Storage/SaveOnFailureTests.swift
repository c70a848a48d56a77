import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a failing test recorded is not saved (VCR's `record_on_error: false`), unless
/// `Tape.Options.savesWhenTestFails` or `CASSETTE_SAVE_ON_FAILURE=1` says so — through `Tape`,
/// `withCassette` (its body throws) and the `.cassette` trait (its test records a failing issue).
@Suite struct SaveOnFailureTests {
    static func notSaved(_ file: URL, existed: Bool = false) -> String {
        "cassette \(file.path) was not saved: its test failed, and what a failing test records is often the failure itself"
            + (existed ? "; the file is unchanged" : "")
            + ". The next run records again; to keep such a recording, set Tape.Options(savesWhenTestFails: true) or "
            + "CASSETTE_SAVE_ON_FAILURE=1."
    }

    struct Deliberate: Error {}

    /// The warning these tests provoke stays in the report, out of `swift test`'s output.
    static let quiet = Tape.Options().quiet

    @Test func aFailedTestsRecordingIsNotSaved() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            #expect(await Fetch.get(scratch.url("/status/500"), on: tape.session).status == 500)
            let report = try tape.eject(testFailed: true)
            #expect(!report.saved)
            #expect(report.recorded == 1)
            #expect(report.warnings == [Self.notSaved(scratch.file)])
            #expect(!FileManager.default.fileExists(atPath: scratch.file.path))
        }
    }

    /// Appended to (`newEpisodes`): the file stays as it was.
    @Test func anExistingCassetteIsLeftAsItWas() async throws {
        try await withScratchTape { scratch in
            let first = try scratch.tape(mode: .once)
            _ = await Fetch.get(scratch.url("/status/200"), on: first.session)
            try first.eject()
            let before = try Data(contentsOf: scratch.file)
            let tape = try scratch.tape(mode: .newEpisodes)
            _ = await Fetch.get(scratch.url("/status/500"), on: tape.session)
            let report = try tape.eject(testFailed: true)
            #expect(report.warnings == [Self.notSaved(scratch.file, existed: true)])
            #expect(try Data(contentsOf: scratch.file) == before)
        }
    }

    @Test func theOptionAndTheEnvironmentSaveIt() async throws {
        try await withScratchTape { scratch in
            let byOption = try scratch.tape(mode: .once, options: Tape.Options(savesWhenTestFails: true))
            _ = await Fetch.get(scratch.url("/status/500"), on: byOption.session)
            #expect(try byOption.eject(testFailed: true).saved)

            let file = scratch.file("environment.json")
            let byEnvironment = try Tape(
                file: file, mode: .once, options: Tape.Options().quiet, environment: ["CASSETTE_SAVE_ON_FAILURE": "1"])
            _ = await Fetch.get(scratch.url("/status/500"), on: byEnvironment.session)
            #expect(try byEnvironment.eject(testFailed: true).saved)
            #expect(try CassetteFile.read(file).interactions.map { $0.response?.status } == [500])

            // A test that passed saves as always.
            let passed = try Tape(file: scratch.file("passed.json"), mode: .once, options: Tape.Options().quiet, environment: .tests)
            _ = await Fetch.get(scratch.url("/status/200"), on: passed.session)
            #expect(try passed.eject(testFailed: false).saved)
        }
    }

    @Test func withCassetteSavesOnlyWhenItsBodyReturns() async throws {
        try await withScratchTape { scratch in
            await #expect(throws: Deliberate.self) {
                try await withCassette("failed", folder: scratch.url.path, mode: .once, options: Self.quiet, environment: .tests) { tape in
                    _ = await Fetch.get(scratch.url("/status/500"), on: tape.session)
                    throw Deliberate()
                }
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.file("failed.json").path))
            try await withCassette("passed", folder: scratch.url.path, mode: .once, environment: .tests) { tape in
                _ = await Fetch.get(scratch.url("/status/200"), on: tape.session)
            }
            #expect(FileManager.default.fileExists(atPath: scratch.file("passed.json").path))
            #expect(throws: Deliberate.self) {
                try withCassette("failedSync", folder: scratch.url.path, mode: .once, options: Self.quiet, environment: .tests) { tape in
                    let done = DispatchSemaphore(value: 0)
                    tape.session.dataTask(with: URL(string: scratch.url("/status/500"))!) { _, _, _ in done.signal() }.resume()
                    done.wait()
                    throw Deliberate()
                }
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.file("failedSync.json").path))
        }
    }

    /// The trait learns of a failing issue the test records (Swift Testing's issue handling). The
    /// issue is a real failure where the trait sees it; an issue handler outside the trait drops it
    /// afterwards, so this test does not fail.
    @Test func theTraitDoesNotSaveWhenTheTestRecordsAFailure() async throws {
        let test = try #require(Test.current)
        try await withScratchTape { scratch in
            func run(_ given: CassetteTrait, status: Int, failing: Bool) async throws {
                var configured = given
                configured.settings.environment = [:]
                let trait = configured
                try await IssueHandlingTrait.filterIssues { _ in false }.provideScope(for: test, testCase: nil) {
                    try await trait.provideScope(for: test, testCase: nil) {
                        let tape = try #require(Tape.current)
                        _ = await Fetch.get(scratch.url("/status/\(status)"), on: tape.session)
                        if failing { Issue.record("the test failed") }
                    }
                }
            }
            try await run(.cassette("failing", folder: scratch.url.path, mode: .once, options: Self.quiet), status: 500, failing: true)
            #expect(!FileManager.default.fileExists(atPath: scratch.file("failing.json").path))
            try await run(
                .cassette("saving", folder: scratch.url.path, mode: .once, options: Tape.Options(savesWhenTestFails: true).quiet),
                status: 500,
                failing: true)
            #expect(FileManager.default.fileExists(atPath: scratch.file("saving.json").path))
            try await run(
                .cassette("passing", folder: scratch.url.path, mode: .once, options: Tape.Options().quiet), status: 200, failing: false)
            #expect(FileManager.default.fileExists(atPath: scratch.file("passing.json").path))
        }
    }

    /// A known issue (`withKnownIssue`) does not fail the test, and with Swift 6.3 the trait saves
    /// what the test recorded. Swift 6.2's Testing cannot tell a known issue from a failure
    /// (`Issue.isFailure` is SPI there), so with 6.2 the trait counts it and saves nothing.
    @Test func aKnownIssueIsAFailureOnlyWithSwift62() async throws {
        let test = try #require(Test.current)
        try await withScratchTape { scratch in
            var configured = CassetteTrait.cassette("known", folder: scratch.url.path, mode: .once, options: Self.quiet)
            configured.settings.environment = [:]
            let trait = configured
            try await trait.provideScope(for: test, testCase: nil) {
                let tape = try #require(Tape.current)
                #expect(await Fetch.get(scratch.url("/status/200"), on: tape.session).status == 200)
                withKnownIssue { Issue.record("a known issue") }
            }
            #if compiler(>=6.3)
            #expect(FileManager.default.fileExists(atPath: scratch.file("known.json").path))
            #else
            #expect(!FileManager.default.fileExists(atPath: scratch.file("known.json").path))
            #endif
        }
    }

    /// A test that throws fails too: the trait sees the error.
    @Test func theTraitDoesNotSaveWhenTheTestThrows() async throws {
        let test = try #require(Test.current)
        try await withScratchTape { scratch in
            var trait = CassetteTrait.cassette("thrown", folder: scratch.url.path, mode: .once, options: Self.quiet)
            trait.settings.environment = [:]
            await #expect(throws: Deliberate.self) {
                try await trait.provideScope(for: test, testCase: nil) {
                    let tape = try #require(Tape.current)
                    _ = await Fetch.get(scratch.url("/status/500"), on: tape.session)
                    throw Deliberate()
                }
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.file("thrown.json").path))
        }
    }
}
