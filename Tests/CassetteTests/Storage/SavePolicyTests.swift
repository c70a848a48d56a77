import Foundation
import Testing

@testable import Cassette

/// When an ejected tape writes its cassette, decided without a tape.
@Suite struct SavePolicyTests {
    static let file = URL(fileURLWithPath: "/cassettes/api.json")

    static func verdict(_ mode: RecordMode, existed: Bool, recorded: Int, failures: Int = 0) -> SavePolicy.Verdict {
        SavePolicy.verdict(mode: mode, fileExisted: existed, recorded: recorded, connectionFailures: failures, file: file)
    }

    @Test func modesThatDoNotRecordLeaveTheFileAsItIs() {
        #expect(Self.verdict(.none, existed: true, recorded: 0) == .leaveAsIs)
        #expect(Self.verdict(.none, existed: false, recorded: 0) == .leaveAsIs)
        #expect(Self.verdict(.once, existed: true, recorded: 0) == .leaveAsIs)
    }

    @Test func newRecordingsAreAddedAndModeAllReplaces() {
        #expect(Self.verdict(.once, existed: false, recorded: 2) == .save(replacing: false))
        #expect(Self.verdict(.newEpisodes, existed: true, recorded: 1) == .save(replacing: false))
        #expect(Self.verdict(.newEpisodes, existed: true, recorded: 0) == .leaveAsIs)
        #expect(Self.verdict(.all, existed: true, recorded: 0) == .save(replacing: true))
    }

    @Test func aNewCassetteIsWrittenEvenEmptyToMarkRecordedWithNoTraffic() {
        #expect(Self.verdict(.once, existed: false, recorded: 0) == .save(replacing: false))
        #expect(Self.verdict(.newEpisodes, existed: false, recorded: 0) == .save(replacing: false))
    }

    /// The tool's tapes (`record` stopped by a signal, `serve` stopped idle) create no empty
    /// cassette; what they record is saved as a test's is, and an existing file is left as it is.
    @Test func theToolsTapesCreateNoEmptyCassette() {
        let file = URL(fileURLWithPath: "/cassettes/api.json")
        for mode in [RecordMode.once, .newEpisodes, .all] {
            #expect(
                SavePolicy.verdict(mode: mode, fileExisted: false, recorded: 0, connectionFailures: 0, file: file, createsEmpty: false)
                    == .leaveAsIs)
            #expect(
                SavePolicy.verdict(mode: mode, fileExisted: false, recorded: 1, connectionFailures: 0, file: file, createsEmpty: false)
                    == .save(replacing: mode == .all))
        }
        #expect(
            SavePolicy.verdict(mode: .all, fileExisted: true, recorded: 0, connectionFailures: 0, file: file, createsEmpty: false)
                == .save(replacing: true))
    }

    @Test func anIncompleteRecordingNeitherReplacesNorCreatesAnEmptyCassette() {
        #expect(
            Self.verdict(.all, existed: true, recorded: 3, failures: 1)
                == .incomplete(
                    warning: "cassette /cassettes/api.json was not "
                        + "saved: 1 request could not connect, so the recording is incomplete; the file is unchanged. Record again when the servers "
                        + "can be reached."))
        #expect(
            Self.verdict(.once, existed: false, recorded: 0, failures: 2)
                == .incomplete(
                    warning: "cassette /cassettes/api.json was "
                        + "not saved: 2 requests could not connect, so the recording is incomplete. Record again when the servers can be reached."
                ))
        // What was recorded alongside a failure is still added.
        #expect(Self.verdict(.newEpisodes, existed: true, recorded: 2, failures: 1) == .save(replacing: false))
    }
}
