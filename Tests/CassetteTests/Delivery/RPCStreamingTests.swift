import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A gRPC-Web server stream as a client on `URLSession` receives one (connect-swift's
/// `URLSessionHTTPClient` reads it through a data delegate): recorded message by message, each
/// with its arrival, kept in the cassette as envelopes, and replayed with the recorded gaps to a
/// delegate and whole to callers of the whole body — the same bytes live, recorded and replayed.
@Suite(.timingIsolated) struct RPCStreamingTests {
    static let count = 5
    static let gap = 0.06
    static let path = "/grpc-web/\(count)/\(Int(gap * 1000))"
    static let messages = (0..<count).map(LoopbackRoutes.grpcWebMessage) + [LoopbackRoutes.grpcWebTrailers]

    @Test func aServerStreamIsRecordedMessageByMessageAndReplayedOnTime() async throws {
        try await withScratchTape { scratch in
            let url = scratch.server.baseURL + Self.path
            let file = scratch.file("stream.json")

            let live = await Fetch.get(url, on: Fetch.delegateSession(configuredBy: { _ in }), style: .delegate)
            #expect(live.status == 200 && live.body == Self.messages.reduce(Data(), +))
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let recorded = await Fetch.get(url, on: Fetch.delegateSession(configuredBy: recorder.configure), style: .delegate)
            _ = try recorder.eject()
            #expect(recorded.sameOutcome(as: live), "recorded \(recorded), live \(live)")

            // In the file: one chunk per envelope, each with its arrival, the messages field by field.
            let stream = try #require(try CassetteFile.read(file).interactions.first?.response?.stream)
            #expect(stream.chunks.map(\.data) == Self.messages)
            let offsets = stream.chunks.map(\.at)
            #expect(offsets == offsets.sorted())
            #expect(offsets[Self.count - 1] - offsets[0] >= Double(Self.count - 1) * Self.gap * 0.9, "\(offsets)")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(#""stream": {"#) && text.contains(#""envelopes": ["#), "\(text)")
            #expect(text.contains(#""proto": [{ "field": 1, "varint": 4 }, { "field": 2, "text": "m4" }] },"#), "\(text)")
            #expect(text.contains(#""trailers": ["grpc-status: 0", "grpc-message: "] }"#), "\(text)")

            // Replayed with the recorded latency: each message when it arrived, the same bytes.
            let player = try Tape(file: file, mode: .none, options: .init(latency: .recorded), environment: .tests)
            let replayed = await Fetch.get(url, on: Fetch.delegateSession(configuredBy: player.configure), style: .delegate)
            _ = try player.eject()
            #expect(replayed.sameOutcome(as: live), "replayed \(replayed), live \(live)")
            #expect(replayed.pieces == Self.messages.map(\.count))
            for (arrival, offset) in zip(replayed.pieceTimes, offsets) {
                #expect(TimingIsolation.isOnTime(arrival, recorded: offset), "a message arrived at \(arrival) s, recorded at \(offset) s")
            }
        }
    }

    @Test(arguments: [FetchStyle.async, .completionHandler])
    func callersOfTheWholeBodyGetTheSameCallLiveRecordedAndReplayed(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let url = try #require(URL(string: scratch.server.baseURL + Self.path))
            let file = scratch.file("whole.json")
            let (live, recorded, replayed, elapsed) = try await scratch.liveRecordedReplayed(URLRequest(url: url), into: file, style: style)

            #expect(live.status == 200 && live.body == Self.messages.reduce(Data(), +))
            #expect(live.headers["Content-Type"] == "application/grpc-web+proto")
            #expect(recorded.sameOutcome(as: live), "recorded \(recorded), live \(live)")
            #expect(replayed.sameOutcome(as: live), "replayed \(replayed), live \(live)")
            let stream = try #require(try CassetteFile.read(file).interactions.first?.response?.stream)
            #expect(stream.chunks.count == Self.count + 1)
            #expect(elapsed >= (stream.chunks.last?.at ?? 0) * 0.9, "the whole stream came after \(elapsed) s")
        }
    }

    static let cutPath = "/grpc-web-cut/3/20"
    /// What `/grpc-web-cut/3/20` sends before it closes: three messages and 7 bytes of a fourth.
    static let cutBytes = (0..<3).map(LoopbackRoutes.grpcWebMessage).reduce(Data(), +) + LoopbackRoutes.grpcWebMessage(3).prefix(7)

    /// How a caller learns that the connection closed in the middle of a chunked body. Apple:
    /// `networkConnectionLost` ("a client or server connection was severed in the middle of an
    /// in-progress load", URLError.Code's documentation). Linux: FoundationNetworking reports
    /// libcurl's error for a transfer cut short as `unknown` (as EndToEndTests sees for a body
    /// closed early).
    static var cutStreamError: URLError.Code {
        #if canImport(FoundationNetworking)
        return .unknown
        #else
        return .networkConnectionLost
        #endif
    }

    /// The cassette keeps a stream cut in the middle of an envelope as it arrived: the messages,
    /// the cut bytes as the last element, and the error.
    static func expectCutKept(in file: URL) throws {
        let interaction = try #require(try CassetteFile.read(file).interactions.first)
        #expect(interaction.error?.code.rawValue == cutStreamError.rawValue)
        let chunks = try #require(interaction.response?.stream?.chunks)
        #expect(chunks.map(\.data).reduce(Data(), +) == cutBytes)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains(#""cut": "\#(LoopbackRoutes.grpcWebMessage(3).prefix(7).base64EncodedString())" }"#), "\(text)")
    }

    /// A stream the server cuts in the middle of an envelope: what a caller of the whole body
    /// sees live, it sees recorded and replayed.
    @Test(arguments: [FetchStyle.async, .completionHandler])
    func aStreamCutShortReachesCallersOfTheWholeBodyAsItWasCut(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let url = try #require(URL(string: scratch.server.baseURL + Self.cutPath))
            let file = scratch.file("cut-\(style).json")
            let (live, recorded, replayed, _) = try await scratch.liveRecordedReplayed(URLRequest(url: url), into: file, style: style)
            #expect(live.errorCode == Self.cutStreamError, "\(live)")
            #expect(recorded.sameOutcome(as: live), "recorded \(recorded), live \(live)")
            #expect(replayed.sameOutcome(as: live), "replayed \(replayed), live \(live)")
            try Self.expectCutKept(in: file)
        }
    }

    /// The same stream to a data delegate (connect-swift's way): every byte that arrived before
    /// the loss, then the error — live, recorded and replayed alike.
    @Test func aStreamCutShortReachesADelegateAsItWasCut() async throws {
        try await withScratchTape { scratch in
            let url = scratch.server.baseURL + Self.cutPath
            let file = scratch.file("cut-delegate.json")
            let live = await Fetch.get(url, on: Fetch.delegateSession(configuredBy: { _ in }), style: .delegate)
            #expect(live.status == 200 && live.body == Self.cutBytes && live.errorCode == Self.cutStreamError, "\(live)")
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let recorded = await Fetch.get(url, on: Fetch.delegateSession(configuredBy: recorder.configure), style: .delegate)
            _ = try recorder.eject()
            #expect(recorded.sameOutcome(as: live), "recorded \(recorded), live \(live)")
            try Self.expectCutKept(in: file)
            let player = try Tape(file: file, mode: .none, options: .init(latency: .recorded), environment: .tests)
            let replayed = await Fetch.get(url, on: Fetch.delegateSession(configuredBy: player.configure), style: .delegate)
            _ = try player.eject()
            #expect(replayed.sameOutcome(as: live), "replayed \(replayed), live \(live)")
            #expect(replayed.pieces.reduce(0, +) == Self.cutBytes.count, "\(replayed.pieces)")
        }
    }

    /// Through the replay server, for a client that does not use a tape's session: each message
    /// passed on as the upstream sends it, kept as envelopes with their times, and replayed so.
    @Test func aServerStreamThroughTheServerIsRecordedAndReplayedAlike() async throws {
        try await withScratchTape { scratch in
            let upstream = scratch.server
            let upstreamURL = try #require(URL(string: upstream.baseURL))
            let file = scratch.file("proxied-grpc-web.json")
            let client = Fetch.delegateSession(configuredBy: { _ in })

            let recorder = try Tape(file: file, mode: .once, options: .init(redaction: .none), environment: .tests)
            let proxy = try recorder.serve(.init(upstream: upstreamURL))
            let live = await Fetch.get(proxy.baseURL.absoluteString + Self.path, on: client, style: .delegate)
            _ = try recorder.eject()
            upstream.stop()
            #expect(live.status == 200 && live.body == Self.messages.reduce(Data(), +))
            #expect(
                (live.pieceTimes.last ?? 0) - (live.pieceTimes.first ?? 0) >= Double(Self.count - 1) * Self.gap * 0.9, "\(live.pieceTimes)")
            let stream = try #require(try CassetteFile.read(file).interactions.first?.response?.stream)
            #expect(stream.chunks.map(\.data) == Self.messages)
            #expect(try String(contentsOf: file, encoding: .utf8).contains(#""envelopes": ["#))

            let player = try Tape(file: file, mode: .none, options: .init(latency: .recorded, redaction: .none), environment: .tests)
            let server = try player.serve(.init(upstream: upstreamURL))
            let replayed = await Fetch.get(server.baseURL.absoluteString + Self.path, on: client, style: .delegate)
            _ = try player.eject()
            #expect(replayed.status == 200 && replayed.body == live.body)
            #expect(replayed.headers["Content-Type"] == "application/grpc-web+proto")
            #expect((replayed.pieceTimes.last ?? 0) >= (stream.chunks.last?.at ?? 0) * 0.9, "\(replayed.pieceTimes)")
        }
    }
}
