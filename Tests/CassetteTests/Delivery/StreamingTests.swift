import Cassette
import CassetteTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streamed responses: a `text/event-stream` recorded event by event with each arrival, replayed
/// with the recorded gaps (scaled, or all at once under `instant`) to a delegate, and whole to
/// callers that only see a whole body (docs/Architecture.md, "Linux facts"); hand edits that cut, slow down or shorten a
/// stream; an OpenAI-style chat completion stream read by a client written from the specification.
@Suite(.timingIsolated) struct StreamingTests {
    static let eventCount = 20
    static let gap = 0.05

    @Test func twentyEventsRecordedLiveReplayWithTheirRecordedTiming() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let url = server.baseURL + "/sse/\(Self.eventCount)/\(Int(Self.gap * 1000))"
            let file = scratch.file("sse.json")

            // Live, without Cassette, then recorded: the same events, about 50 ms apart.
            let live = await Fetch.get(url, on: Fetch.delegateSession(configuredBy: { _ in }), style: .delegate)
            let liveEvents = EventStreamClient.events(of: live)
            #expect(liveEvents.map(\.data) == (0..<Self.eventCount).map { #"{"index":\#($0),"token":"t\#($0)"}"# })
            let recorder = try Tape(file: file, mode: .once, environment: .tests)
            let recorded = await Fetch.get(url, on: Fetch.delegateSession(configuredBy: recorder.configure), style: .delegate)
            _ = try recorder.eject()
            #expect(recorded.sameOutcome(as: live))
            #expect(EventStreamClient.events(of: recorded).map(\.data) == liveEvents.map(\.data))

            // In the file: one chunk per event, each with its arrival, in the order they came.
            let interaction = try #require(try CassetteFile.read(file).interactions.first)
            let stream = try #require(interaction.response?.stream)
            #expect(stream.chunks.map(\.data) == (0..<Self.eventCount).map(LoopbackRoutes.sseEvent))
            #expect(stream.chunks.allSatisfy { $0.event != nil })
            let offsets = stream.chunks.map(\.at)
            #expect(offsets == offsets.sorted())
            let span = try #require(offsets.last) - offsets[0]
            #expect(span >= Double(Self.eventCount - 1) * Self.gap * 0.9, "\(offsets)")
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(#""events": ["#) && text.contains(#""id": "19", "data": { "index": 19, "token": "t19" } }"#), "\(text)")

            // Replayed with the recorded latency: each event when it arrived, the same bytes.
            let player = try Tape(file: file, mode: .none, options: .init(latency: .recorded), environment: .tests)
            let replayed = await Fetch.get(url, on: Fetch.delegateSession(configuredBy: player.configure), style: .delegate)
            #expect(replayed.sameOutcome(as: live))
            let replayedEvents = EventStreamClient.events(of: replayed)
            #expect(replayedEvents.map(\.data) == liveEvents.map(\.data))
            for (event, offset) in zip(replayedEvents, offsets) {
                #expect(
                    TimingIsolation.isOnTime(event.at, recorded: offset),
                    "event \(event.lastEventID) arrived at \(event.at) s, recorded at \(offset) s")
            }
            #expect(replayed.pieces.count == Self.eventCount)

            // Twice as fast, the gaps halve.
            let fast = try Tape(file: file, mode: .none, options: .init(latency: .scaled(0.5)), environment: .tests)
            let halved = EventStreamClient.events(
                of: await Fetch.get(url, on: Fetch.delegateSession(configuredBy: fast.configure), style: .delegate))
            #expect(halved.count == Self.eventCount)
            for (event, offset) in zip(halved, offsets) {
                #expect(
                    TimingIsolation.isOnTime(event.at, recorded: offset / 2),
                    "event \(event.lastEventID) arrived at \(event.at) s, recorded at \(offset) s")
            }

            // Instant: the whole stream at once.
            let instant = try Tape(file: file, mode: .none, environment: .tests)
            let started = Date()
            let atOnce = await Fetch.get(url, on: Fetch.delegateSession(configuredBy: instant.configure), style: .delegate)
            #expect(Date().timeIntervalSince(started) < 0.2 * TimingIsolation.scale)
            #expect(atOnce.sameOutcome(as: live))
            #expect(EventStreamClient.events(of: atOnce).count == Self.eventCount)
            for tape in [player, fast, instant] { _ = try tape.eject() }
        }
    }

    /// What recording keeps as a stream, whatever API the caller used: server-sent events always;
    /// another body only when it came with pauses and without a Content-Length.
    @Test func recordingKeepsEventsAlwaysAndOtherBodiesAsChunksOnlyWhenTheyPaused() async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let file = scratch.file("kinds.json")
            let tape = try Tape(file: file, mode: .once, environment: .tests)
            let paths = ["/slow-chunks/4/100", "/chunked/5", "/delay/100", "/sse/3/0"]
            var live: [Fetched] = []
            for path in paths { live.append(await Fetch.get(server.baseURL + path, on: tape.session, style: .async)) }
            _ = try tape.eject()
            let responses = try CassetteFile.read(file).interactions.map(\.response)
            #expect(responses.count == 4)

            let chunks = try #require(responses[0]?.stream?.chunks)
            #expect(chunks.map { String(decoding: $0.data, as: UTF8.self) } == ["chunk 0\n", "chunk 1\n", "chunk 2\n", "chunk 3\n"])
            // The server pauses 100 ms between chunks; a loaded machine delays one chunk and not the
            // next (an ASan run measured gaps of 103, 128 and 82 ms), so each gap is held to half the
            // pause and the whole to nine tenths of it.
            for (earlier, later) in zip(chunks, chunks.dropFirst()) { #expect(later.at - earlier.at >= 0.05, "\(chunks.map(\.at))") }
            #expect(try #require(chunks.last).at - (try #require(chunks.first)).at >= 0.27, "\(chunks.map(\.at))")
            #expect(responses[1]?.stream == nil && responses[1]?.body.data == live[1].body)  // chunked, but without a pause
            #expect(responses[2]?.stream == nil && responses[2]?.body.text == "delayed 100 ms")  // Content-Length
            #expect(responses[3]?.stream?.chunks.map(\.data) == (0..<3).map(LoopbackRoutes.sseEvent))  // events, however fast
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.contains(#""chunks": ["#) && text.contains(#""text": "chunk 0\n" }"#), "\(text)")

            // Replayed to a delegate with the recorded latency: four pieces, each when it was recorded.
            let player = try Tape(file: file, mode: .none, options: .init(latency: .recorded), environment: .tests)
            let replayed = await Fetch.get(
                server.baseURL + paths[0], on: Fetch.delegateSession(configuredBy: player.configure), style: .delegate)
            #expect(replayed.sameOutcome(as: live[0]))
            #expect(replayed.pieces == chunks.map(\.data.count))
            for (arrival, chunk) in zip(replayed.pieceTimes, chunks) {
                #expect(TimingIsolation.isOnTime(arrival, recorded: chunk.at), "a chunk arrived at \(arrival) s, recorded at \(chunk.at) s")
            }
            _ = try player.eject()
        }
    }

    /// Through the replay server as a recording proxy: a client outside the tape's session hears
    /// each event as the upstream sends it, the cassette keeps them as events, and the server
    /// replays them with their timing.
    @Test func aStreamRecordedThroughTheServerReachesItsClientAsItArrivesAndReplaysSo() async throws {
        try await withScratchTape { scratch in
            let upstream = scratch.server
            let upstreamURL = try #require(URL(string: upstream.baseURL))
            let file = scratch.file("proxied-sse.json")
            let gap = 0.1
            let client = Fetch.delegateSession(configuredBy: { _ in })

            let recorder = try Tape(file: file, mode: .once, options: .init(redaction: .none), environment: .tests)
            let proxy = try recorder.serve(.init(upstream: upstreamURL))
            let live = await Fetch.get(proxy.baseURL.absoluteString + "/sse/5/\(Int(gap * 1000))", on: client, style: .delegate)
            _ = try recorder.eject()
            upstream.stop()
            let liveEvents = EventStreamClient.events(of: live)
            #expect(liveEvents.map(\.lastEventID) == ["0", "1", "2", "3", "4"])
            // Passed on as they came: the last event about four gaps after the first, not all at the end.
            #expect((liveEvents.last?.at ?? 0) - (liveEvents.first?.at ?? 0) >= 4 * gap * 0.9, "\(liveEvents.map(\.at))")
            let stream = try #require(try CassetteFile.read(file).interactions.first?.response?.stream)
            #expect(stream.chunks.map(\.data) == (0..<5).map(LoopbackRoutes.sseEvent))

            let player = try Tape(file: file, mode: .none, options: .init(latency: .recorded, redaction: .none), environment: .tests)
            let server = try player.serve(.init(upstream: upstreamURL))
            let replayed = await Fetch.get(server.baseURL.absoluteString + "/sse/5/\(Int(gap * 1000))", on: client, style: .delegate)
            _ = try player.eject()
            #expect(replayed.body == live.body && replayed.status == 200)
            let replayedEvents = EventStreamClient.events(of: replayed)
            #expect(replayedEvents.count == 5)
            for (event, chunk) in zip(replayedEvents, stream.chunks) {
                #expect(
                    TimingIsolation.isOnTime(event.at, recorded: chunk.at),
                    "event \(event.lastEventID) arrived at \(event.at) s, recorded at \(chunk.at) s")
            }
        }
    }

    /// Completion handlers and `data(for:)` on Linux keep only the last piece a protocol delivers
    /// (docs/Architecture.md, "Linux facts"): they get the whole stream, once its last event is due.
    @Test(arguments: [FetchStyle.async, .completionHandler])
    func callersThatSeeOnlyTheWholeBodyGetItWhenTheStreamEnds(style: FetchStyle) async throws {
        let tape = try Tape(
            file: PackagePaths.examples.appendingPathComponent("chat-stream.json"), mode: .none,
            options: .init(latency: .recorded), environment: .tests)
        let started = Date()
        let fetched = await Fetch.run(try Self.chatRequest(), on: tape.session, style: style)
        let elapsed = Date().timeIntervalSince(started)
        #expect(fetched.status == 200 && fetched.errorCode == nil)
        #expect(Self.tokens(EventStreamClient.events(of: fetched)) == "Hello! How can I help you today?")
        #expect(elapsed >= 0.7 && elapsed < 0.722 + 0.5 * TimingIsolation.scale, "\(elapsed)")
        _ = try tape.eject()
    }

    /// Live, recorded and replayed (with the recorded latency) through `data(for:)` and a
    /// completion handler: the same status, header fields and bytes each time, the whole stream
    /// once it has ended, and a recording that still keeps the events with their arrivals.
    @Test(arguments: [FetchStyle.async, .completionHandler])
    func aStreamIsTheSameLiveRecordedAndReplayedForCallersOfTheWholeBody(style: FetchStyle) async throws {
        try await withScratchTape { scratch in
            let server = scratch.server
            let url = try #require(URL(string: server.baseURL + "/sse/5/60"))
            let file = scratch.file("whole.json")

            let (live, recorded, replayed, elapsed) = try await scratch.liveRecordedReplayed(URLRequest(url: url), into: file, style: style)

            #expect(live.status == 200 && live.body == Data((0..<5).map(LoopbackRoutes.sseEvent).joined()))
            #expect(recorded.sameOutcome(as: live), "recorded \(recorded), live \(live)")
            #expect(replayed.sameOutcome(as: live), "replayed \(replayed), live \(live)")
            let stream = try #require(try CassetteFile.read(file).interactions.first?.response?.stream)
            #expect(stream.chunks.count == 5)
            #expect(elapsed >= (stream.chunks.last?.at ?? 0) * 0.9, "the whole stream came after \(elapsed) s")
        }
    }

    // MARK: An OpenAI-style chat completion

    static func chatRequest() throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: "https://api.openai.com/v1/chat/completions")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer sk-test", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(#"{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"Say hello"}]}"#.utf8)
        return request
    }

    /// The text a chat client shows: each chunk's `choices[0].delta.content`, until `[DONE]`.
    static func tokens(_ events: [EventStreamClient.Event]) -> String {
        var text = ""
        for event in events {
            if event.data == "[DONE]" { break }
            let chunk = try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
            let delta = (chunk?["choices"] as? [[String: Any]])?.first?["delta"] as? [String: Any]
            text += delta?["content"] as? String ?? ""
        }
        return text
    }

    @Test func anOpenAIStyleStreamReplaysTokenByToken() async throws {
        let tape = try Tape(
            file: PackagePaths.examples.appendingPathComponent("chat-stream.json"), mode: .none,
            options: .init(latency: .recorded), environment: .tests)
        let fetched = await Fetch.run(try Self.chatRequest(), on: Fetch.delegateSession(configuredBy: tape.configure), style: .delegate)
        let events = EventStreamClient.events(of: fetched)
        #expect(events.count == 12)
        #expect(events.last?.data == "[DONE]")
        #expect(Self.tokens(events) == "Hello! How can I help you today?")
        let recorded = [0.412, 0.436, 0.471, 0.502, 0.538, 0.566, 0.601, 0.633, 0.66, 0.694, 0.721, 0.722]
        for (event, offset) in zip(events, recorded) {
            #expect(TimingIsolation.isOnTime(event.at, recorded: offset), "an event arrived at \(event.at) s, recorded at \(offset) s")
        }
        _ = try tape.eject()
    }

    /// The committed `chat-stream-cut.json` is `chat-stream.json` edited by hand: the events after
    /// the third deleted and `"error": { "code": "networkConnectionLost" }` added.
    @Test(arguments: [FetchStyle.delegate, .completionHandler])
    func aStreamCutByHandGivesItsEventsThenTheError(style: FetchStyle) async throws {
        let tape = try Tape(
            file: PackagePaths.examples.appendingPathComponent("chat-stream-cut.json"), mode: .none,
            options: .init(latency: .recorded), environment: .tests)
        let session = Fetch.session(of: tape, style: style)
        let fetched = await Fetch.run(try Self.chatRequest(), on: session, style: style)
        #expect(fetched.errorCode == .networkConnectionLost)
        if style == .delegate {
            let events = EventStreamClient.events(of: fetched)
            #expect(events.count == 3)
            #expect(Self.tokens(events) == "Hello!")
        } else {
            #expect(fetched.body.isEmpty)  // a completion handler gets the error and no data
        }
        _ = try tape.eject()
    }

    @Test func slowingAnEventDownAndDroppingDoneAreEditsToo() async throws {
        try await withScratchTape { scratch in
            var document = try CassetteFile.read(PackagePaths.examples.appendingPathComponent("chat-stream.json"))
            var stream = try #require(document.interactions[0].response?.stream)
            // Event 5 (" can") and every later one come 0.5 s later; the final [DONE] is gone.
            for index in 4..<stream.chunks.count { stream.chunks[index].at += 0.5 }
            stream.chunks.removeLast()
            document.interactions[0].response?.stream = stream
            let file = scratch.file("edited.json")
            try CassetteFile.write(document, to: file)

            let tape = try Tape(file: file, mode: .none, options: .init(latency: .recorded), environment: .tests)
            let fetched = await Fetch.run(
                try Self.chatRequest(), on: Fetch.delegateSession(configuredBy: tape.configure), style: .delegate)
            let events = EventStreamClient.events(of: fetched)
            #expect(fetched.errorCode == nil)
            #expect(events.count == 11)
            #expect(!events.contains { $0.data == "[DONE]" })
            #expect(Self.tokens(events) == "Hello! How can I help you today?")
            #expect(events[4].at - events[3].at >= 0.5, "\(events.map(\.at))")
            #expect(TimingIsolation.isOnTime(events[3].at, recorded: 0.502))
            _ = try tape.eject()
        }
    }
}
