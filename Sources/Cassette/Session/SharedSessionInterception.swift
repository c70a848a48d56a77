import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Routes `URLSession.shared` to one tape at a time.
///
/// `.shared` has no configuration to put a protocol into, only the process-wide
/// `URLProtocol.registerClass`, which on Linux reaches `.shared` only when it runs before
/// `.shared` is first used (see ``register()``). So: register once, verify with a request that `.shared` is intercepted,
/// and let one tape at a time own it (an async FIFO lock, so waiting tests do not block threads).
enum SharedSessionInterception {
    /// The host of the self-check request; `.invalid` never resolves, so an unintercepted check
    /// fails fast with `cannotFindHost` instead of reaching anything real.
    static let selfCheckHost = "cassette-self-check.invalid"

    private static let registered = Locked(false)
    private static let owner = Locked<SlotBinding?>(nil)
    private static let gate = AsyncGate()
    /// The self-check's result, once known; it cannot change within a process.
    private static let verdict = Locked<Bool?>(nil)

    /// The owning tape's route, with `.shared`'s own configuration (its cookie storage and
    /// policies apply to the replies, as live).
    static var currentRoute: SlotBinding? { owner.current }

    /// Registers ``SharedSessionProtocol`` ahead of the platform's own protocols.
    ///
    /// On Linux `.shared` takes the registered classes, in order, when it is first used, and
    /// FoundationNetworking registers its HTTP protocol when the first session of the process is
    /// made; a class registered after that comes second and never answers. So the built-in
    /// classes (those of `URLSessionConfiguration.default`) are taken out and put back after
    /// Cassette's: `.shared` is intercepted whatever sessions came before, as long as `.shared`
    /// itself was not used yet (measured on Swift 6.3.1).
    static func register() {
        registered.withLock { registered in
            guard !registered else { return }
            #if canImport(FoundationNetworking)
            let builtIn = URLSessionConfiguration.default.protocolClasses ?? []
            for protocolClass in builtIn { URLProtocol.unregisterClass(protocolClass) }
            registered = URLProtocol.registerClass(SharedSessionProtocol.self)
            for protocolClass in builtIn { _ = URLProtocol.registerClass(protocolClass) }
            #else
            registered = URLProtocol.registerClass(SharedSessionProtocol.self)
            #endif
        }
    }

    /// Waits for `.shared`, then routes it to `router`.
    static func acquire(_ router: Router) async throws {
        register()
        try await verifyInterception()
        await gate.acquire()
        let route = SlotBinding(router: router, configuration: URLSession.shared.configuration)
        owner.withLock { $0 = route }
    }

    /// Gives `.shared` up, if `router` owns it.
    static func release(_ router: Router) {
        let released = owner.withLock { owner -> Bool in
            guard owner?.router === router else { return false }
            owner = nil
            return true
        }
        if released { gate.release() }
    }

    private static func verifyInterception() async throws {
        if let known = verdict.current {
            if !known { throw CassetteError.sharedSessionNotInterceptable }
            return
        }
        var request = URLRequest(url: URL(string: "http://\(selfCheckHost)/")!)
        request.timeoutInterval = 10
        let intercepted: Bool
        do {
            let (_, response) = try await URLSession.shared.data(for: request)
            intercepted = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: SharedSessionProtocol.selfCheckHeader) == "1"
        } catch {
            intercepted = false
        }
        verdict.withLock { $0 = intercepted }
        if !intercepted { throw CassetteError.sharedSessionNotInterceptable }
    }
}

/// The protocol registered for `URLSession.shared`: answers only while a tape owns `.shared`
/// (and the self-check), so that `.shared` behaves normally the rest of the time.
final class SharedSessionProtocol: CassetteURLProtocol {
    static let selfCheckHeader = "X-Cassette-Self-Check"

    override class var route: SlotBinding? { SharedSessionInterception.currentRoute }
    override class var answersWithoutRouter: Bool { false }

    override class func canInit(with request: URLRequest) -> Bool {
        if request.url?.host == SharedSessionInterception.selfCheckHost { return true }
        return super.canInit(with: request)
    }

    override func startLoading() {
        guard request.url?.host == SharedSessionInterception.selfCheckHost, let url = request.url else {
            super.startLoading()
            return
        }
        let channel = ClientChannel(self)
        let response = HTTPURLResponse(url: url, statusCode: 204, httpVersion: "HTTP/1.1", headerFields: [Self.selfCheckHeader: "1"])
        channel.deliver(response, body: Data(), error: nil)
    }
}
