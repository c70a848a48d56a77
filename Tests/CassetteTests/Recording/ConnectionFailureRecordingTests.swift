import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A recording made while a server cannot be reached does not silently become the truth: the
/// caller gets the error as live, the cassette does not keep it, and the report says so.
@Suite struct ConnectionFailureRecordingTests {
    /// A scratch folder, a loopback server that answers, and a port that refuses (held until torn down).
    struct Site {
        let scratch: ScratchFolder
        let server: LoopbackServer
        let closed: ClosedPort

        init() throws {
            scratch = try ScratchFolder()
            server = try LoopbackServer()
            closed = try ClosedPort()
        }

        func tearDown() {
            server.stop()
            scratch.remove()
            withExtendedLifetime(closed) {}
        }
    }

    @Test(arguments: FetchStyle.allCases)
    func aRefusedConnectionReachesTheCallerButIsNotSaved(style: FetchStyle) async throws {
        let site = try Site()
        defer { site.tearDown() }
        let (scratch, server, closed) = (site.scratch, site.server, site.closed)

        // A new cassette in mode once, one request answered and one refused: the answered one is saved.
        let file = scratch.file("mixed.json")
        let tape = try Tape(file: file, mode: .once, options: Tape.Options().quiet, environment: .tests)
        let session = Fetch.session(of: tape, style: style)
        let answered = await Fetch.get(server.baseURL + "/status/200", on: session, style: style)
        let refused = await Fetch.get(closed.baseURL + "/users", on: session, style: style)
        let report = try tape.eject()
        #expect(answered.status == 200)
        #expect(refused.errorCode == .cannotConnectToHost)
        #expect(report.recorded == 1 && report.saved)
        #expect(
            report.warnings == [
                "GET \(closed.baseURL)/users could not connect (cannotConnectToHost (-1004)) while recording \(file.path); "
                    + "the caller got the error, but it was not saved, so that a recording made offline does not replay the outage. Record "
                    + "again when the server can be reached, or set Tape.Options(savesConnectionFailures: true) to keep such errors."
            ])
        let saved = try CassetteFormat.json.decode(Data(contentsOf: file))
        #expect(saved.interactions.map(\.request.url) == [server.baseURL + "/status/200"])
    }

    @Test func aRecordingThatCouldNotConnectCreatesNoCassette() async throws {
        let site = try Site()
        defer { site.tearDown() }
        let (scratch, closed) = (site.scratch, site.closed)
        let file = scratch.file("offline.json")
        let tape = try Tape(file: file, mode: .once, options: Tape.Options().quiet, environment: .tests)
        let refused = await Fetch.get(closed.baseURL + "/feed", on: tape.session)
        let report = try tape.eject()
        #expect(refused.errorCode == .cannotConnectToHost)
        #expect(!report.saved && !FileManager.default.fileExists(atPath: file.path), "the next run must record again, not replay nothing")
        #expect(
            report.warnings.last == "cassette \(file.path) was not saved: 1 request could not connect, so the recording is "
                + "incomplete. Record again when the servers can be reached.")
    }

    @Test func reRecordingWhileAServerIsDownLeavesTheCassetteAsItWas() async throws {
        let site = try Site()
        defer { site.tearDown() }
        let (scratch, server, closed) = (site.scratch, site.server, site.closed)
        let file = scratch.file("kept.json")
        let first = try Tape(file: file, mode: .once, options: Tape.Options().quiet, environment: .tests)
        _ = await Fetch.get(server.baseURL + "/status/200", on: first.session)
        try first.eject()
        let before = try Data(contentsOf: file)

        let again = try Tape(file: file, mode: .all, options: Tape.Options().quiet, environment: .tests)
        _ = await Fetch.get(server.baseURL + "/status/200", on: again.session)
        _ = await Fetch.get(closed.baseURL + "/other", on: again.session)
        let report = try again.eject()
        #expect(!report.saved)
        #expect(try Data(contentsOf: file) == before)
        #expect(
            report.warnings.last?.hasSuffix(
                "could not connect, so the recording is incomplete; the file is unchanged. "
                    + "Record again when the servers can be reached.") == true)
    }

    @Test func anOutageIsSavedWhenAskedFor() async throws {
        let site = try Site()
        defer { site.tearDown() }
        let (scratch, closed) = (site.scratch, site.closed)
        let file = scratch.file("outage.json")
        let tape = try Tape(file: file, mode: .once, options: .init(savesConnectionFailures: true), environment: .tests)
        _ = await Fetch.get(closed.baseURL + "/feed", on: tape.session)
        let report = try tape.eject()
        #expect(report.warnings.isEmpty && report.saved)
        let saved = try CassetteFormat.json.decode(Data(contentsOf: file))
        #expect(saved.interactions.first?.error?.code.name == "cannotConnectToHost")
    }
}
