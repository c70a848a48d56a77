import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Download tasks on Linux: FoundationNetworking gives a download answered by a URLProtocol no
/// file, and its async and delegate paths would crash on the missing one (docs/Architecture.md, "Linux facts"). Cassette
/// fails them with a clear error instead — recording and replaying, through every API — and the
/// process lives on. On Apple platforms the loading system writes the file: a download records
/// and replays as it runs live.
@Suite struct DownloadTaskTests {
    #if canImport(FoundationNetworking)
    static let advice = "Use data(for:) or a data task and write the body to a file yourself"

    @Test(arguments: TaskCall.allCases)
    func downloadsFailClearlyWhileRecordingAndSendNothing(call: TaskCall) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("downloads.json")
            let tape = try Tape(file: file, mode: .once, environment: .tests)
            let configuration = URLSessionConfiguration.ephemeral
            tape.configure(configuration)

            let observed = await TaskRun.observe(
                .download(URLRequest(url: URL(string: server.baseURL + "/bytes/2048")!)),
                call: call, configuration: configuration)
            #expect(observed.errorDomain == NSURLErrorDomain && observed.errorCode == URLError.Code.cannotCreateFile.rawValue)
            #expect(
                observed.errorDescription?.hasPrefix(
                    "Cassette cannot complete the download task for GET \(server.baseURL)/bytes/2048 on Linux") == true)
            #expect(observed.errorDescription?.contains(Self.advice) == true)
            #expect(observed.status == nil && observed.body.isEmpty)
            if call != .async {
                #expect(observed.events == (call == .delegate ? ["complete NSURLErrorDomain -3000"] : []))
            }
            #expect(server.received.isEmpty, "nothing may reach the server")
            let report = try tape.eject()
            #expect(report.recorded == 0)
            #expect(try CassetteFile.read(file).interactions.isEmpty)
        }
    }

    @Test(arguments: TaskCall.allCases)
    func downloadsFailClearlyWhenReplaying(call: TaskCall) async throws {
        try await withScratchTape { scratch in
            let file = scratch.file("downloads.json")
            try Data(
                #"{"version": 1, "interactions": [{"request": {"method": "GET", "url": "https://files.example.com/report.pdf"}, "response": {"status": 200, "body": {"text": "%PDF"}}}]}"#
                    .utf8
            ).write(to: file)
            let tape = try Tape(file: file, mode: .none, environment: .tests)
            let configuration = URLSessionConfiguration.ephemeral
            tape.configure(configuration)

            let observed = await TaskRun.observe(
                .download(URLRequest(url: URL(string: "https://files.example.com/report.pdf")!)),
                call: call, configuration: configuration)
            #expect(observed.errorCode == URLError.Code.cannotCreateFile.rawValue)
            #expect(observed.errorDescription?.contains(Self.advice) == true)
            // The same request as a data task replays: the advice works.
            let (data, response) = try await URLSession(configuration: configuration).data(
                from: URL(string: "https://files.example.com/report.pdf")!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200 && data == Data("%PDF".utf8))
            _ = try tape.eject()
        }
    }
    #else
    /// Apple platforms: a download live, recorded and replayed offline gives the caller the same
    /// file, response and delegate calls, through every API (checklist row 11).
    @Test(arguments: TaskCall.allCases)
    func downloadsRecordAndReplayAsLive(call: TaskCall) async throws {
        try await withScratchTape { scratch in
            let request = URLRequest(url: try #require(URL(string: scratch.server.baseURL + "/bytes/2048")))
            let live = await TaskRun.observe(.download(request), call: call, configuration: .ephemeral)
            #expect(live.status == 200 && live.errorCode == nil)
            #expect(live.body == Data((0..<2048).map { UInt8($0 % 251) }), "the file holds the bytes sent")

            let file = scratch.file("downloads.json")
            var outcomes: [Observed] = []
            for mode in [RecordMode.once, .none] {
                let tape = try Tape(file: file, mode: mode, environment: .tests)
                let configuration = URLSessionConfiguration.ephemeral
                tape.configure(configuration)
                outcomes.append(await TaskRun.observe(.download(request), call: call, configuration: configuration))
                _ = try tape.eject()
            }
            #expect(outcomes[0].sameOutcome(as: live), "recorded, \(call): \(outcomes[0])")
            #expect(outcomes[1].sameOutcome(as: live), "replayed, \(call): \(outcomes[1])")
            #expect(try CassetteFile.read(file).interactions.first?.response?.body.data == live.body)
        }
    }
    #endif
}
