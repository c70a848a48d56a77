import Foundation

/// When each part of a replayed response reaches the caller, in seconds from the start of the
/// request: the head at the first-byte time, the body complete at the duration, then the end or
/// an error — cut short by the request's timeout, as a live request would be.
///
/// Pure arithmetic, so every rule here is tested without a session.
package struct DeliveryPlan: Equatable {
    package enum Step: Equatable {
        /// The response head.
        case head
        /// These bytes of the body.
        case body(Range<Int>)
        /// The successful end.
        case finish
        /// The end with this error.
        case fail(URLError.Code)
    }

    package struct Event: Equatable {
        package var at: TimeInterval
        package var step: Step
    }

    /// In time order; the last one is `finish` or `fail`.
    package var events: [Event]

    /// How often a body delivered in pieces gets one: 20 pieces a second.
    static let pieceInterval: TimeInterval = 0.05
    /// At most this many pieces, however long the body takes: a day-long replay gets longer gaps.
    static let mostPieces = 10_000

    /// `seconds` as a time the plan can schedule: from zero to a day (the longest a cassette may
    /// ask for). Cassettes are checked when read, but stubs and latencies come from code, and a
    /// huge or non-finite number must never reach an integer conversion: it would trap.
    static func schedulable(_ seconds: TimeInterval) -> TimeInterval {
        guard !seconds.isNaN else { return 0 }
        return min(max(seconds, 0), CassetteRules.longestSeconds)
    }

    /// - Parameters:
    ///   - hasHead: whether there is a response (false for an error instead of a response).
    ///   - bodySize: how many body bytes reach the caller (all, or `afterBytes`).
    ///   - error: the error that ends the exchange, if any.
    ///   - timing: when the head arrives and when the body is complete (or the error comes).
    ///   - inPieces: whether the body may arrive in several pieces (every `didLoad` reaches the
    ///     caller); otherwise it arrives in one piece at the duration.
    ///   - timeout: the longest wait for the head or for more data; nil for none.
    init(hasHead: Bool, bodySize: Int, error: URLError.Code?, timing: Interaction.Timing, inPieces: Bool, timeout: TimeInterval?) {
        let firstByte = Self.schedulable(timing.firstByte)
        let duration = max(Self.schedulable(timing.duration), firstByte)
        let span = duration - firstByte
        let pieces = inPieces ? max(1, min(bodySize, Self.mostPieces, Int((span / Self.pieceInterval).rounded(.up)))) : 1
        var events: [Event] = []
        // Head, pieces, end: one allocation (a replay makes a plan for every request).
        events.reserveCapacity(pieces + 2)
        if hasHead {
            events.append(Event(at: firstByte, step: .head))
            if bodySize > 0 {
                var start = 0
                for piece in 1...pieces {
                    let end = bodySize * piece / pieces
                    if end > start {
                        events.append(Event(at: firstByte + span * Double(piece) / Double(pieces), step: .body(start..<end)))
                    }
                    start = end
                }
            }
        }
        events.append(Event(at: duration, step: error.map(Step.fail) ?? .finish))
        self.events = Self.cut(events, timeout: timeout)
    }

    /// A body sent in given pieces: the head at `firstByte`, piece `i` at `firstByte + i × delay`,
    /// the end with the last piece. `inPieces` false (not delegate-driven): the whole body at that end.
    init(chunkSizes: [Int], firstByte: TimeInterval, delay: TimeInterval, inPieces: Bool, timeout: TimeInterval?) {
        let pieces = chunkSizes.enumerated().map { (at: firstByte + delay * Double($0.offset), size: $0.element) }
        self.init(firstByte: firstByte, pieces: pieces, end: pieces.last?.at ?? firstByte, error: nil, inPieces: inPieces, timeout: timeout)
    }

    /// A body that arrives in pieces at given times (a streamed body, ``Interaction/StreamedBody``):
    /// the head at `firstByte`, each piece at its time, the end (or `error`) at `end` or with the
    /// last piece if that comes later. `inPieces` false (not delegate-driven): the whole body at the end.
    init(
        firstByte: TimeInterval, pieces: [(at: TimeInterval, size: Int)], end: TimeInterval, error: URLError.Code?,
        inPieces: Bool, timeout: TimeInterval?
    ) {
        let firstByte = Self.schedulable(firstByte)
        var events = [Event(at: firstByte, step: .head)]
        var last = firstByte
        var start = 0
        var body: [Event] = []
        for piece in pieces where piece.size > 0 {
            last = max(last, Self.schedulable(piece.at))
            body.append(Event(at: last, step: .body(start..<(start + piece.size))))
            start += piece.size
        }
        let finish = max(last, Self.schedulable(end))
        if inPieces {
            events += body
        } else if start > 0 {
            events.append(Event(at: finish, step: .body(0..<start)))
        }
        events.append(Event(at: finish, step: error.map(Step.fail) ?? .finish))
        self.events = Self.cut(events, timeout: timeout)
    }

    /// The events up to the first wait longer than `timeout`, then `timedOut` at that moment.
    private static func cut(_ events: [Event], timeout: TimeInterval?) -> [Event] {
        guard let timeout, timeout > 0, timeout < CassetteRules.longestSeconds else { return events }
        var lastArrival: TimeInterval = 0
        for (index, event) in events.enumerated() {
            if event.at - lastArrival > timeout {
                return Array(events[..<index]) + [Event(at: lastArrival + timeout, step: .fail(.timedOut))]
            }
            lastArrival = event.at
        }
        return events
    }

    /// Whether everything happens at once, so the plan can run inside `startLoading`.
    var isImmediate: Bool { events.last.map { $0.at <= 0 } ?? true }
}
