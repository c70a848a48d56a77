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

    /// Attaches `router` and makes its own session from an ephemeral configuration (with the
    /// tape's cache when the router's sessions keep theirs).
    init(router: Router) {
        self.router = router
        let configuration = ConfigurationHooks.ownConfiguration()
        configuration.urlCache = router.access.cache.value
        let own = SlotTable.shared.attach(router, configuration: configuration, reusable: true)
        own.route(configuration, cache: router.access.cache.value)
        classes = Locked([own])
        session = URLSession(configuration: configuration)
        SlotTable.shared.route(of: own)?.remember(session)
    }

    /// Routes the sessions made from `configuration` through `router`, with a class of their own
    /// that is retired when the routes are detached (the caller's sessions may outlive them).
    ///
    /// - Throws: ``CassetteError/backgroundSessionNotRoutable(identifier:)`` for a background
    ///   configuration (it has an `identifier`), on every platform alike.
    @discardableResult
    func configure(_ configuration: URLSessionConfiguration) throws(CassetteError) -> CassetteURLProtocol.Type {
        if let identifier = configuration.identifier { throw .backgroundSessionNotRoutable(identifier: identifier) }
        let made = SlotTable.shared.attach(router, configuration: configuration, reusable: false)
        made.route(configuration, cache: router.access.cache.value)
        classes.withLock { $0.append(made) }
        return made
    }

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
    ) throws(CassetteError) -> URLSession {
        let own = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        let made = try configure(own)
        let session = URLSession(configuration: own, delegate: delegate, delegateQueue: delegateQueue)
        SlotTable.shared.route(of: made)?.remember(session)
        return session
    }

    /// Detaches every class (requests through them fail as "already ejected" from now on),
    /// cancels live requests still recording and invalidates the own session. Calling it again
    /// does nothing.
    func detach() {
        let detached = classes.withLock { classes in
            defer { classes = [] }
            return classes
        }
        guard !detached.isEmpty else { return }
        for protocolClass in detached { SlotTable.shared.detach(protocolClass) }
        router.shutDown()
        session.invalidateAndCancel()
    }
}
