import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a recording keeps of a live exchange, and what it says about what it drops: the rules
/// of recording, apart from the sending (``LiveForwarder``) and the delivering (the executor).
package struct RecordingPolicy: Sendable {
    /// The cassette recorded into; nil for a stub session's pass-through, which keeps nothing.
    var file: URL?
    /// Whether requests that could not connect are saved (``Tape/Options/savesConnectionFailures``).
    var savesConnectionFailures: Bool
    /// Redacts what is kept.
    var redactor: Redactor

    /// Errors that mean the request never reached a server: while recording they say more about
    /// the machine than about the API (see ``Tape/Options/savesConnectionFailures``).
    static let connectionFailureCodes: Set<URLError.Code> = [
        .cannotConnectToHost, .cannotFindHost, .notConnectedToInternet, .dnsLookupFailed,
    ]

    /// What is kept of one live exchange.
    enum Kept {
        /// This interaction, redacted, in the place reserved for it.
        case interaction(Interaction)
        /// Nothing, silently: a pass-through, a cancelled request, or a redaction hook left it out.
        case nothing
        /// Nothing: the request could not connect (the machine was offline, not the API down);
        /// the warning says so and how to keep such errors.
        case unsavedConnectionFailure(warning: String)
    }

    /// What to keep of `outcome`, the live answer to `request` sent at `recordedAt`, as the
    /// caller saw it. `cancelled`: whether the caller cancelled (a cancelled exchange is not saved).
    func keep(_ outcome: LiveForwarder.Outcome, of request: Interaction.Request, recordedAt: Date, cancelled: Bool) -> Kept {
        guard let file else { return .nothing }
        if cancelled, outcome.error?.code == .cancelled { return .nothing }
        if !savesConnectionFailures, outcome.response == nil, let code = outcome.error?.code, Self.connectionFailureCodes.contains(code) {
            return .unsavedConnectionFailure(warning: Self.unsavedConnectionFailure(redactor.shown(request), code: code, file: file))
        }
        let timing = Self.timing(firstByte: outcome.firstByte, duration: outcome.duration)
        var response = outcome.response.map { Interaction.Response($0, body: outcome.body, requestURL: request.url) }
        if let headers = response?.headers,
            let stream = StreamCapture.stream(of: outcome.body, arrivals: outcome.arrivals, headers: headers, timing: timing)
        {
            response?.stream = stream
        }
        let interaction = Interaction(
            recordedAt: recordedAt, request: request, challenges: outcome.challenges, response: response,
            error: outcome.error.map(Interaction.TransportError.init), timing: timing)
        return redactor.forRecording(interaction).map(Kept.interaction) ?? .nothing
    }

    /// What to keep of `interaction`, recorded whole by an executor of its own (a WebSocket
    /// conversation relayed by the server): nothing for a pass-through, else it redacted.
    func keep(_ interaction: Interaction) -> Interaction? {
        guard file != nil else { return nil }
        return redactor.forRecording(interaction)
    }

    /// Measured timing, to the millisecond: finer digits are noise, and they would make every
    /// re-recording a diff.
    package static func timing(firstByte: TimeInterval?, duration: TimeInterval) -> Interaction.Timing {
        func milliseconds(_ seconds: TimeInterval) -> TimeInterval { (seconds * 1000).rounded() / 1000 }
        let end = milliseconds(duration)
        return Interaction.Timing(firstByte: min(milliseconds(firstByte ?? duration), end), duration: end)
    }

    /// The warning for a request that could not connect while recording and was not saved.
    private static func unsavedConnectionFailure(_ request: Interaction.Request, code: URLError.Code, file: URL) -> String {
        "\(request.method) \(request.url) could not connect (\(Interaction.TransportError.Code(rawValue: code.rawValue))) "
            + "while recording \(file.path); the caller got the error, but it was not saved, so that "
            + "a recording made offline does not replay the outage. Record again when the server can be reached, or set "
            + "Tape.Options(savesConnectionFailures: true) to keep such errors."
    }
}
