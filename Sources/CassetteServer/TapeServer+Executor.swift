import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The wire executor: the tape's decision for one request carried out as bytes on the wire (an
// answer played on its plan, a refusal, a recording relayed as it arrives), as the session
// executor carries it out through a URLProtocol client.
extension TapeServer {
    /// Answers one request; false when the connection must close. The tape's router decides;
    /// a stub's or a recording's answer goes straight to the wire on its plan, a refusal is
    /// answered here, and a request to record is sent and kept through `LiveRecording` (decided once,
    /// by this router) and goes to the wire as it arrives. In a `tunnel`, a path is that origin's
    /// (never the admin interface's): the request is the one a client would send in proxy form.
    func answer(_ wire: WireRequest, on connection: ServerConnection, tunnel: TunnelTarget? = nil) -> Bool {
        if tunnel == nil, let admin = options.admin, wire.target.hasPrefix(admin.prefix) {
            return answerAdmin(wire, command: String(wire.target.dropFirst(admin.prefix.count)), on: connection)
        }
        guard let stage = stage.withLock({ $0 }) else {
            let how = options.admin.map { "POST \($0.prefix)load {\"cassette\": \"NAME\"}" } ?? "TapeServer.load(_:)"
            writeRefusal(WireRequest.Refusal(status: 503, reason: "no cassette is loaded: \(how) first"), to: connection)
            return false
        }
        guard let url = url(for: wire, origin: tunnel?.origin ?? stage.origin) else {
            writeRefusal(WireRequest.Refusal(status: 400, reason: "\(wire.target) does not make a URL"), to: connection)
            return false
        }
        // Only a tape that may forward can send a request round to this server; one that only
        // replays (mode none) matches it against its recordings like any other.
        if stage.tape.router.access.forwards, OriginMove.origin(of: url.absoluteString) == ownOrigin || own.isReached(by: url) {
            writeRefusal(
                WireRequest.Refusal(status: 502, reason: Self.selfReference(url.absoluteString, ownOrigin: ownOrigin)), to: connection)
            return false
        }
        let upgrade: WebSocketHandshake.Upgrade?
        switch webSocketUpgrade(of: wire) {
        case .success(let asked):
            upgrade = asked
        case .failure(let refusal):
            writeRefusal(refusal, to: connection)
            return false
        }
        let router = stage.tape.router
        let request = Self.captured(wire, url: url)
        let decision: Decision
        if let upgrade {
            switch router.decideUpgrade(request, sent: { Self.urlRequest(for: wire, url: url) }) {
            case .converse(let conversation): return converse(conversation, upgrade: upgrade, on: connection, router: router)
            case .decided(let decided): decision = decided
            }
        } else {
            decision = router.decide(request, sent: { Self.urlRequest(for: wire, url: url) })
        }
        switch consume decision {
        case .stub(let answer), .replay(let answer):
            return play(answer, of: wire, on: connection)
        case .refuse(let failure):
            return refuse(failure, of: wire, on: connection)
        case .record(let readable):
            if let upgrade { return relayWebSocket(wire, request: readable, url: url, upgrade: upgrade, on: connection, router: router) }
            return record(readable, wire: wire, url: url, on: connection, stage: stage)
        case .passThrough(let readable):
            if let upgrade {
                return relayWebSocket(wire, request: readable, url: url, upgrade: upgrade, on: connection, router: router, keeping: false)
            }
            return record(readable, wire: wire, url: url, on: connection, stage: stage, keeping: false)
        }
    }

    /// Records `request` (as captured from `wire`) the one way both executors record
    /// (`LiveRecording`), and writes what comes back to the wire as it arrives. A redirect is
    /// not followed: the client on the wire follows it if it wants to.
    ///
    /// The bytes that would complete the response for the client (the last of a `Content-Length`
    /// body, or the head of a response without one) wait until the recording has ended and is
    /// kept: a test that reads `tape.reportSoFar` once its client has the response finds it
    /// counted, as a `URLSession` caller does (its task ends only after the recording is kept).
    func record(
        _ request: Interaction.Request, wire: WireRequest, url: URL, on connection: ServerConnection, stage: ServerStage,
        keeping: Bool = true
    ) -> Bool {
        let stream = ResponseStream()
        var outgoing = Self.urlRequest(for: wire, url: url)
        outgoing.timeoutInterval = Self.upstreamTimeout
        let cancelled = Locked(false)
        let live = LiveRecording(request, access: stage.tape.router.access, keeping: keeping).send(
            outgoing, body: RequestBody(data: outgoing.httpBody, form: .request),
            progress: LiveForwarder.Progress(head: { stream.push(.head($0)) }, data: { stream.push(.data($0)) }),
            judge: { ($0, cancelled.withLock { $0 }) },
            onEnd: { stream.push(.end($0.error)) })
        let cancel: @Sendable () -> Void = {
            cancelled.withLock { $0 = true }
            live.cancel()
        }
        let number = stage.started(cancel: cancel)
        defer { stage.finished(number) }
        var response: WireResponse?
        var bodySent = 0
        var held: [UInt8] = []
        while true {
            switch stream.next() {
            case .head(let head):
                guard response == nil else { continue }
                let started = WireResponse(head, for: wire)
                response = started
                if started.completingLength == 0 {
                    held = started.headBytes
                } else if !connection.write(started.headBytes) {
                    cancel()
                    return false
                }
            case .data(let data):
                guard let response else { return false }
                bodySent += data.count
                if let length = response.completingLength, bodySent >= length {
                    held += response.bodyBytes(data)
                } else if !connection.write(response.bodyBytes(data)) {
                    cancel()
                    return false
                }
            case .end(nil):
                guard let response else { return false }
                return connection.write(held + response.endBytes) && response.keepsConnection
            case .end(let error?):
                guard held.isEmpty || connection.write(held) else { return false }
                return fail(before: response == nil, error, on: connection)
            }
        }
    }

    /// How long a request to the upstream may wait for its answer: longer than a session's
    /// default, for an upstream that is slow on purpose.
    static let upstreamTimeout: TimeInterval = 300

    /// Writes an answer the router decided, on its plan's schedule: what is due at once goes out
    /// in one write, and the connection's thread waits between steps, as a server taking that long
    /// would. A redirect is not followed: the client on the wire follows it if it wants to.
    func play(_ answer: Answer, of wire: WireRequest, on connection: ServerConnection) -> Bool {
        let start = DispatchTime.now()
        let body = answer.body
        var response: WireResponse?
        var pending: [UInt8] = []
        for event in answer.plan(inPieces: true, timeout: nil).events {
            let wait = event.at - Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            if wait > 0 {
                guard pending.isEmpty || connection.write(pending) else { return false }
                pending.removeAll(keepingCapacity: true)
                Thread.sleep(forTimeInterval: wait)
            }
            switch event.step {
            case .head:
                guard let recorded = answer.response else { continue }
                let started = WireResponse(status: recorded.status, headers: recorded.headers, for: wire)
                response = started
                pending += started.headBytes
            case .body(let range):
                guard let response else { continue }
                pending += response.bodyBytes(
                    range == 0..<body.count
                        ? body : body.subdata(in: (body.startIndex + range.lowerBound)..<(body.startIndex + range.upperBound)))
            case .finish:
                guard let response else { return false }
                pending += response.endBytes
                return connection.write(pending) && response.keepsConnection
            case .fail(let code):
                guard pending.isEmpty || connection.write(pending) else { return false }
                return fail(before: response == nil, answer.error(code, timeout: nil), on: connection)
            }
        }
        return false
    }
}
