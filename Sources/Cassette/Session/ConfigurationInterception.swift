import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(ObjectiveC)
import ObjectiveC
#endif

/// What ``Tape/interceptEverySession(routingTo:)`` returns: while it lasts, the session configurations
/// `URLSessionConfiguration.default` and `.ephemeral` are intercepted — each one made starts with
/// Cassette's protocol. Call ``undo()`` to stop (the trait-less way: `defer { interception.undo() }`).
public final class ConfigurationInterception: Sendable {
    private let undone = Locked(false)
    private let identity = UUID()
    /// Whether this interception holds the replaced getters (and so releases them when undone).
    private let holdsGetters: Bool

    /// Intercepts: holds the replaced getters (installing them if it is the first) and routes the
    /// configurations made where no tape is current to `tape`. With `holdingGetters: false` it
    /// only routes (the Linux tests' stand-in getter): undoing it then never releases the getters
    /// a real interception in the same process holds.
    init(routingTo tape: Tape?, holdingGetters: Bool = true) throws(CassetteError) {
        if holdingGetters { try ConfigurationHooks.retain() }
        holdsGetters = holdingGetters
        if let tape { ConfigurationHooks.fallbacks.withLock { $0.append((identity, tape)) } }
    }

    /// Stops putting Cassette's protocol into new configurations (once every interception made
    /// is undone). Sessions made meanwhile keep it. Calling it again does nothing.
    public func undo() {
        let first = undone.withLock { undone -> Bool in
            defer { undone = true }
            return !undone
        }
        guard first else { return }
        ConfigurationHooks.fallbacks.withLock { $0.removeAll { $0.interception == identity } }
        if holdsGetters { ConfigurationHooks.release() }
    }
}

extension Tape {
    /// Intercepts every session made from `URLSessionConfiguration.default` or `.ephemeral` from
    /// now on, without changing the code under test (Apple platforms).
    ///
    /// ```swift
    /// // Once, before the code under test makes its sessions (a test's set-up, a UI-test host):
    /// let interception = try Tape.interceptEverySession()
    /// defer { interception.undo() }
    ///
    /// @Test(.cassette) func loadsFeed() async throws {
    ///     let model = FeedModel()          // makes its own URLSession(configuration: .default)
    ///     try await model.load()           // goes through this test's cassette
    /// }
    /// ```
    ///
    /// The configuration getters are replaced (swizzled, as OHHTTPStubs does) so that each
    /// configuration they return starts with the protocol of the tape that is ``current`` in the
    /// task that asked for it — the running test's — or else of `tape`: in an app under UI test,
    /// where no task has a tape, open one when the app starts and pass it here. A configuration
    /// made with neither gets a protocol that fails its requests with a clear error instead of
    /// reaching the network. The sessions Cassette makes for itself (recording, the drift check,
    /// a `wss://` relay) are never intercepted.
    /// Background configurations (`.background(withIdentifier:)`) run in another process and
    /// cannot be intercepted; nor can `URLSession.shared` this way (see ``interceptSharedSession()``).
    /// What goes around the cassette is said when the tape is ejected, among its warnings
    /// (``VerificationFinding/interceptionBypassed(cassette:message:)``): a background
    /// configuration made meanwhile, and a configuration in which another protocol class came to
    /// stand before Cassette's (a debugging tool such as netfox, or the code under test).
    ///
    /// - Throws: ``CassetteError/everySessionNotInterceptable`` on Linux, where
    ///   FoundationNetworking's configuration getters cannot be replaced (there is no
    ///   Objective-C runtime): give the code under test ``session``, or call ``configure(_:)`` on
    ///   the configuration it uses.
    public static func interceptEverySession(routingTo tape: Tape? = nil) throws -> ConfigurationInterception {
        try ConfigurationInterception(routingTo: tape)
    }
}

/// The replaced getters, installed while at least one interception lasts.
package enum ConfigurationHooks {
    private static let count = Locked(0)

    static func retain() throws(CassetteError) {
        #if canImport(ObjectiveC)
        count.withLock { count in
            if count == 0 { install() }
            count += 1
        }
        #else
        throw .everySessionNotInterceptable
        #endif
    }

    static func release() {
        #if canImport(ObjectiveC)
        count.withLock { count in
            guard count > 0 else { return }
            count -= 1
            if count == 0 { uninstall() }
        }
        #endif
    }

    /// The tapes given to ``Tape/interceptEverySession(routingTo:)``, by interception, in order:
    /// the last one routes configurations made where no tape is current.
    static let fallbacks = Locked<[(interception: UUID, tape: Tape)]>([])

    /// Set while Cassette makes a configuration for its own session (``ownConfiguration()``).
    @TaskLocal private static var bypassed = false

    /// An ephemeral configuration for a session Cassette makes for itself (recording, the drift
    /// check, a `wss://` relay, a tape's own session): never routed by the intercepted getters,
    /// whatever tape is current, and without Cassette's protocols in it. The one place such a
    /// configuration is made, so that no session of Cassette's own is caught by
    /// ``Tape/interceptEverySession(routingTo:)``.
    package static func ownConfiguration(_ make: () -> URLSessionConfiguration = { .ephemeral }) -> URLSessionConfiguration {
        let configuration = $bypassed.withValue(true) { make() }
        configuration.protocolClasses = (configuration.protocolClasses ?? []).filter { !($0 is CassetteURLProtocol.Type) }
        return configuration
    }

    /// Puts the protocol of the current tape (or of the interception's tape, or the unrouted
    /// one) first in `configuration`; nothing while Cassette makes its own.
    static func route(_ configuration: URLSessionConfiguration) {
        guard !bypassed else { return }
        if let tape = Tape.current ?? fallbacks.withLock({ $0.last?.tape }) {
            tape.routes.intercept(configuration)
        } else {
            let others = (configuration.protocolClasses ?? []).filter { !($0 is CassetteURLProtocol.Type) }
            configuration.protocolClasses = [UnroutedProtocol.self] + others
        }
    }

    /// Notes a background configuration made for `identifier` (the replaced background getter
    /// calls it) with the tape that would have routed it, which says so when it is ejected
    /// (``InterceptionWatch``); with none, says so now. Nothing while Cassette makes its own.
    static func noteBackground(identifier: String) {
        guard !bypassed else { return }
        if let tape = Tape.current ?? fallbacks.withLock({ $0.last?.tape }) {
            tape.routes.watch.noteBackground(identifier: identifier)
        } else {
            StandardError.warn(InterceptionWatch.message(background: identifier))
        }
    }

    /// How many interceptions hold the getters now (for tests).
    package static var holders: Int { count.current }

    #if canImport(ObjectiveC)
    private typealias Getter = @convention(c) (AnyClass, Selector) -> URLSessionConfiguration
    private typealias BackgroundGetter = @convention(c) (AnyClass, Selector, NSString) -> URLSessionConfiguration
    /// Each replaced getter's implementation as Cassette installed it: uninstalling restores the
    /// original only while this is still the getter's implementation.
    private static let ours = Locked<[String: IMP]>([:])
    private static let originals = Locked<[String: IMP]>([:])
    private static let selectors = ["defaultSessionConfiguration", "ephemeralSessionConfiguration"]
    private static let backgroundSelector = "backgroundSessionConfigurationWithIdentifier:"
    /// Every getter replaced: ``NetworkingInternals`` says at the first tape when one is missing.
    static var getters: [String] { selectors + [backgroundSelector] }

    /// Replaces each getter — unless Cassette's replacement is still its implementation (left in
    /// place by an earlier uninstall because another library replaced it after Cassette): then
    /// it only routes again. A replacement of Cassette's that a later one calls routes only while
    /// an interception holds the getters, so one left behind does nothing. The background getter's
    /// replacement routes nothing (no protocol sees a background session): it notes the identifier.
    private static func install() {
        for name in selectors {
            replace(name) { current, selector in
                let getter = unsafeBitCast(current, to: Getter.self)
                let replacement: @convention(block) (AnyClass) -> URLSessionConfiguration = { type in
                    let configuration = getter(type, selector)
                    if holders > 0 { route(configuration) }
                    return configuration
                }
                return imp_implementationWithBlock(replacement)
            }
        }
        replace(backgroundSelector) { current, selector in
            let getter = unsafeBitCast(current, to: BackgroundGetter.self)
            let replacement: @convention(block) (AnyClass, NSString) -> URLSessionConfiguration = { type, identifier in
                if holders > 0 { noteBackground(identifier: identifier as String) }
                return getter(type, selector, identifier)
            }
            return imp_implementationWithBlock(replacement)
        }
    }

    /// Sets the class method `name` of `URLSessionConfiguration` to what `make` builds from its
    /// current implementation, and keeps both. A getter this OS lacks is left alone: the first
    /// tape has said so (``NetworkingInternals``).
    private static func replace(_ name: String, with make: (IMP, Selector) -> IMP) {
        let selector = NSSelectorFromString(name)
        guard let method = class_getClassMethod(URLSessionConfiguration.self, selector) else { return }
        let current = method_getImplementation(method)
        if ours.withLock({ $0[name] }) == current { return }
        let installed = make(current, selector)
        method_setImplementation(method, installed)
        originals.withLock { $0[name] = current }
        ours.withLock { $0[name] = installed }
    }

    /// Puts each getter's original back while Cassette's replacement is still its implementation.
    /// When another library replaced it since (OHHTTPStubs, Pulse, netfox in the same app), its
    /// replacement calls Cassette's, which is left in place, doing nothing: restoring the original
    /// would undo the other library's.
    private static func uninstall() {
        for name in selectors + [backgroundSelector] {
            guard let method = class_getClassMethod(URLSessionConfiguration.self, NSSelectorFromString(name)),
                let installed = ours.withLock({ $0[name] }), method_getImplementation(method) == installed,
                let original = originals.withLock({ $0.removeValue(forKey: name) })
            else { continue }
            method_setImplementation(method, original)
            ours.withLock { $0[name] = nil }
        }
    }
    #endif
}

/// The protocol of a configuration made while every session is intercepted but no tape was
/// current: its requests fail with a clear error rather than reach the network unrecorded.
final class UnroutedProtocol: CassetteURLProtocol {
    override class var route: SlotBinding? { nil }

    override class func noRouterExplanation(_ request: String) -> String {
        "Cassette: \(request) was made through a session whose configuration was created while no test had a cassette "
            + "(Tape.interceptEverySession() is in effect). Create the session inside the test that has the .cassette trait "
            + "(or withCassette), or give the code under test tape.session."
    }
}
