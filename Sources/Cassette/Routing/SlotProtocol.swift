import Foundation

/// A type-level tag that gives each session its own ``SlotProtocol`` class:
/// `SlotProtocol<SlotRoot>`, `SlotProtocol<SlotNext<SlotRoot>>`, and so on.
protocol RoutingSlot {}
enum SlotRoot: RoutingSlot {}
enum SlotNext<Previous: RoutingSlot>: RoutingSlot {}

/// The protocol class of one session. Its identity (`ObjectIdentifier(Self.self)`) names the
/// ``Router`` in ``RouteTable``.
final class SlotProtocol<Slot: RoutingSlot>: CassetteURLProtocol {
    override class var router: Router? { RouteTable.shared.router(for: ObjectIdentifier(self)) }
}

/// Which router answers for which protocol class. Classes are pooled: a class whose cassette
/// was ejected goes back to the pool and serves a later cassette, the longest-free first.
///
/// This is the one place that knows how sessions are told apart; replace it if a platform needs
/// another mechanism.
final class RouteTable: Sendable {
    static let shared = RouteTable()

    private struct State {
        var routers: [ObjectIdentifier: Router] = [:]
        var free: [CassetteURLProtocol.Type] = []
        var lastSlot: any RoutingSlot.Type = SlotRoot.self
        var classCount = 0
    }

    private let state = Locked(State())

    /// Attaches `router` to a free protocol class and returns the class, to put first in a
    /// session configuration's `protocolClasses`.
    func attach(_ router: Router) -> CassetteURLProtocol.Type {
        state.withLock { state in
            let protocolClass: CassetteURLProtocol.Type
            if !state.free.isEmpty {
                protocolClass = state.free.removeFirst()
            } else {
                protocolClass = Self.protocolClass(for: state.lastSlot)
                state.lastSlot = Self.next(after: state.lastSlot)
                state.classCount += 1
            }
            state.routers[ObjectIdentifier(protocolClass)] = router
            return protocolClass
        }
    }

    /// Detaches the router from `protocolClass` and returns the class to the pool.
    func detach(_ protocolClass: CassetteURLProtocol.Type) {
        state.withLock { state in
            guard state.routers.removeValue(forKey: ObjectIdentifier(protocolClass)) != nil else { return }
            state.free.append(protocolClass)
        }
    }

    func router(for protocolClass: ObjectIdentifier) -> Router? {
        state.withLock { $0.routers[protocolClass] }
    }

    /// How many distinct protocol classes exist (for tests of the pool).
    var classCount: Int { state.withLock { $0.classCount } }

    private static func protocolClass<Slot: RoutingSlot>(for _: Slot.Type) -> CassetteURLProtocol.Type {
        SlotProtocol<Slot>.self
    }

    private static func next<Slot: RoutingSlot>(after _: Slot.Type) -> any RoutingSlot.Type {
        SlotNext<Slot>.self
    }
}

