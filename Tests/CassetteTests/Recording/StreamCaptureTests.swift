import Foundation
import Testing

@testable import Cassette

/// What recording keeps as a stream, decided from when each piece of a body arrived.
@Suite struct StreamCaptureTests {
    typealias Arrival = StreamCapture.Arrival

    static let timing = Interaction.Timing(firstByte: 0.1, duration: 1.0)

    static func stream(_ body: String, _ arrivals: [Arrival], headers: Interaction.Headers) -> Interaction.StreamedBody? {
        StreamCapture.stream(of: Data(body.utf8), arrivals: arrivals, headers: headers, timing: timing)
    }

    @Test func piecesWithPausesAreChunksAndPiecesWithoutOneJoin() throws {
        let arrivals = [Arrival(end: 2, at: 0.2), Arrival(end: 4, at: 0.205), Arrival(end: 6, at: 0.6)]
        let stream = try #require(Self.stream("a\nb\nc\n", arrivals, headers: ["Content-Type": "application/x-ndjson"]))
        #expect(stream.chunks == [.init(at: 0.205, data: Data("a\nb\n".utf8)), .init(at: 0.6, data: Data("c\n".utf8))])
    }

    @Test func aBodyReadWholeIsNoStream() {
        let arrivals = [Arrival(end: 2, at: 0.2), Arrival(end: 4, at: 0.7)]
        // A Content-Length, a JSON document, or no pause at all: the caller reads it whole.
        #expect(Self.stream("{}{}", arrivals, headers: ["Content-Type": "text/plain", "Content-Length": "4"]) == nil)
        #expect(Self.stream("{}{}", arrivals, headers: ["Content-Type": "application/json; charset=utf-8"]) == nil)
        #expect(Self.stream("{}{}", arrivals, headers: ["Content-Type": "application/problem+json"]) == nil)
        #expect(
            Self.stream("abcd", [Arrival(end: 2, at: 0.2), Arrival(end: 4, at: 0.201)], headers: ["Content-Type": "text/plain"]) == nil)
        // Arrivals that do not account for the body (not reported by the platform): recorded whole.
        #expect(Self.stream("abcd", [Arrival(end: 2, at: 0.2)], headers: ["Content-Type": "text/plain"]) == nil)
        #expect(Self.stream("", [], headers: ["Content-Type": "text/event-stream"]) == nil)
    }

    @Test func eventsAreKeptEvenInOnePieceAndTimesStayWithinTheTiming() throws {
        let body = "data: a\n\ndata: b\n\n"
        let stream = try #require(
            Self.stream(body, [Arrival(end: 18, at: 1.2345)], headers: ["Content-Type": "text/event-stream", "Content-Length": "18"]))
        // Cut at the events; the arrival after the end of the recorded timing is kept within it.
        #expect(stream.chunks == [.init(at: 1.0, data: Data("data: a\n\n".utf8)), .init(at: 1.0, data: Data("data: b\n\n".utf8))])
        let early = try #require(
            Self.stream(body, [Arrival(end: 9, at: 0.0421), Arrival(end: 18, at: 0.3337)], headers: ["Content-Type": "text/event-stream"]))
        // Rounded to the millisecond, and never before the head.
        #expect(early.chunks.map(\.at) == [0.1, 0.334])
    }
}
