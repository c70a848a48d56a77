import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The arithmetic of a replay's schedule, without a session.
@Suite struct DeliveryPlanTests {
    typealias Event = DeliveryPlan.Event

    @Test func inOnePieceTheBodyArrivesAtTheDuration() {
        let plan = DeliveryPlan(
            hasHead: true, bodySize: 100, error: nil, timing: .init(firstByte: 0.3, duration: 0.6), inPieces: false, timeout: nil)
        #expect(plan.events == [Event(at: 0.3, step: .head), Event(at: 0.6, step: .body(0..<100)), Event(at: 0.6, step: .finish)])
        #expect(!plan.isImmediate)
    }

    @Test func inPiecesTheBodyIsSpreadEvenlyAndComplete() {
        let plan = DeliveryPlan(
            hasHead: true, bodySize: 1000, error: nil, timing: .init(firstByte: 0, duration: 0.5), inPieces: true, timeout: nil)
        let bodies = plan.events.compactMap { event -> (TimeInterval, Range<Int>)? in
            if case .body(let range) = event.step { return (event.at, range) }
            return nil
        }
        #expect(bodies.count == 10)
        #expect(bodies.first?.1 == 0..<100)
        #expect(bodies.last?.1 == 900..<1000)
        #expect(abs((bodies.last?.0 ?? 0) - 0.5) < 1e-9)
        #expect(zip(bodies, bodies.dropFirst()).allSatisfy { $0.1.upperBound == $1.1.lowerBound && $0.0 < $1.0 })
        // Never more pieces than bytes.
        let tiny = DeliveryPlan(
            hasHead: true, bodySize: 3, error: nil, timing: .init(firstByte: 0, duration: 5), inPieces: true, timeout: nil)
        #expect(tiny.events.filter { if case .body = $0.step { true } else { false } }.count == 3)
    }

    @Test func anErrorWithoutAResponseComesAtTheDuration() {
        let plan = DeliveryPlan(
            hasHead: false, bodySize: 0, error: .notConnectedToInternet, timing: .init(firstByte: 0, duration: 0), inPieces: false,
            timeout: 1)
        #expect(plan.events == [Event(at: 0, step: .fail(.notConnectedToInternet))])
        #expect(plan.isImmediate)
    }

    @Test func theTimeoutCutsTheFirstWaitThatIsTooLong() {
        // Waiting for the head.
        let head = DeliveryPlan(
            hasHead: true, bodySize: 10, error: nil, timing: .init(firstByte: 2, duration: 2), inPieces: false, timeout: 0.5)
        #expect(head.events == [Event(at: 0.5, step: .fail(.timedOut))])
        // Waiting for the body, after the head.
        let body = DeliveryPlan(
            hasHead: true, bodySize: 10, error: nil, timing: .init(firstByte: 0.1, duration: 2.1), inPieces: false, timeout: 0.5)
        #expect(body.events == [Event(at: 0.1, step: .head), Event(at: 0.6, step: .fail(.timedOut))])
        // Pieces keep arriving within the timeout: no timeout.
        let pieces = DeliveryPlan(
            hasHead: true, bodySize: 1000, error: nil, timing: .init(firstByte: 0.1, duration: 2.1), inPieces: true, timeout: 0.5)
        #expect(pieces.events.last == Event(at: 2.1, step: .finish))
        // A recorded error that comes too late becomes a timeout.
        let late = DeliveryPlan(
            hasHead: false, bodySize: 0, error: .cannotConnectToHost, timing: .init(firstByte: 3, duration: 3), inPieces: false, timeout: 1)
        #expect(late.events == [Event(at: 1, step: .fail(.timedOut))])
    }
}

/// Numbers no cassette may hold but code can give: the plan clamps them instead of trapping.
@Suite struct DeliveryPlanBoundsTests {
    @Test(arguments: [1e300, .infinity, .nan, -5])
    func everyTimeIsScheduledWithinADay(_ seconds: Double) {
        let plans = [
            DeliveryPlan(
                hasHead: true, bodySize: 1_000_000, error: nil, timing: .init(firstByte: 0, duration: seconds), inPieces: true, timeout: nil
            ),
            DeliveryPlan(
                hasHead: true, bodySize: 10, error: .timedOut, timing: .init(firstByte: seconds, duration: seconds), inPieces: false,
                timeout: seconds),
            DeliveryPlan(chunkSizes: [1, 2, 3], firstByte: seconds, delay: seconds, inPieces: true, timeout: nil),
        ]
        for plan in plans {
            #expect(plan.events.allSatisfy { $0.at >= 0 && $0.at <= 86_400 }, "\(plan.events.map(\.at))")
            #expect(plan.events.count <= DeliveryPlan.mostPieces + 2)
            #expect(zip(plan.events, plan.events.dropFirst()).allSatisfy { $0.at <= $1.at })
        }
    }
}
