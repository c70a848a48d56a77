import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The tape a ``TapeServer`` answers from now, with what serving it needs: the origin a request's
/// path goes to, and the recordings in flight. A server started with one tape keeps one stage; a
/// server on a folder of cassettes makes one per ``TapeServer/load(_:beneath:)``.
final class ServerStage: Sendable {
    let tape: Tape
    /// Where a path goes: `upstream`, the cassette's one origin, or the server's own.
    let origin: String
    /// How to cancel each recording in flight, by a number of its own; whether the server stopped.
    private let recordings = Locked((next: 0, cancels: [Int: @Sendable () -> Void](), stopped: false))

    /// - Throws: `CassetteError.serverFailed(_:)` when the tape would record with nowhere to
    ///   record from, or the upstream is the server itself (by any name: ``OwnAddress``).
    init(tape: Tape, upstream: URL?, ownOrigin: String, own: OwnAddress) throws {
        if let upstream, own.isReached(by: upstream) {
            throw CassetteError.serverFailed(TapeServer.selfReference(upstream.absoluteString, ownOrigin: ownOrigin, what: "the upstream"))
        }
        if let upstream {
            // A ws:// or wss:// upstream is the same origin as http:// or https://: HTTP requests go
            // there, and WebSocket upgrades too (the relay speaks WebSocket over it).
            var text = upstream.absoluteString
            for (webSocket, http) in [("ws://", "http://"), ("wss://", "https://")] where text.lowercased().hasPrefix(webSocket) {
                text = http + text.dropFirst(webSocket.count)
            }
            origin = text.hasSuffix("/") ? String(text.dropLast()) : text
        } else {
            let origins = tape.router.recordedOrigins
            origin = origins.count == 1 ? origins.first ?? ownOrigin : ownOrigin
        }
        // The cassette's own origin as the upstream ("serve the recording on the API's old port"):
        // a recording would go round to this server.
        if tape.router.access.forwards, upstream == nil, origin != ownOrigin, let url = URL(string: origin), own.isReached(by: url) {
            throw CassetteError.serverFailed(TapeServer.selfReference(origin, ownOrigin: ownOrigin, what: "the cassette's origin"))
        }
        if tape.router.access.recordsNewRequests, upstream == nil, origin == ownOrigin {
            throw CassetteError.serverFailed(
                "record mode \(tape.mode) records what the cassette cannot answer, but there is nowhere to "
                    + "record from: give an upstream (cassette serve --upstream https://api.example.com), or replay with mode none")
        }
        self.tape = tape
    }

    /// Notes a recording in flight, which `cancel` cancels (at once when the server has stopped);
    /// returns its number for ``finished(_:)``.
    func started(cancel: @escaping @Sendable () -> Void) -> Int {
        let (number, stopped) = recordings.withLock { recordings in
            defer { recordings.next += 1 }
            if !recordings.stopped { recordings.cancels[recordings.next] = cancel }
            return (recordings.next, recordings.stopped)
        }
        if stopped { cancel() }
        return number
    }

    /// The recording numbered `number` has ended.
    func finished(_ number: Int) {
        _ = recordings.withLock { $0.cancels.removeValue(forKey: number) }
    }

    /// Cancels every recording in flight: the server stops, and what its clients never saw end is
    /// not saved.
    func cancelRecordings() {
        let cancels = recordings.withLock { recordings in
            recordings.stopped = true
            return Array(recordings.cancels.values)
        }
        for cancel in cancels { cancel() }
    }
}
