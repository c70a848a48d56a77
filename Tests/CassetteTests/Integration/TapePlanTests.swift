import Foundation
import Testing

@testable import Cassette

/// What opening a tape means, worked out without a disk (``TapePlan`` against one in memory): every
/// row of the README's record-mode table, and the `CI`, `CASSETTE_RECORD_MODE`, `CASSETTE_LIVE`,
/// staleness, layered-cassette and bundle cases.
@Suite struct TapePlanTests {
    static let file = URL(fileURLWithPath: "/cassettes/Users/fetch.json")
    static let beneath = URL(fileURLWithPath: "/cassettes/Common/signed-in.json")
    static let now = Date(timeIntervalSince1970: 2_000_000_000)

    static func interaction(_ path: String, recordedAt: Date? = nil) -> Interaction {
        Interaction(recordedAt: recordedAt, request: .init(url: "https://api.example.com\(path)"), response: .init(status: 200))
    }

    /// A disk holding `files`, which counts what it reads.
    final class MemoryDisk: @unchecked Sendable {
        var files: [URL: [Interaction]]
        var reads: [URL] = []

        init(_ files: [URL: [Interaction]]) { self.files = files }

        var disk: TapePlan.Disk {
            TapePlan.Disk(
                exists: { self.files[$0] != nil },
                read: { url in
                    // A file that is not there is not read: the plan may try, then asks whether it exists.
                    guard let interactions = self.files[url] else { throw CassetteError.cassetteNotFound(file: url.path, mode: .none) }
                    self.reads.append(url)
                    return CassetteDocument(interactions: interactions)
                })
        }
    }

    static func plan(
        _ mode: RecordMode, present: Bool, environment: [String: String] = [:], options: Tape.Options = Tape.Options(),
        inBundle: Bool = false, stored: [Interaction] = [interaction("/users/42")]
    ) throws -> (TapePlan, reads: [URL]) {
        var files: [URL: [Interaction]] = [Self.beneath: [interaction("/session")]]
        if present { files[Self.file] = stored }
        let memory = MemoryDisk(files)
        let plan = try TapePlan(
            file: Self.file, requested: mode, options: options, environment: environment, inBundle: inBundle, now: Self.now,
            disk: memory.disk)
        return (plan, memory.reads)
    }

    /// The README's table: mode × cassette missing / present.
    struct Row: Sendable, CustomStringConvertible {
        var mode: RecordMode
        var present: Bool
        var records: Bool
        var replays: Bool
        var reads: Bool
        var description: String { "\(mode), cassette \(present ? "present" : "missing")" }
    }

    static let table: [Row] = [
        Row(mode: .once, present: false, records: true, replays: true, reads: false),
        Row(mode: .once, present: true, records: false, replays: true, reads: true),
        Row(mode: .newEpisodes, present: false, records: true, replays: true, reads: false),
        Row(mode: .newEpisodes, present: true, records: true, replays: true, reads: true),
        Row(mode: .none, present: true, records: false, replays: true, reads: true),
        Row(mode: .all, present: false, records: true, replays: false, reads: false),
        // Read for its scenarios alone, which it keeps (`ScenarioRerecordingTests`): this one has none.
        Row(mode: .all, present: true, records: true, replays: false, reads: true),
    ]

    @Test(arguments: table)
    func theRecordModeTable(_ row: Row) throws {
        let (plan, reads) = try Self.plan(row.mode, present: row.present)
        #expect(plan.mode == row.mode)
        #expect(plan.recordsNewRequests == row.records)
        #expect(plan.replays == row.replays)
        #expect(plan.fileExisted == row.present)
        #expect(reads == (row.reads ? [Self.file] : []))
        #expect(plan.replayed.map(\.request.url) == (row.reads && row.replays ? ["https://api.example.com/users/42"] : []))
        #expect(plan.live == false)
    }

    @Test func noneWithTheCassetteMissingThrows() {
        #expect(throws: CassetteError.cassetteNotFound(file: Self.file.path, mode: .none)) { try Self.plan(.none, present: false) }
    }

    @Test func ciMeansNoneAndTheEnvironmentModeWins() throws {
        #expect(try Self.plan(.once, present: true, environment: ["CI": "true"]).0.mode == .none)
        #expect(try Self.plan(.all, present: true, environment: ["CI": "1"]).0.recordsNewRequests == false)
        #expect(try Self.plan(.once, present: true, environment: ["CI": "false"]).0.mode == .once)
        #expect(throws: CassetteError.cassetteNotFound(file: Self.file.path, mode: .none)) {
            try Self.plan(.once, present: false, environment: ["CI": "true"])
        }
        #expect(try Self.plan(.none, present: true, environment: ["CASSETTE_RECORD_MODE": "all", "CI": "1"]).0.mode == .all)
        #expect(throws: CassetteError.self) { try Self.plan(.once, present: true, environment: ["CASSETTE_RECORD_MODE": "sometimes"]) }
    }

    /// Live, a cassette's scenarios (its own and those beneath) still replay; nothing else does,
    /// and nothing is recorded or judged.
    @Test func theLiveSwitchReplaysOnlyScenarios() throws {
        var down = Self.interaction("/feed")
        down.scenario = "status 503"
        var slow = Self.interaction("/common")
        slow.scenario = "a slow answer"
        let disk = MemoryDisk([Self.file: [Self.interaction("/users"), down], Self.beneath: [slow, Self.interaction("/other")]])
        var options = Tape.Options(staleness: .fail(after: 1))
        options.underlyingCassettes = [Self.beneath]
        for mode in [RecordMode.once, .none, .all, .newEpisodes] {
            let plan = try TapePlan(
                file: Self.file, requested: mode, options: options, environment: ["CASSETTE_LIVE": "1"], now: Self.now, disk: disk.disk)
            #expect(plan.live && plan.replays && !plan.recordsNewRequests)
            #expect(plan.replayed == [down, slow])
            #expect(plan.ownCount == 1)
            #expect(plan.layerEnds == [1, 2])
            #expect(plan.staleJudgment == nil)
        }
    }

    @Test func theLiveSwitchReadsNothingAndRecordsNothing() throws {
        for mode in [RecordMode.once, .none, .all, .newEpisodes] {
            let (plan, reads) = try Self.plan(
                mode, present: false, environment: ["CASSETTE_LIVE": "1"], options: Tape.Options(staleness: .fail(after: 1)))
            #expect(plan.live)
            #expect(!plan.replays && !plan.recordsNewRequests)
            #expect(reads == [])
            #expect(plan.staleJudgment == nil)
        }
    }

    /// Every on/off switch takes 1/true/yes/on and 0/false/no/off, any case; any other value is an
    /// error that names what it takes (`CASSETTE_LIVE=on` was silently not live).
    @Test func switchesAreExact() throws {
        #expect(try Self.plan(.none, present: false, environment: ["CASSETTE_LIVE": "on"]).0.live)
        #expect(try Self.plan(.none, present: false, environment: ["CASSETTE_LIVE": "YES"]).0.live)
        #expect(try !Self.plan(.once, present: true, environment: ["CASSETTE_LIVE": "off"]).0.live)
        #expect(try !Self.plan(.once, present: true, environment: ["CASSETTE_LIVE": ""]).0.live)
        for (name, value) in [
            ("CASSETTE_LIVE", "2"), ("CASSETTE_SUMMARY", "maybe"), ("CASSETTE_SAVE_ON_FAILURE", "y"), ("CASSETTE_WRITE_MISSES", "html"),
            ("CASSETTE_REPORT_HTML", "page"),
        ] {
            let expected = CassetteError.invalidEnvironmentValue(
                name: name, value: value, accepted: "1, true, yes or on; 0, false, no or off")
            #expect(throws: expected) { try Self.plan(.once, present: true, environment: [name: value]) }
        }
        #expect(
            "\(CassetteError.invalidEnvironmentValue(name: "CASSETTE_LIVE", value: "2", accepted: EnvironmentSwitch.accepted))"
                == "CASSETTE_LIVE=2 is not a value Cassette takes: use 1, true, yes or on; 0, false, no or off (or leave it unset)")
    }

    @Test func aStaleCassetteReRecordsExceptOnCI() throws {
        let old = [Self.interaction("/users/42", recordedAt: Self.now - 40 * 24 * 3600)]
        let monthly = Tape.Options(staleness: .reRecord(after: 30 * 24 * 3600, onCI: .fail))
        let (local, _) = try Self.plan(.once, present: true, options: monthly, stored: old)
        #expect(local.mode == .all)
        #expect(local.replayed.isEmpty && local.recordsNewRequests && !local.replays)
        #expect(local.staleJudgment == nil)

        let (ci, _) = try Self.plan(.once, present: true, environment: ["CI": "1"], options: monthly, stored: old)
        #expect(ci.mode == .none)
        #expect(ci.replayed.count == 1)
        #expect(ci.staleJudgment?.fails == true)
        #expect(ci.staleJudgment?.note == " (On CI — record mode none, or CI set — a stale cassette is never re-recorded.)")

        let fresh = [Self.interaction("/users/42", recordedAt: Self.now - 24 * 3600)]
        #expect(try Self.plan(.once, present: true, options: monthly, stored: fresh).0.mode == .once)
        let warned = try Self.plan(.once, present: true, options: Tape.Options(staleness: .warn(after: 1)), stored: old).0
        #expect(warned.mode == .once && warned.staleJudgment?.fails == false)
    }

    @Test func cassettesBeneathReplayAfterTheTapesOwn() throws {
        var options = Tape.Options()
        options.underlyingCassettes = [Self.beneath]
        let (plan, reads) = try Self.plan(.once, present: true, options: options)
        #expect(plan.replayed.map(\.request.url) == ["https://api.example.com/users/42", "https://api.example.com/session"])
        #expect(plan.layerEnds == [1, 2])
        #expect(plan.ownCount == 1)
        #expect(reads == [Self.file, Self.beneath])
        // Mode all replays nothing, beneath included.
        #expect(try Self.plan(.all, present: true, options: options).0.replayed.isEmpty)
    }

    @Test func aBundlesCassetteOnlyReplays() throws {
        #expect(throws: CassetteError.readOnlyCassette(file: Self.file.path, mode: .all)) {
            try Self.plan(.all, present: true, inBundle: true)
        }
        #expect(try Self.plan(.once, present: true, inBundle: true).0.replays)
    }
}
