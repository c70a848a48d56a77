import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The tape a ``TapeServer`` answers from now, with what serving it needs: the session that
/// records through it and the origin a request's path goes to. A server started with one tape
/// keeps one stage; a server on a folder of cassettes makes one per ``TapeServer/load(_:beneath:)``.
final class ServerStage: Sendable {
    let tape: Tape
    /// Routed through the tape: a request to record crosses it, and the tape records it.
    let session: URLSession
    /// Where a path goes: `upstream`, the cassette's one origin, or the server's own.
    let origin: String

    /// - Throws: ``CassetteError/serverFailed(_:)`` when the tape would record with nowhere to
    ///   record from.
    init(tape: Tape, upstream: URL?, ownOrigin: String, delegate: ServerSessionDelegate) throws {
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
        if tape.router.access.recordsNewRequests, upstream == nil, origin == ownOrigin {
            throw CassetteError.serverFailed(
                "record mode \(tape.mode) records what the cassette cannot answer, but there is nowhere to "
                    + "record from: give an upstream (cassette serve --upstream https://api.example.com), or replay with mode none")
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 300
        tape.configure(configuration)
        self.tape = tape
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }
}
