import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The private parts of the platform's networking Cassette reads (``NetworkingInternals``): each is
/// found on this platform, a missing one is said by the first tape — on standard error and among
/// its report's warnings — and by no tape after.
@Suite struct NetworkingInternalsTests {
    /// What Cassette reads, on each platform: FoundationNetworking's fields on Linux; on Apple
    /// platforms the task's `session` selector and the configuration getters the interception replaces.
    static var expected: [String] {
        #if canImport(FoundationNetworking)
        ["URLSessionTask.workQueue", "URLSessionTask.session", "URLSession.taskRegistry.behaviours", "URLSessionTask.knownBody"]
        #else
        [
            "URLSessionTask.session", "URLSessionConfiguration.defaultSessionConfiguration",
            "URLSessionConfiguration.ephemeralSessionConfiguration",
            "URLSessionConfiguration.backgroundSessionConfigurationWithIdentifier:",
        ]
        #endif
    }

    @Test func everyPartIsLookedFor() {
        #expect(NetworkingInternals.parts.map(\.name) == Self.expected)
    }

    /// One test per part: fails on the Swift (or OS) whose networking no longer has it, which is
    /// where its fallback starts to matter.
    @Test(arguments: expected) func thisPlatformHas(part name: String) throws {
        let part = try #require(NetworkingInternals.parts.first { $0.name == name })
        #expect(part.found)
    }

    // Apple: there is nothing of FoundationNetworking's to read; its parts are checked above.
    #if canImport(FoundationNetworking)
    /// The field records say what they hold, and nothing they do not: a field by its name and
    /// type, never one of another type or name.
    @Test func theFieldRecordsAnswerOnlyForWhatIsThere() {
        #expect(FieldRecords.offset(of: "workQueue", in: URLSessionTask.self, type: DispatchQueue.self) == TaskInternals.workQueueOffset)
        #expect(FieldRecords.offset(of: "workQueue", in: URLSessionTask.self, type: Int.self) == nil)
        #expect(FieldRecords.field("noSuchField", in: URLSessionTask.self) == nil)
        #expect(FieldRecords.field("taskRegistry", in: URLSession.self)?.type is AnyClass)
    }
    #endif

    static let missing = NetworkingInternals.Part(
        name: "URLSessionTask.example", found: false, withoutIt: "an example degrades")
    static let present = NetworkingInternals.Part(name: "URLSessionTask.other", found: true, withoutIt: "nothing")

    @Test func aMissingPartSaysWhatDegrades() {
        #expect(
            Self.missing.message
                == "this platform's networking no longer has URLSessionTask.example (private; Cassette reads it), so an example "
                + "degrades. Please report it to Cassette with the output of `swift --version`.")
        let told = Locked(false)
        #expect(NetworkingInternals.warnings([Self.present, Self.missing], firstTape: told) == [Self.missing.message])
        #expect(NetworkingInternals.warnings([Self.present, Self.missing], firstTape: told) == [])
    }

    /// The first tape says a missing part on standard error as it opens, and among its report's
    /// warnings; the tape after it says nothing of it.
    @Test func theFirstTapeSaysAMissingPartOnceOnStandardErrorAndInItsReport() async throws {
        try await withScratchTape { scratch in
            let stand = NetworkingInternals.Stand(parts: [Self.present, Self.missing])
            var reports: [Tape.Report] = []
            let written = try await StandardError.capturing {
                try NetworkingInternals.$stand.withValue(stand) {
                    for name in ["first", "second"] {
                        let tape = try Tape(
                            file: scratch.file("\(name).json"), mode: .once,
                            options: Tape.Options(expectsRequests: false).quiet, environment: .tests)
                        reports.append(try tape.eject())
                    }
                }
            }
            #expect(written == ["Cassette warning: " + Self.missing.message])
            #expect(reports.map(\.warnings) == [[Self.missing.message], []])
        }
    }
}
