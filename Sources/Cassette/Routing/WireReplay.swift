import Foundation

/// A replay for a client on the wire (``TapeServer``), decided by the router without a
/// `URLSession`: the interaction that answers a request, prepared exactly as a session's replay
/// is, and its delivery plan. Every request crossing a session costs several thread hops and the
/// Foundation objects of a `URLRequest` and an `HTTPURLResponse`; a replay needs none of them.
struct WireReplay {
    var prepared: Router.PreparedReplay
    var plan: DeliveryPlan
}

extension Router {
    /// The replay answering `request` for a client on the wire, or nil when the session path
    /// must decide: stubs are installed (their conditions read the `URLRequest` as a session
    /// sends it), the mode does not replay, or nothing matches — recording and the unmatched
    /// report happen there, once, as for any request. A redirect is not followed: the client on
    /// the wire follows it if it wants to.
    ///
    /// - Parameter request: as a session would capture it (``Interaction/Request/capturing(_:)``).
    func wireReplay(for request: Interaction.Request) -> WireReplay? {
        guard setup.replays, stubs.isEmpty, Stubs.global.isEmpty else { return nil }
        let redacted = redactor.forMatching(request)
        guard case .found(let index, let interaction, let redactedValues) = playback.take(redacted, live: request) else { return nil }
        noteReplay(of: index, redactedValues: redactedValues)
        let bound = playback.hasPlaceholders && !redactor.bindings.isEmpty
        let answer = OriginMove.replayed(redactor.forPlayback(interaction, bound: bound), for: request.url, rule: playback.rules.origin)
        let prepared = prepare(answer, method: request.method, shownAs: { redacted })
        return WireReplay(prepared: prepared, plan: prepared.plan(inPieces: true, timeout: nil))
    }
}
