import Foundation

/// Applies a tape's ``Redaction`` and its hooks at the points of the pipeline where interactions
/// cross the line between the live world and the cassette, putting together the tape's rules
/// (``RedactionRules``, pure) and what it learned of secrets (``SecretLedger``):
///
/// - ``forRecording(_:)``: a recorded interaction, before it is kept (and later written);
/// - ``forMatching(_:)``: a live request, before it is compared with recordings;
/// - ``shown(_:)``: a request as a report, an error or a log shows it — redacted as it would be
///   stored, and never changing the ledger;
/// - ``forPlayback(_:bound:parts:)``: a recorded interaction, before it is replayed.
///
/// Only recording and matching write to the ledger: showing a request with a new secret does not
/// change the numbers the next recording gives (`RedactorLedgerTests`).
///
/// Thread-safe: its own parts are immutable; the ledger locks.
final class Redactor: Sendable {
    let rules: RedactionRules
    /// What the tape learned of secrets.
    let ledger: SecretLedger
    /// Secrets to their placeholders, and back; built once, since every request goes through them.
    private let placing: SecretScrubber
    private let restoring: SecretScrubber
    private let beforeRecord: (@Sendable (Interaction) -> Interaction?)?
    private let beforeReplay: (@Sendable (Interaction) -> Interaction?)?

    /// What each numbered placeholder of the cassette stood for (the ledger's).
    var bindings: PlaceholderBindings { ledger.bindings }

    /// Binds placeholders to the values a live request had in their place (``SecretLedger/bind(_:)``).
    func bind(_ learned: [String: String]) {
        ledger.bind(learned)
    }

    /// Values at least this long are searched for wherever else they appear (``Redaction/minimumEchoLength``).
    var minimumEchoLength: Int { rules.redaction.minimumEchoLength }

    /// - Throws: ``CassetteError/invalidRedactionPattern(_:reason:)`` for a body pattern that is not
    ///   a regular expression.
    convenience init(
        _ redaction: Redaction,
        beforeRecord: (@Sendable (Interaction) -> Interaction?)? = nil,
        beforeReplay: (@Sendable (Interaction) -> Interaction?)? = nil
    ) throws(CassetteError) {
        self.init(try RedactionRules.make(redaction), beforeRecord: beforeRecord, beforeReplay: beforeReplay)
    }

    /// A redactor that changes nothing: for sessions that only stub.
    static func none() -> Redactor {
        Redactor(RedactionRules.none, beforeRecord: nil, beforeReplay: nil)
    }

    private init(
        _ rules: RedactionRules,
        beforeRecord: (@Sendable (Interaction) -> Interaction?)?,
        beforeReplay: (@Sendable (Interaction) -> Interaction?)?
    ) {
        self.rules = rules
        ledger = SecretLedger()
        let placeholders = rules.redaction.placeholders.filter { !$0.secret.isEmpty }
        placing = SecretScrubber(pairs: placeholders.map { ($0.secret, $0.placeholder) })
        restoring = SecretScrubber(pairs: placeholders.map { ($0.placeholder, $0.secret) })
        self.beforeRecord = beforeRecord
        self.beforeReplay = beforeReplay
    }

    // MARK: The three points

    /// `interaction` as it may be stored: the `beforeRecord` hook first (nil: not recorded), then
    /// placeholders, then every rule (which leaves placeholders alone, so `Bearer <TOKEN>` stays),
    /// then every secret the rules found removed from the whole interaction.
    ///
    /// Each secret long enough to search for (``Redaction/minimumEchoLength``) becomes a
    /// numbered placeholder, `[REDACTED-1]`, the same one wherever it appears and in every
    /// interaction of the tape, numbered in the order the rules find them (so re-recording the
    /// same traffic writes the same numbers). A replay then matches a live value there and gives
    /// it back (``PlaceholderPattern``, ``PlaceholderBindings``). Shorter values, and numbers in
    /// JSON (a placeholder there would not be JSON), become `[REDACTED]` and `0` where the rules
    /// found them.
    func forRecording(_ interaction: Interaction) -> Interaction? {
        guard var interaction = beforeRecord.map({ $0(interaction) }) ?? interaction else { return nil }
        let lengths = BodyLengths(interaction)
        scrub(&interaction, with: placing)
        // First what the rules find, in the order they find it; then every copy of each found
        // secret becomes its placeholder; then the rules take out what is left.
        var probe = interaction
        var secrets = FoundSecrets()
        rules.redact(&probe, secrets: &secrets)
        remember(secrets)
        let known = ledger.current
        if known.numbered.isEmpty {
            interaction = probe
            scrub(&interaction, with: rules.echoScrubber(secrets.list + known.secrets))
        } else {
            scrub(&interaction, with: known.numbered)
            var left = FoundSecrets()
            rules.redact(&interaction, secrets: &left)
            // Nothing left for the rules: the ledger's scrubber is that of every known secret, built once.
            scrub(&interaction, with: left.isEmpty ? known.scrubber : rules.echoScrubber(left.list + known.secrets))
        }
        lengths.keepContentLengths(of: &interaction)
        return interaction
    }

    /// Goes on numbering placeholders after the highest `[REDACTED-n]` that `interactions`
    /// hold: a recording added to a cassette never gives another secret a number it uses.
    func continueNumbering(after interactions: [Interaction]) {
        var highest = 0
        for interaction in interactions {
            interaction.forEachPart(
                text: { _, text in
                    for number in PlaceholderPattern.numbers(in: Data(text.utf8)) { highest = max(highest, number) }
                },
                body: { _, body in
                    for number in PlaceholderPattern.numbers(in: body.data) { highest = max(highest, number) }
                })
        }
        ledger.continueNumbering(after: highest)
    }

    /// `interactions` with every secret the tape has found so far removed: the last pass before
    /// saving, for a secret found only in an interaction recorded after the one that echoes it.
    func removingKnownSecrets(from interactions: [Interaction]) -> [Interaction] {
        let known = ledger.current
        guard !known.scrubber.isEmpty else { return interactions }
        return interactions.map { interaction in
            var interaction = interaction
            let lengths = BodyLengths(interaction)
            scrub(&interaction, with: known.numbered)
            scrub(&interaction, with: known.scrubber)
            lengths.keepContentLengths(of: &interaction)
            return interaction
        }
    }

    /// A live request as it is compared with recordings: redacted exactly as ``forRecording(_:)``
    /// redacts the request of an interaction (without the hook), so that the two compare equal —
    /// the rules, then every secret they found in it and every secret the tape found before
    /// removed wherever it appears. What the rules find joins the tape's ledger (a secret matched
    /// now gets its number before the recording that echoes it).
    ///
    /// - Returns: the request as compared, and the body pattern whose matching did not finish on
    ///   it, if one did not (the body is then redacted whole; the router refuses the request).
    func forMatching(_ request: Interaction.Request) -> (request: Interaction.Request, failedPattern: FailedPattern?) {
        redacted(request, remembering: true)
    }

    /// `request` as reports, errors and logs show it — and as recorded requests are compared,
    /// which are already redacted: redacted as ``forMatching(_:)`` redacts it, and the ledger
    /// left as it was.
    func shown(_ request: Interaction.Request) -> Interaction.Request {
        redacted(request, remembering: false).request
    }

    /// A message a live client sent, as a miss report shows it: a text message redacted as a
    /// recorded one is (the tape's placeholders, the rules, every secret they found and every
    /// secret the tape found before), the ledger left as it was. Other messages are shown by
    /// their size or code only, which holds nothing to hide.
    func shown(_ message: ConversationMessage) -> ConversationMessage {
        guard case .text(let text) = message else { return message }
        var secrets = FoundSecrets()
        var data = Data(text.utf8)
        data = placing.apply(data) ?? data
        data = rules.redact(Interaction.Body(data, contentType: nil), contentType: nil, secrets: &secrets).data
        for scrubber in [rules.echoScrubber(secrets.list), ledger.knownSecrets].compactMap({ $0 }) {
            data = scrubber.apply(data) ?? data
        }
        return .text(String(decoding: data, as: UTF8.self))
    }

    private func redacted(
        _ request: Interaction.Request, remembering: Bool
    ) -> (request: Interaction.Request, failedPattern: FailedPattern?) {
        var request = request
        if !placing.isEmpty { scrub(&request, with: placing) }
        var secrets = FoundSecrets()
        rules.redact(&request, secrets: &secrets)
        if !secrets.isEmpty {
            if remembering { remember(secrets) }
            let echo = rules.echoScrubber(secrets.list)
            if !echo.isEmpty { scrub(&request, with: echo) }
        }
        // Every request passes here: only a tape that found secrets pays for scrubbing with them.
        if let earlier = ledger.knownSecrets { scrub(&request, with: earlier) }
        return (request, secrets.failedPattern)
    }

    /// Adds what the rules found to the ledger: the secrets long enough to search for that the
    /// rules do not keep.
    private func remember(_ secrets: FoundSecrets) {
        let worth = secrets.list.filter { $0.count >= rules.redaction.minimumEchoLength && !rules.isKept($0) }
        ledger.remember(worth, numbers: secrets.numbers)
    }

    /// Whether ``forPlayback(_:bound:)`` may change an interaction without bound placeholders:
    /// when it cannot, a replay skips it (and the copy of the interaction it would make).
    var changesPlayback: Bool { !restoring.isEmpty || beforeReplay != nil }

    /// `request` with the secrets of ``Redaction/placeholders`` replaced by their placeholders
    /// and nothing else redacted: a live request as it is compared with recordings that hold
    /// placeholders (``PlaceholderPattern``).
    func withPlaceholders(_ request: Interaction.Request) -> Interaction.Request {
        guard !placing.isEmpty else { return request }
        var request = request
        scrub(&request, with: placing)
        return request
    }

    /// `interaction` as it replays: placeholders give back their secrets in the response — the
    /// ones of ``Redaction/placeholders``, then, with `bound`, the values the tape learned its
    /// numbered placeholders stood for (``bindings``) — then the `beforeReplay` hook. Nil when the
    /// hook declines it.
    ///
    /// - Parameter parts: what is given its values back: what the client receives (the response
    ///   and the server's WebSocket messages); a conversation's messages are given theirs as they
    ///   are sent (``forPlayback(_:index:)``), when the values the live client sent in it are known.
    func forPlayback(_ interaction: Interaction, bound: Bool = false, parts: Interaction.Parts = .received) -> Interaction? {
        var interaction = interaction
        let learned = bound ? bindings.restorers : nil
        if !restoring.isEmpty || learned != nil {
            let lengths = BodyLengths(interaction)
            interaction.changeParts(
                in: parts, text: { _, text in self.restore(text, learned: learned) },
                body: { part, body in self.restore(body, in: part, learned: learned) })
            lengths.keepContentLengths(of: &interaction)
        }
        return beforeReplay.map { $0(interaction) } ?? interaction
    }

    /// A server's WebSocket message (the `index`th of its conversation) as it replays: the values
    /// the tape knows so far put back where it holds their placeholders, as ``forPlayback(_:bound:)``
    /// puts them back in a response. Called as the message is sent, so a value the live client
    /// sent earlier in the same conversation comes back.
    func forPlayback(_ message: Interaction.WebSocketMessage, index: Int) -> Interaction.WebSocketMessage {
        let learned = bindings.restorers
        guard !restoring.isEmpty || learned != nil, message.kind == .text || message.kind == .binary else { return message }
        var message = message
        message.data = restore(Interaction.Body(message.data), in: .message(index: index, from: message.from), learned: learned).data
        return message
    }

    private func restore(_ text: String, learned: (any: SecretScrubber, json: SecretScrubber)?) -> String {
        let restored = restoring.isEmpty ? text : restoring.apply(text)
        return learned.map { $0.any.apply(restored) } ?? restored
    }

    /// A body or message payload with the placeholders put back; in a JSON document a value goes
    /// back JSON-escaped.
    private func restore(
        _ body: Interaction.Body, in part: Interaction.Part, learned: (any: SecretScrubber, json: SecretScrubber)?
    ) -> Interaction.Body {
        var body = body
        if !restoring.isEmpty { body = restoring.applied(to: body, contentType: part.contentType) }
        guard let learned else { return body }
        let isJSON: Bool
        if case .message = part {
            isJSON = body.data.first { $0 > 0x20 }.map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") } ?? false
        } else {
            isJSON = part.contentType.map { Interaction.Body.isJSONMediaType(Interaction.Body.mediaType(of: $0)) } ?? false
        }
        return (isJSON ? learned.json : learned.any).applied(to: body, contentType: part.contentType)
    }

    /// The body lengths of an interaction before it is changed: a `Content-Length` that was true
    /// of a body follows it when redaction changes its length, in the request and in the response,
    /// so that the stored `Content-Length` always equals the stored body's length and a replay
    /// (which keeps that promise as the wire would: ``Interaction/Response/declaredBodyLength``)
    /// delivers the whole redacted body. A `Content-Length` that was not true (a body cut short, a
    /// compressed one) is left as it was: it describes what happened.
    private struct BodyLengths {
        var request: Int
        var response: Int?

        init(_ interaction: Interaction) {
            request = interaction.request.body.data.count
            response = interaction.response?.body.data.count
        }

        func keepContentLengths(of interaction: inout Interaction) {
            let body = interaction.request.body.data.count
            if body != request, interaction.request.headers["Content-Length"] == String(request),
                !interaction.request.headers.contains("Content-Encoding")
            {
                interaction.request.headers["Content-Length"] = String(body)
            }
            if let length = response, var changed = interaction.response, changed.body.data.count != length,
                changed.declaredBodyLength(answering: interaction.request.method) == length
            {
                changed.headers["Content-Length"] = String(changed.body.data.count)
                interaction.response = changed
            }
        }
    }

    private func scrub(_ interaction: inout Interaction, with scrubber: SecretScrubber) {
        interaction = scrubber.applied(to: interaction)
    }

    private func scrub(_ request: inout Interaction.Request, with scrubber: SecretScrubber) {
        request = scrubber.applied(to: request)
    }
}

extension Redaction {
    /// `interactions` as a tape with these rules would have recorded them: for `cassette redact`,
    /// which applies rules to cassettes recorded before the rules existed.
    ///
    /// - Throws: ``CassetteError/invalidRedactionPattern(_:reason:)`` for a body pattern that is
    ///   not a regular expression.
    package func redacting(_ interactions: [Interaction]) throws(CassetteError) -> [Interaction] {
        let redactor = try Redactor(self)
        // Placeholders the cassette already holds keep their numbers; new secrets get new ones.
        redactor.continueNumbering(after: interactions)
        return interactions.compactMap(redactor.forRecording)
    }
}
