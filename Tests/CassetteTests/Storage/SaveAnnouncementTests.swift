import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// A recording run says what it wrote and where — one line per cassette saved — when a person
/// watches (standard error is a terminal) or when `CASSETTE_SUMMARY=1` asks.
@Suite(.timingIsolated) struct SaveAnnouncementTests {
    @Test func aTerminalOrTheVariableAsks() {
        #expect(SaveAnnouncement.isWanted(environment: [:]))
        #expect(SaveAnnouncement.isWanted(environment: ["CASSETTE_SUMMARY": "1"]))
        #expect(!SaveAnnouncement.isWanted(environment: ["CASSETTE_SUMMARY": "0"]))
    }

    @Test func theLineSaysWhatWasWrittenAndWhere() {
        let file = URL(fileURLWithPath: "/work/app/Cassettes/UserTests/fetchesUser.json")
        #expect(
            SaveAnnouncement.line(recorded: 3, file: file, replacing: false, fileExisted: false, currentFolder: "/work/app")
                == "Cassette: recorded 3 interactions into Cassettes/UserTests/fetchesUser.json (a new cassette)")
        #expect(
            SaveAnnouncement.line(recorded: 1, file: file, replacing: false, fileExisted: true, currentFolder: "/work/app/")
                == "Cassette: recorded 1 interaction into Cassettes/UserTests/fetchesUser.json (added after what it held)")
        #expect(
            SaveAnnouncement.line(recorded: 2, file: file, replacing: true, fileExisted: true, currentFolder: "/elsewhere")
                == "Cassette: recorded 2 interactions into /work/app/Cassettes/UserTests/fetchesUser.json (replacing what it held)")
    }

    #if os(Linux) || os(macOS)  // starts a process
    /// Through a real process whose standard error is a pipe, as under `swift test`: the line
    /// unless silenced.
    @Test func aRecordingProcessPrintsItUnlessSilenced() throws {
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let asked = folder.file("asked.json")
        let printed = try ChildProcess.run("CassetteSaveCheck", ["announce", asked.path], environment: ["CASSETTE_SUMMARY": ""])
        #expect(printed.status == 0, "\(printed.output)")
        #expect(printed.output == "Cassette: recorded 2 interactions into \(asked.path) (a new cassette)\n")

        let quiet = try ChildProcess.run(
            "CassetteSaveCheck", ["announce", folder.file("quiet.json").path], environment: ["CASSETTE_SUMMARY": "0"])
        #expect(quiet.status == 0)
        #expect(quiet.output == "")
        #expect(FileManager.default.fileExists(atPath: folder.file("quiet.json").path))
    }
    #endif
}
