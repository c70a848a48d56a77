import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A type-level number that gives each protocol class its own type: `SlotProtocol<SlotRoot>`,
/// `SlotProtocol<SlotOne<SlotRoot>>`, `SlotProtocol<SlotZero<SlotOne<SlotRoot>>>`, … — slot n
/// is n's binary digits, so its type nests only log₂(n) deep however many classes a long test
/// run retires (each nesting lengthens the class's runtime name).
protocol RoutingSlot {}
enum SlotRoot: RoutingSlot {}
enum SlotZero<Higher: RoutingSlot>: RoutingSlot {}
enum SlotOne<Higher: RoutingSlot>: RoutingSlot {}

/// The protocol class of one route. Its identity (`ObjectIdentifier(Self.self)`) names the
/// ``SlotBinding`` in ``SlotTable``.
final class SlotProtocol<Slot: RoutingSlot>: CassetteURLProtocol {
    override class var route: SlotBinding? { SlotTable.shared.route(for: ObjectIdentifier(self)) }
}

/// Where a protocol class's requests go: the router that answers them, and the configuration
/// of the sessions made with the class — known on every platform without asking the session,
/// which a protocol on Apple platforms cannot reach.
final class SlotBinding: Sendable {
    let router: Router
    /// The configuration the class was put into (by ``Tape/configure(_:)`` or a tape's own
    /// session), as the sessions made from it see it; nil when unknown, or when the class serves
    /// many configurations (``ProtocolClasses/intercept(_:)``) and each task's session tells it.
    let configuration: UncheckedSendable<URLSessionConfiguration?>
    /// Whether the class serves every configuration the intercepted getters made for the tape, so
    /// that a request's configuration is its session's (``configuration(for:)``).
    let servesManyConfigurations: Bool
    /// Why every request through the class fails without an answer: the configuration is a
    /// background one (``ProtocolClasses/configure(_:)``), whose requests no protocol can answer
    /// on Apple platforms; nil for a class that routes.
    let refusal: String?
    /// The session made from the configuration when Cassette made it (a tape's own session, one
    /// from ``Tape/makeSession(configuration:delegate:delegateQueue:)``), not kept alive; nil when
    /// the caller made its sessions itself.
    private let made = Locked(WeakSession())
    /// Its requests still answering after `startLoading` returned, for a route whose sessions
    /// are all Cassette's own: what ending the session cancels (``ProtocolClasses/detach()``).
    /// Nil for any other route, whose requests are then not kept at all.
    let pending: PendingChannels?

    private struct WeakSession {
        weak var session: URLSession?
    }

    init(
        router: Router, configuration: URLSessionConfiguration?, servesManyConfigurations: Bool = false, refusal: String? = nil,
        keepsPending: Bool = false
    ) {
        self.router = router
        pending = keepsPending ? PendingChannels() : nil
        self.configuration = UncheckedSendable(configuration)
        self.servesManyConfigurations = servesManyConfigurations
        self.refusal = refusal
    }

    /// The configuration of the session that runs `task`: the one the class was put into, else
    /// (a class serving many configurations) the task's session's, found as a redirect finds it
    /// (``TaskInternals/session(of:known:)``). Call from `startLoading`. The task is asked for only
    /// then: an instant replay through a class of one configuration never takes its lock.
    func configuration(for task: @autoclosure () -> URLSessionTask?) -> URLSessionConfiguration? {
        if let configuration = configuration.value { return configuration }
        guard servesManyConfigurations else { return nil }
        return TaskInternals.session(of: task())?.configuration
    }

    /// The session made from this route's configuration, when Cassette knows it.
    var session: URLSession? { made.withLock { $0.session } }

    /// Notes that `session` is the one made from this route's configuration.
    func remember(_ session: URLSession) {
        made.withLock { $0.session = session }
    }
}

/// Which route answers for which protocol class.
///
/// A class whose every session Cassette made itself and invalidates (a tape's ``Tape/session``)
/// goes back to a pool when its tape is ejected, and serves a later tape, the longest-free first.
/// A class handed to a configuration the caller owns (``Tape/configure(_:)``) is retired
/// instead: a session made from it may outlive the tape, and must then fail with "already
/// ejected" rather than reach a later test's cassette.
///
/// This is the one place that knows how sessions are told apart; replace it if a platform needs
/// another mechanism.
final class SlotTable: Sendable {
    static let shared = SlotTable()

    private struct State {
        var routes: [ObjectIdentifier: SlotBinding] = [:]
        var reusable: Set<ObjectIdentifier> = []
        var free: [CassetteURLProtocol.Type] = []
        var classCount = 0
    }

    private let state = Locked(State())

    /// Attaches `router` to a protocol class for the sessions made from `configuration`, and
    /// returns the class, to put first in that configuration's `protocolClasses`.
    ///
    /// - Parameters:
    ///   - reusable: whether every session that can reach the class is Cassette's own and is
    ///     invalidated when the route is detached, so that the class may serve again.
    ///   - refusal: why the class's requests fail unanswered (``SlotBinding/refusal``).
    func attach(
        _ router: Router, configuration: URLSessionConfiguration?, reusable: Bool, servesManyConfigurations: Bool = false,
        refusal: String? = nil
    ) -> CassetteURLProtocol.Type {
        let route = SlotBinding(
            router: router, configuration: configuration, servesManyConfigurations: servesManyConfigurations, refusal: refusal,
            keepsPending: reusable)
        return state.withLock { state in
            let protocolClass: CassetteURLProtocol.Type
            if reusable, !state.free.isEmpty {
                protocolClass = state.free.removeFirst()
            } else {
                protocolClass = Self.protocolClass(number: state.classCount)
                state.classCount += 1
            }
            let key = ObjectIdentifier(protocolClass)
            state.routes[key] = route
            if reusable { state.reusable.insert(key) }
            return protocolClass
        }
    }

    /// Detaches the route of `protocolClass`: its requests fail from now on, and the class goes
    /// back to the pool when it was attached as reusable.
    func detach(_ protocolClass: CassetteURLProtocol.Type) {
        let key = ObjectIdentifier(protocolClass)
        state.withLock { state in
            guard state.routes.removeValue(forKey: key) != nil else { return }
            if state.reusable.remove(key) != nil { state.free.append(protocolClass) }
        }
    }

    func route(for protocolClass: ObjectIdentifier) -> SlotBinding? {
        state.withLock { $0.routes[protocolClass] }
    }

    /// The route of `protocolClass`, while it is attached.
    func route(of protocolClass: CassetteURLProtocol.Type) -> SlotBinding? {
        route(for: ObjectIdentifier(protocolClass))
    }

    /// How many distinct protocol classes exist (for tests of the pool).
    var classCount: Int { state.withLock { $0.classCount } }

    /// The class of slot `number`: `SlotRoot` wrapped once per binary digit, most significant first.
    static func protocolClass(number: Int) -> CassetteURLProtocol.Type {
        var slot: any RoutingSlot.Type = SlotRoot.self
        var digits: [Bool] = []
        var rest = number
        while rest > 0 {
            digits.append(rest & 1 == 1)
            rest >>= 1
        }
        for digit in digits.reversed() {
            slot = digit ? one(above: slot) : zero(above: slot)
        }
        return protocolClass(for: slot)
    }

    private static func protocolClass<Slot: RoutingSlot>(for _: Slot.Type) -> CassetteURLProtocol.Type {
        SlotProtocol<Slot>.self
    }

    private static func one<Slot: RoutingSlot>(above _: Slot.Type) -> any RoutingSlot.Type { SlotOne<Slot>.self }
    private static func zero<Slot: RoutingSlot>(above _: Slot.Type) -> any RoutingSlot.Type { SlotZero<Slot>.self }
}
