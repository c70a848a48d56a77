import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The set-up most runtime tests share: a scratch folder with a cassette file in it, a loopback
/// server to record from, and tapes opened on that file — one per phase (record, then replay).
/// Everything is cleaned up when the test's body returns or throws: tapes still in use are
/// ejected, the server stopped, the folder removed.
///
/// ```swift
/// try await withScratchTape { scratch in
///     let recording = try scratch.tape(mode: .once)
///     _ = await Fetch.get(scratch.server.baseURL + "/json", on: recording.session)
///     try recording.eject()
///     let replaying = try scratch.tape(mode: .none)
///     …
/// }
/// ```
public final class ScratchTape: @unchecked Sendable {
    /// The folder, for other files the test writes.
    public let folder: ScratchFolder
    /// The cassette the tapes are opened on (not created until a tape saves it).
    public let file: URL
    /// The loopback server to record from.
    public let server: LoopbackServer
    private let opened = NSLock()
    private var tapes: [Tape] = []

    init(cassette name: String) throws {
        folder = try ScratchFolder()
        file = folder.file(name)
        server = try LoopbackServer()
    }

    /// A tape on ``file``, with no environment variables (`CASSETTE_RECORD_MODE` and `CI` do not
    /// change `mode`): ejected at the end if the test did not eject it. Its warnings stay in its
    /// report (``Tape/Report/warnings``), where a test that provokes them reads them, instead of
    /// adding expected noise to the output of `swift test`.
    public func tape(mode: RecordMode = .once, matching: RequestMatching = .default, options: Tape.Options = Tape.Options()) throws -> Tape
    {
        let tape = try Tape(file: file, mode: mode, matching: matching, options: options.quiet, environment: .tests)
        opened.lock()
        tapes.append(tape)
        opened.unlock()
        return tape
    }

    /// Another file in the scratch folder.
    public func file(_ name: String) -> URL { folder.file(name) }

    /// The scratch folder's URL.
    public var url: URL { folder.url }

    /// `server.baseURL + path`.
    public func url(_ path: String) -> String { server.baseURL + path }

    /// `request` three ways through `style`, as a differential test compares them: live (a plain
    /// ephemeral session), recorded into `cassette` (mode `once`), then replayed from it with the
    /// recorded latency; `elapsed` is the replay's wall time.
    public func liveRecordedReplayed(
        _ request: URLRequest, into cassette: URL, style: FetchStyle
    ) async throws -> (live: Fetched, recorded: Fetched, replayed: Fetched, elapsed: TimeInterval) {
        let live = await Fetch.run(request, on: URLSession(configuration: .ephemeral), style: style)
        let recorder = try Tape(file: cassette, mode: .once, environment: .tests)
        let recorded = await Fetch.run(request, on: recorder.session, style: style)
        _ = try recorder.eject()
        let player = try Tape(file: cassette, mode: .none, options: .init(latency: .recorded), environment: .tests)
        let started = Date()
        let replayed = await Fetch.run(request, on: player.session, style: style)
        let elapsed = Date().timeIntervalSince(started)
        _ = try player.eject()
        return (live, recorded, replayed, elapsed)
    }

    func tearDown() {
        opened.lock()
        let open = tapes
        tapes = []
        opened.unlock()
        for tape in open { _ = try? tape.eject() }
        server.stop()
        folder.remove()
    }
}

/// Runs `body` with a ``ScratchTape`` (a cassette file named `cassette` in a scratch folder, and
/// a loopback server), and cleans all of it up afterwards.
@discardableResult
public func withScratchTape<Result>(cassette: String = "scratch.json", _ body: (ScratchTape) async throws -> Result) async throws -> Result
{
    let scratch = try ScratchTape(cassette: cassette)
    defer { scratch.tearDown() }
    return try await body(scratch)
}

/// ``withScratchTape(cassette:_:)`` for a test that is not `async`.
@discardableResult
public func withScratchTape<Result>(cassette: String = "scratch.json", _ body: (ScratchTape) throws -> Result) throws -> Result {
    let scratch = try ScratchTape(cassette: cassette)
    defer { scratch.tearDown() }
    return try body(scratch)
}

extension Tape.Options {
    /// These options with the tape's warnings kept in its report (``Tape/Report/warnings``)
    /// instead of also written to standard error: for a test that provokes warnings and reads
    /// them there, so `swift test` shows failures, not expected noise.
    public var quiet: Tape.Options {
        var options = self
        options.announcesWarnings = false
        return options
    }
}
