import Foundation

/// One recorded exchange: a request, and what came back — a response, a transport error, or a
/// response that failed part-way (both).
///
/// ```swift
/// let interaction = Interaction(
///     request: .init(method: "GET", url: "https://api.example.com/users/42"),
///     response: .init(status: 200, headers: ["Content-Type": "application/json"],
///                     body: .init(Data(#"{"id":42}"#.utf8), contentType: "application/json")),
///     timing: .init(firstByte: 0.084, duration: 0.112))
/// ```
///
/// A cassette file needs a response, an error, or both: `CassetteDocument/problems()` says
/// when one is missing.
public struct Interaction: Sendable, Equatable {
    /// When it was recorded, to the millisecond. Optional: hand-written interactions may omit it.
    public var recordedAt: Date?
    /// The request as the caller built it.
    public var request: Request
    /// The HTTP authentication challenges the server made before the ``response``, in order, and
    /// how the caller's delegate answered each (``Challenge``); empty for most interactions.
    public var challenges: [Challenge]
    /// The response, if one arrived.
    public var response: Response?
    /// The transport error, instead of a response or after one (a connection dropped mid-body).
    public var error: TransportError?
    /// How long the exchange took when it was recorded.
    public var timing: Timing?
    /// When set (by hand, in the file), how this interaction replays, whatever latency the
    /// tape uses: `"latency": { "firstByte": 2, "duration": 2.5 }`.
    public var latency: Latency?
    /// When the request was a WebSocket upgrade answered with `101`: the conversation that
    /// followed (``WebSocketConversation``).
    public var webSocket: WebSocketConversation?
    /// When set, this interaction simulates something the live service would not do today — a
    /// `503`, a timeout, a slow answer — and says what, in a line: `"scenario": "status 503"`.
    /// `cassette fault` sets it; set it by hand on an interaction edited into a fault. A marked
    /// interaction keeps replaying when the tape goes live (`CASSETTE_LIVE`, `Tape.isLive`), and
    /// `cassette check --live` skips it, with a line: the service cannot be asked to fail again.
    public var scenario: String?

    /// An interaction from its parts.
    public init(
        recordedAt: Date? = nil,
        request: Request,
        challenges: [Challenge] = [],
        response: Response? = nil,
        error: TransportError? = nil,
        timing: Timing? = nil,
        latency: Latency? = nil,
        webSocket: WebSocketConversation? = nil,
        scenario: String? = nil
    ) {
        self.recordedAt = recordedAt
        self.request = request
        self.challenges = challenges
        self.response = response
        self.error = error
        self.timing = timing
        self.latency = latency
        self.webSocket = webSocket
        self.scenario = scenario
    }
}
