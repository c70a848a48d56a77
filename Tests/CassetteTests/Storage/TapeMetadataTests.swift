import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteTesting

/// `Tape.metadata`: saved with what the tape records, read back when a tape opens the cassette —
/// before its first request — through `Tape`, `withCassette` and the trait.
@Suite struct TapeMetadataTests {
    @Test func savedWhenRecordingAndReadBackBeforeTheFirstRequest() async throws {
        try await withScratchTape { scratch in
            let recording = try scratch.tape(mode: .once)
            #expect(recording.metadata == [:])
            recording.metadata["apiVersion"] = "2026-10-01"
            recording.metadata["account"] = ["id": 42]
            _ = await Fetch.get(scratch.url("/status/200"), on: recording.session)
            #expect(try recording.eject().saved)

            let replaying = try scratch.tape(mode: .none)
            #expect(replaying.metadata == ["apiVersion": "2026-10-01", "account": ["id": 42]])
            #expect(replaying.metadata["apiVersion"]?.stringValue == "2026-10-01")
            try replaying.eject()

            // Appending keeps it unless the test changes it; mode all keeps it too.
            let appending = try scratch.tape(mode: .newEpisodes)
            _ = await Fetch.get(scratch.url("/status/201"), on: appending.session)
            try appending.eject()
            #expect(try CassetteFile.read(scratch.file).metadata["apiVersion"] == "2026-10-01")
            let again = try scratch.tape(mode: .all)
            _ = await Fetch.get(scratch.url("/status/202"), on: again.session)
            try again.eject()
            #expect(try CassetteFile.read(scratch.file).metadata == ["apiVersion": "2026-10-01", "account": ["id": 42]])
        }
    }

    /// A reserved key fails the save, and the file stays as it was.
    @Test func aReservedKeyFailsTheSave() async throws {
        try await withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            tape.metadata["cassetteFormat"] = 2
            _ = await Fetch.get(scratch.url("/status/200"), on: tape.session)
            do {
                try tape.eject()
                Issue.record("the save did not fail")
            } catch let error as CassetteError {
                #expect("\(error)".contains(#"metadata key "cassetteFormat" is reserved"#), "\(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.file.path))
        }
    }

    @Test func withCassetteAndTheTraitReadIt() async throws {
        let test = try #require(Test.current)
        try await withScratchTape { scratch in
            var document = CassetteDocument(interactions: [])
            document.metadata = ["ticket": "API-123"]
            try CassetteFile.write(document, to: scratch.file("tagged.json"))
            let read = try withCassette(
                "tagged", folder: scratch.url.path, mode: .none, options: Tape.Options(expectsRequests: false), environment: .tests
            ) { tape in
                tape.metadata["ticket"]
            }
            #expect(read == "API-123")
            var trait = CassetteTrait.cassette(
                "tagged", folder: scratch.url.path, mode: .none, options: Tape.Options(expectsRequests: false))
            trait.settings.environment = [:]
            let seen = Locked<MetadataValue?>(nil)
            try await trait.provideScope(for: test, testCase: nil) {
                seen.withLock { $0 = Tape.current?.metadata["ticket"] }
            }
            #expect(seen.withLock { $0 } == "API-123")
        }
    }
}
