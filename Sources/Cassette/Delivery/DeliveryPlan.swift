import Foundation

/// When each part of a replayed response reaches the caller, in seconds from the start of the
/// request: the head at the first-byte time, the body complete at the duration, then the end or
/// an error — cut short by the request's timeout, as a live request would be.
///
/// Pure arithmetic, so every rule here is tested without a session.
struct DeliveryPlan: Equatable {
    enum Step: Equatable {
        /// The response head.
        case head
        /// These bytes of the body.
        case body(Range<Int>)
        /// The successful end.
        case finish
        /// The end with this error.
        case fail(URLError.Code)
    }

    struct Event: Equatable {
        var at: TimeInterval
        var step: Step
    }

    /// In time order; the last one is `finish` or `fail`.
    var events: [Event]

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
        var events: [Event] = []
        let firstByte = Self.schedulable(timing.firstByte)
        let duration = max(Self.schedulable(timing.duration), firstByte)
        if hasHead {
            events.append(Event(at: firstByte, step: .head))
            if bodySize > 0 {
                let span = duration - firstByte
                let pieces = inPieces ? max(1, min(bodySize, Self.mostPieces, Int((span / Self.pieceInterval).rounded(.up)))) : 1
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

    /// The events up to the first wait longer than `timeout`, then `timedOut` at that moment.
    /// A body sent in given pieces: the head at `firstByte`, piece `i` at `firstByte + i × delay`,
    /// the end with the last piece. `inPieces` false (not delegate-driven): the whole body at that end.
    init(chunkSizes: [Int], firstByte: TimeInterval, delay: TimeInterval, inPieces: Bool, timeout: TimeInterval?) {
        let firstByte = Self.schedulable(firstByte)
        let delay = Self.schedulable(delay)
        var events = [Event(at: firstByte, step: .head)]
        let end = Self.schedulable(firstByte + delay * Double(max(0, chunkSizes.count - 1)))
        let total = chunkSizes.reduce(0, +)
        if inPieces {
            var start = 0
            for (index, size) in chunkSizes.enumerated() where size > 0 {
                events.append(Event(at: Self.schedulable(firstByte + delay * Double(index)), step: .body(start..<(start + size))))
                start += size
            }
        } else if total > 0 {
            events.append(Event(at: end, step: .body(0..<total)))
        }
        events.append(Event(at: end, step: .finish))
        self.events = Self.cut(events, timeout: timeout)
    }

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
