import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The protocol classes a tape or a stub session hands out — one for its own ``session``, one
/// for each configuration it routes — and their detaching when it ends. Each class stands for
/// one session configuration, so a request always knows its session's configuration (its
/// additional header fields, cookie storage and timeouts) without asking the session.
final class ProtocolClasses: Sendable {
    let router: Router
    /// The session Cassette made and owns: invalidated by ``detach()``.
    let session: URLSession
    private let classes: Locked<[CassetteURLProtocol.Type]>
    /// The one class of every configuration the intercepted getters made for this tape, once made.
    private let intercepted = Locked<CassetteURLProtocol.Type?>(nil)
    /// What the intercepted getters routed here and cannot see afterwards.
    let watch = InterceptionWatch()
    /// The identifiers of the background configurations given to ``configure(_:)``.
    private let refused = Locked<[String]>([])
    /// Whether a refusal is also said on standard error when it happens (``Tape/Options`` may keep
    /// warnings to the report).
    private let announcesWarnings: Bool
    /// The own session's cookie storage, given back once when it is detached.
    private let lease: Locked<EphemeralStorage.Lease?>
    /// The own session's route, whose requests still answering ``detach()`` cancels.
    private let ownRoute: SlotBinding?

    /// Attaches `router` and makes its own session from an ephemeral configuration (with the
    /// tape's cache when the router's sessions keep theirs).
    init(router: Router, announcesWarnings: Bool = true) {
        self.router = router
        self.announcesWarnings = announcesWarnings
        let (configuration, lease) = EphemeralStorage.configuration()
        self.lease = Locked(lease)
        configuration.urlCache = router.access.cache.value
        let own = SlotTable.shared.attach(router, configuration: configuration, reusable: true)
        own.route(configuration, cache: router.access.cache.value)
        classes = Locked([own])
        session = URLSession(configuration: configuration)
        ownRoute = SlotTable.shared.route(of: own)
        ownRoute?.remember(session)
    }

    /// Routes the sessions made from `configuration` through `router`, with a class of their own
    /// that is retired when the routes are detached (the caller's sessions may outlive them).
    ///
    /// A background configuration (it has an `identifier`) cannot be routed: on Apple platforms
    /// its transfers run in a system process that never asks a protocol. It gets a class all the
    /// same, whose requests fail (wherever the platform asks it) with
    /// ``CassetteError/backgroundSessionNotRoutable(identifier:)``'s explanation, and the refusal
    /// is kept (``refusedBackgrounds``) and said on standard error now, so that the tape's eject
    /// fails with it on every platform alike.
    @discardableResult
    func configure(_ configuration: URLSessionConfiguration) -> CassetteURLProtocol.Type {
        let refusal = configuration.identifier.map { CassetteError.backgroundSessionNotRoutable(identifier: $0) }
        if let refusal, let identifier = configuration.identifier {
            refused.withLock { $0.append(identifier) }
            if announcesWarnings { StandardError.warn(refusal.description) }
        }
        let made = SlotTable.shared.attach(router, configuration: configuration, reusable: false, refusal: refusal?.description)
        made.route(configuration, cache: router.access.cache.value)
        classes.withLock { $0.append(made) }
        return made
    }

    /// The identifiers of the background configurations ``configure(_:)`` was given, in order.
    var refusedBackgrounds: [String] { refused.withLock { $0 } }

    /// Routes a configuration the intercepted getters made (``Tape/interceptEverySession(routingTo:)``):
    /// all of them share one class, made at the first, so that an app host calling
    /// `URLSessionConfiguration.default` again and again makes no new class each time; each
    /// request finds its own configuration through its task's session (``SlotBinding/configuration(for:)``).
    func intercept(_ configuration: URLSessionConfiguration) {
        let shared = intercepted.withLock { shared -> CassetteURLProtocol.Type in
            if let shared { return shared }
            let made = SlotTable.shared.attach(router, configuration: nil, reusable: false, servesManyConfigurations: true)
            classes.withLock { $0.append(made) }
            shared = made
            return made
        }
        shared.route(configuration, cache: router.access.cache.value)
        watch.watch(configuration)
    }

    /// A session made from a copy of `configuration` (as `URLSession` copies it), routed through
    /// `router`, that Cassette knows: the copy's class serves this session alone, so its tasks
    /// find it without asking them (``Exchange/knownSession``).
    func makeSession(
        configuration: URLSessionConfiguration, delegate: (any URLSessionDelegate)?, delegateQueue: OperationQueue?
    ) -> URLSession {
        let own = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        let made = configure(own)
        let session = URLSession(configuration: own, delegate: delegate, delegateQueue: delegateQueue)
        SlotTable.shared.route(of: made)?.remember(session)
        return session
    }

    /// Cancels the own session's requests still answering (a replay waiting for its latency, a
    /// recording on its way), which then end as cancelled — and any that starts answering later,
    /// the session being about to end (``PendingChannels``).
    func cancelRequestsInFlight() {
        URLSession.cancel(ownRoute?.pending?.takeTasks() ?? [])
    }

    /// Detaches every class (requests through them fail as "already ejected" from now on),
    /// cancels live requests still recording and the own session's requests still answering,
    /// and invalidates the own session. Calling it again does nothing.
    func detach() {
        let detached = classes.withLock { classes in
            defer { classes = [] }
            return classes
        }
        guard !detached.isEmpty else { return }
        for protocolClass in detached { SlotTable.shared.detach(protocolClass) }
        router.shutDown()
        session.cancelTasksAndInvalidate(ownRoute?.pending?.takeTasks() ?? [])
        let given = lease.withLock { lease in
            defer { lease = nil }
            return lease
        }
        if let given { EphemeralStorage.giveBack(given) }
    }
}
