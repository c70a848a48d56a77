import Foundation

/// Applies a tape's ``Redaction`` and its hooks at the three points of the pipeline where
/// interactions cross the line between the live world and the cassette:
///
/// - ``forRecording(_:)``: a recorded interaction, before it is kept (and later written);
/// - ``forMatching(_:)``: a live request, and each recorded one, before they are compared or shown
///   in a report;
/// - ``forPlayback(_:)``: a recorded interaction, before it is replayed.
///
/// Thread-safe: immutable after `init`.
final class Redactor: @unchecked Sendable {
    private let redaction: Redaction
    private let headerNames: Set<String>
    private let queryNames: Set<String>
    /// The lengths of ``queryNames`` in bytes: most query names are ruled out by their length alone.
    private let queryNameLengths: Set<Int>
    private let formNames: Set<String>
    private let jsonKeys: Set<String>
    private let jsonPaths: [JSONPathPattern]
    /// `NSRegularExpression` is immutable and documented as safe to share between threads.
    private let patterns: [NSRegularExpression]
    /// Secrets to their placeholders, and back; built once, since every request goes through them.
    private let placing: SecretScrubber
    private let restoring: SecretScrubber
    /// Texts the rules leave alone: `[REDACTED]`, and the placeholders, which stand for secrets
    /// already taken out.
    private let keptTexts: Set<String>
    private let beforeRecord: (@Sendable (Interaction) -> Interaction?)?
    private let beforeReplay: (@Sendable (Interaction) -> Interaction?)?
    /// Every secret a rule found so far in any interaction of the tape (recorded, or live and
    /// matched), long enough to search for: a secret is replaced everywhere it appears, also in an
    /// interaction where no rule found it (a cookie value echoed into a later request's query).
    private let known = Locked(KnownSecrets())
    /// What each numbered placeholder of the cassette stood for, as the tape learned it from
    /// live requests (see ``PlaceholderPattern``).
    let bindings = PlaceholderBindings()

    /// Binds placeholders to the values a live request had in their place (``bindings``), and
    /// makes a recording by this tape write each such value as that placeholder again, whatever
    /// number it was given when the live request was redacted for matching.
    func bind(_ learned: [String: String]) {
        guard !learned.isEmpty else { return }
        bindings.bind(learned)
        let bound = bindings.values
        known.withLock { known in
            var changed = false
            for (placeholder, value) in bound where known.placeholders[value] != nil && known.placeholders[value] != placeholder {
                known.placeholders[value] = placeholder
                changed = true
            }
            if changed {
                known.numbered = SecretScrubber(pairs: known.placeholders.sorted { $0.value < $1.value }.map { ($0.key, $0.value) })
            }
        }
    }

    /// Values at least this long are searched for wherever else they appear (``Redaction/minimumEchoLength``).
    var minimumEchoLength: Int { redaction.minimumEchoLength }

    private struct KnownSecrets {
        var secrets: Set<String> = []
        var scrubber = SecretScrubber(pairs: [])
        /// Each secret long enough to search for, and its numbered placeholder in the file.
        var placeholders: [String: String] = [:]
        var numbered = SecretScrubber(pairs: [])
        /// The number the next secret gets.
        var nextNumber = 1
    }

    /// Whether `text` is left alone by the rules: `[REDACTED]`, a numbered placeholder, or one
    /// of ``Redaction/placeholders``: each stands for a secret already taken out.
    private func isKept(_ text: String) -> Bool {
        keptTexts.contains(text) || (text.hasPrefix(PlaceholderPattern.prefix) && PlaceholderPattern.isPlaceholder(text))
    }

    /// - Throws: ``CassetteError/invalidRedactionPattern(_:reason:)`` for a body pattern that is not
    ///   a regular expression.
    convenience init(
        _ redaction: Redaction,
        beforeRecord: (@Sendable (Interaction) -> Interaction?)? = nil,
        beforeReplay: (@Sendable (Interaction) -> Interaction?)? = nil
    ) throws(CassetteError) {
        var patterns: [NSRegularExpression] = []
        for pattern in redaction.bodyPatterns {
            do {
                patterns.append(try NSRegularExpression(pattern: pattern))
            } catch {
                throw .invalidRedactionPattern(pattern, reason: (error as NSError).localizedDescription)
            }
        }
        self.init(redaction, patterns: patterns, beforeRecord: beforeRecord, beforeReplay: beforeReplay)
    }

    /// A redactor that changes nothing: for sessions that only stub.
    static func none() -> Redactor {
        Redactor(.none, patterns: [], beforeRecord: nil, beforeReplay: nil)
    }

    private init(
        _ redaction: Redaction,
        patterns: [NSRegularExpression],
        beforeRecord: (@Sendable (Interaction) -> Interaction?)?,
        beforeReplay: (@Sendable (Interaction) -> Interaction?)?
    ) {
        self.redaction = redaction
        headerNames = Set(redaction.headers.map { $0.lowercased() })
        queryNames = Set(redaction.queryParameters.map(Redaction.comparable))
        queryNameLengths = Set(queryNames.map(\.utf8.count))
        formNames = Set(redaction.formFields.map(Redaction.comparable))
        jsonKeys = Set(redaction.jsonKeys.map(Redaction.comparable))
        jsonPaths = redaction.jsonPaths.map(JSONPathPattern.init)
        self.patterns = patterns
        let placeholders = redaction.placeholders.filter { !$0.secret.isEmpty }
        placing = SecretScrubber(pairs: placeholders.map { ($0.secret, $0.placeholder) })
        restoring = SecretScrubber(pairs: placeholders.map { ($0.placeholder, $0.secret) })
        keptTexts = Set([Redaction.replacement] + placeholders.map(\.placeholder))
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
        redact(&probe, secrets: &secrets)
        remember(secrets)
        let (numbered, earlier) = known.withLock { ($0.numbered, $0.secrets) }
        if numbered.isEmpty {
            interaction = probe
            scrub(&interaction, with: echoScrubber(secrets.list + earlier))
        } else {
            scrub(&interaction, with: numbered)
            var left = FoundSecrets()
            redact(&interaction, secrets: &left)
            scrub(&interaction, with: echoScrubber(left.list + earlier))
        }
        lengths.keepContentLengths(of: &interaction)
        return interaction
    }

    /// The rules, over every part of `interaction` (``Interaction/changeParts(in:urlsAndHeaders:text:body:)``).
    private func redact(_ interaction: inout Interaction, secrets: inout FoundSecrets) {
        interaction.changeParts(
            urlsAndHeaders: textRulesApply, text: { self.redact($1, in: $0, secrets: &secrets) },
            body: { self.redact($1, contentType: $0.contentType, secrets: &secrets) })
    }

    /// The rules, over every part of `request`.
    private func redact(_ request: inout Interaction.Request, secrets: inout FoundSecrets) {
        request.changeParts(
            urlsAndHeaders: textRulesApply, text: { self.redact($1, in: $0, secrets: &secrets) },
            body: { self.redact($1, contentType: $0.contentType, secrets: &secrets) })
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
        known.withLock { $0.nextNumber = max($0.nextNumber, highest + 1) }
    }

    /// `interactions` with every secret the tape has found so far removed: the last pass before
    /// saving, for a secret found only in an interaction recorded after the one that echoes it.
    func removingKnownSecrets(from interactions: [Interaction]) -> [Interaction] {
        let (numbered, scrubber) = known.withLock { ($0.numbered, $0.scrubber) }
        guard !scrubber.isEmpty else { return interactions }
        return interactions.map { interaction in
            var interaction = interaction
            let lengths = BodyLengths(interaction)
            scrub(&interaction, with: numbered)
            scrub(&interaction, with: scrubber)
            lengths.keepContentLengths(of: &interaction)
            return interaction
        }
    }

    /// `request` redacted exactly as ``forRecording(_:)`` redacts the request of an interaction
    /// (without the hook), so that a live request and its recording compare equal: the rules, then
    /// every secret they found in it and every secret the tape found before removed wherever it
    /// appears.
    ///
    /// - Parameter remembering: whether what the rules find joins the tape's known secrets (live
    ///   requests); recorded requests are already redacted.
    func forMatching(_ request: Interaction.Request, remembering: Bool = true) -> Interaction.Request {
        var request = request
        if !placing.isEmpty { scrub(&request, with: placing) }
        var secrets = FoundSecrets()
        redact(&request, secrets: &secrets)
        if !secrets.isEmpty {
            if remembering { remember(secrets) }
            let echo = echoScrubber(secrets.list)
            if !echo.isEmpty { scrub(&request, with: echo) }
        }
        // Every request passes here: only a tape that found secrets pays for scrubbing with them.
        if let earlier = known.withLock({ $0.secrets.isEmpty ? nil : $0.scrubber }) { scrub(&request, with: earlier) }
        return request
    }

    /// Adds what the rules found to the tape's known secrets, and numbers the new ones: a value
    /// the tape learned a placeholder stood for gets that placeholder back; a secret that is the
    /// other spelling (percent-encoded or decoded) of a numbered one shares its number.
    private func remember(_ secrets: FoundSecrets) {
        let worth = secrets.list.filter { $0.count >= redaction.minimumEchoLength && !isKept($0) }
        guard !worth.isEmpty else { return }
        let bound = bindings.isEmpty ? [:] : Dictionary(bindings.values.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        known.withLock { known in
            guard !worth.allSatisfy(known.secrets.contains) else { return }
            for secret in worth where !known.secrets.contains(secret) {
                known.secrets.insert(secret)
                // Numbers in JSON stay numbers (0 where the rules found them): a placeholder there would not be JSON.
                guard !secrets.numbers.contains(secret) else { continue }
                let decoded = secret.removingPercentEncoding
                if let placeholder = bound[secret] ?? decoded.flatMap({ bound[$0] ?? known.placeholders[$0] })
                    ?? known.placeholders.first(where: { $0.key.removingPercentEncoding == secret })?.value
                {
                    known.placeholders[secret] = placeholder
                } else {
                    known.placeholders[secret] = "[REDACTED-\(known.nextNumber)]"
                    known.nextNumber += 1
                }
            }
            known.scrubber = SecretScrubber(secrets: known.secrets, with: Redaction.replacement)
            known.numbered = SecretScrubber(pairs: known.placeholders.sorted { $0.value < $1.value }.map { ($0.key, $0.value) })
        }
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
                changed.declaredBodyLength == length
            {
                changed.headers["Content-Length"] = String(changed.body.data.count)
                interaction.response = changed
            }
        }
    }

    // MARK: Rules

    /// Whether the rules can change a URL or a header value: a header rule, a query rule (user
    /// info in URLs goes with them). When neither is given, only bodies are visited.
    private var textRulesApply: Bool { !headerNames.isEmpty || !queryNames.isEmpty }

    /// The rules for a URL or a header value: a request URL loses its password and the query
    /// parameters the rules name, a response URL those parameters; a header the rules name loses
    /// its credentials, and the URLs a header holds (`Location`, `Link`, `Refresh`) get the URL rules.
    private func redact(_ text: String, in part: Interaction.Part, secrets: inout FoundSecrets) -> String {
        switch part {
        case .url(.request):
            return redactUserInfo(of: redactQuery(of: text, secrets: &secrets), secrets: &secrets)
        case .url(.response):
            return redactQuery(of: text, secrets: &secrets)
        case .header(_, let name):
            let lowercased = name.lowercased()
            if let kind = Self.urlFields[lowercased] { return redactURLs(in: text, kind: kind, secrets: &secrets) }
            guard headerNames.contains(lowercased) else { return text }
            let (redacted, found) = CredentialFields.redact(text, ofField: name, replacement: Redaction.replacement)
            if !found.isEmpty, found.allSatisfy(isKept) { return text }
            secrets.formUnion(found)
            return redacted
        case .body, .message:
            return text
        }
    }

    /// Where a header field holds URLs, which get the URL rules (query parameters, user info).
    private enum URLField {
        /// The whole value is a URL: `Location`, `Content-Location`, `Referer`.
        case whole
        /// `Link: <https://…>; rel="next", <…>`: each URL between `<` and `>`.
        case bracketed
        /// `Refresh: 5; url=https://…`: the URL after `url=`.
        case refresh
    }

    private static let urlFields: [String: URLField] = [
        "location": .whole, "content-location": .whole, "referer": .whole, "link": .bracketed, "refresh": .refresh,
    ]

    private func redactURLs(in value: String, kind: URLField, secrets: inout FoundSecrets) -> String {
        switch kind {
        case .whole:
            return redactURL(value, secrets: &secrets)
        case .refresh:
            guard let marker = value.range(of: "url=", options: .caseInsensitive) else { return value }
            return value[..<marker.upperBound] + redactURL(String(value[marker.upperBound...]), secrets: &secrets)
        case .bracketed:
            var out = ""
            var rest = Substring(value)
            while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
                out += rest[...open]
                out += redactURL(String(rest[rest.index(after: open)..<close]), secrets: &secrets)
                rest = rest[close...]
            }
            return out + rest
        }
    }

    /// A URL (absolute, or a path with a query) with the URL rules applied.
    private func redactURL(_ url: String, secrets: inout FoundSecrets) -> String {
        redactUserInfo(of: redactQuery(of: url, secrets: &secrets), secrets: &secrets)
    }

    /// `https://ada:s3cret@host/` → `https://ada:[REDACTED]@host/`: a password in the URL is a
    /// credential wherever the rules are (unless redaction is off).
    private func redactUserInfo(of url: String, secrets: inout FoundSecrets) -> String {
        // Most URLs have no user info: answer those without a search.
        guard !headerNames.isEmpty || !queryNames.isEmpty, url.utf8Contains(UInt8(ascii: "@")),
            let scheme = url.range(of: "://")
        else { return url }
        let authorityEnd = url[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        let authority = url[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return url }
        let password = String(authority[authority.index(after: colon)..<at])
        guard !password.isEmpty, !isKept(password) else { return url }
        secrets.insert(password)
        if let decoded = password.removingPercentEncoding { secrets.insert(decoded) }
        return url[..<authority.index(after: colon)] + Redaction.replacement + url[at...]
    }

    private func redactQuery(of url: String, secrets: inout FoundSecrets) -> String {
        guard !queryNames.isEmpty, let range = queryToRedact(in: url) else { return url }
        let queryStart = url.utf8.index(url.utf8.startIndex, offsetBy: range.lowerBound)
        let queryEnd = url.utf8.index(url.utf8.startIndex, offsetBy: range.upperBound)
        let query = redactPairs(url[queryStart..<queryEnd], names: queryNames, plusIsSpace: false, urlsInValues: true, secrets: &secrets)
        return url[..<queryStart] + query + url[queryEnd...]
    }

    /// Where the query of `url` is (offsets in its UTF-8 bytes), when one of its names may be a
    /// rule's; nil otherwise. Every request passes here: the URL's bytes are scanned once, and a
    /// query whose names are plainly none of the rules' is left as it is.
    private func queryToRedact(in url: String) -> Range<Int>? {
        var bytes = url
        return bytes.withUTF8(queryToRedact)
    }

    private func queryToRedact(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let end = bytes[(mark + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        return mayNameARule(UnsafeBufferPointer(rebasing: bytes[(mark + 1)..<end])) ? (mark + 1)..<end : nil
    }

    /// Whether a name in `query` (`a=1&b=2`) may be one of ``queryNames``: false only when every
    /// name is plain ASCII without `%` or `+` (which could hide a name) and, compared as
    /// ``Redaction/comparable(_:)`` compares, none of them. A name is built only when its length
    /// is one of the rules'.
    private func mayNameARule(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var nameStart = 0
        var length = 0
        var inName = true
        func isARule(endingAt end: Int) -> Bool {
            guard queryNameLengths.contains(length) else { return false }
            var name: [UInt8] = []
            name.reserveCapacity(length)
            for byte in bytes[nameStart..<end] where byte != UInt8(ascii: "_") && byte != UInt8(ascii: "-") {
                name.append((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
            }
            return queryNames.contains(String(decoding: name, as: UTF8.self))
        }
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == UInt8(ascii: "&") || (inName && byte == UInt8(ascii: "=")) {
                // A pair without "=" is checked too: staying safe costs nothing here.
                if inName, isARule(endingAt: index) { return true }
                inName = byte == UInt8(ascii: "&")
                nameStart = index + 1
                length = 0
                continue
            }
            guard inName else {
                // A URL nested in a value (`url=/next?token=…`, written `%3F` or `?`) may hold a rule's name.
                if byte == UInt8(ascii: "?") { return true }
                if byte == UInt8(ascii: "%"), index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "3"),
                    bytes[index + 2] | 0x20 == UInt8(ascii: "f")
                {
                    return true
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "+"), 0x80...: return true
            case UInt8(ascii: "_"), UInt8(ascii: "-"): continue
            default: length += 1
            }
        }
        return inName && isARule(endingAt: bytes.count)
    }

    /// `a=1&token=xyz` → `a=1&token=[REDACTED]` for the names given (compared percent-decoded).
    private func redactPairs(
        _ text: Substring, names: Set<String>, plusIsSpace: Bool, urlsInValues: Bool = false,
        secrets: inout FoundSecrets
    ) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let field = FormFields.parse(String(pair), plusIsSpace: plusIsSpace).first
            // A URL in a value (`redirect_uri=…`, `url=/next?token=…`) gets the URL rules too.
            if urlsInValues, let field, field.value.contains("?") || field.value.contains("://") {
                let nested = redactURL(field.value, secrets: &secrets)
                if nested != field.value {
                    return pair[...equals] + (nested.addingPercentEncoding(withAllowedCharacters: Self.queryValueCharacters) ?? nested)
                }
            }
            guard let field, names.contains(Redaction.comparable(field.name)), !field.value.isEmpty, !isKept(field.value) else {
                return String(pair)
            }
            secrets.insert(field.value)
            secrets.insert(String(pair[pair.index(after: equals)...]))
            return pair[...equals] + Redaction.replacement
        }.joined(separator: "&")
    }

    /// What a query value may hold without percent-encoding: the unreserved characters, and the
    /// brackets of a placeholder, kept readable as everywhere else in a cassette.
    private static let queryValueCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~[]")

    private func redact(_ body: Interaction.Body, contentType: String?, secrets: inout FoundSecrets) -> Interaction.Body {
        guard !body.isEmpty, !jsonPaths.isEmpty || !jsonKeys.isEmpty || !formNames.isEmpty || !patterns.isEmpty else { return body }
        var data = body.data
        let mediaType = contentType.map(Interaction.Body.mediaType(of:)) ?? ""
        if !jsonPaths.isEmpty || !jsonKeys.isEmpty, mediaType.isEmpty || Interaction.Body.isJSONMediaType(mediaType),
            data.first.map({ $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") || $0 <= 0x20 }) == true,
            let node = try? JSONParser.parse(data)
        {
            var changed = false
            let replace: (JSONValue) -> JSONValue = { found in
                let values = Self.scalars(in: found)
                if values.allSatisfy({ $0.text.isEmpty || self.isKept($0.text) }) { return found }
                for value in values { secrets.insert(value.text, isNumber: value.isNumber) }
                changed = true
                return self.redactedKeepingShape(found)
            }
            var redacted = JSONPathPattern.replacing(in: node.value, at: jsonPaths, with: replace)
            if !jsonKeys.isEmpty { redacted = replacingKeys(in: redacted, with: replace) }
            if !queryNames.isEmpty { redacted = redactingURLs(in: redacted, secrets: &secrets, changed: &changed) }
            if changed { data = Data(JSONWriter.compact(redacted)) }
        }
        if !formNames.isEmpty, mediaType == "application/x-www-form-urlencoded", let text = String(data: data, encoding: .utf8) {
            let redacted = redactPairs(text[...], names: formNames, plusIsSpace: true, secrets: &secrets)
            if redacted != text { data = Data(redacted.utf8) }
        }
        if !patterns.isEmpty, UTF8Validation.isValid(data) {
            var text = String(decoding: data, as: UTF8.self)
            for pattern in patterns {
                let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
                for match in matches.reversed() {
                    let group = match.numberOfRanges > 1 && match.range(at: 1).location != NSNotFound ? 1 : 0
                    guard let range = Range(match.range(at: group), in: text), !range.isEmpty else { continue }
                    let secret = String(text[range])
                    if isKept(secret) { continue }
                    secrets.insert(secret)
                    text.replaceSubrange(range, with: Redaction.replacement)
                }
            }
            data = Data(text.utf8)
        }
        return data == body.data ? body : Interaction.Body(data, contentType: contentType)
    }

    /// `value` with the URL rules applied to each string that holds a URL with a query
    /// (`"next": "/page?token=…"`), at any depth.
    private func redactingURLs(in value: JSONValue, secrets: inout FoundSecrets, changed: inout Bool) -> JSONValue {
        switch value {
        case .string(let text):
            guard text.contains("?"), !isKept(text) else { return value }
            let redacted = redactURL(text, secrets: &secrets)
            if redacted == text { return value }
            changed = true
            return .string(redacted)
        case .object(let members):
            return .object(
                members.map { member in
                    var member = member
                    member.value = JSONNode(redactingURLs(in: member.value.value, secrets: &secrets, changed: &changed))
                    return member
                })
        case .array(let elements):
            return .array(elements.map { JSONNode(redactingURLs(in: $0.value, secrets: &secrets, changed: &changed)) })
        case .null, .bool, .number, .longString, .base64:
            return value
        }
    }

    /// `value` with the value of every member whose key is one of ``jsonKeys`` replaced, at any depth.
    private func replacingKeys(in value: JSONValue, with replace: (JSONValue) -> JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(
                members.map { member in
                    var member = member
                    let replaced =
                        jsonKeys.contains(Redaction.comparable(member.key))
                        ? replace(member.value.value) : replacingKeys(in: member.value.value, with: replace)
                    member.value = JSONNode(replaced)
                    return member
                })
        case .array(let elements):
            return .array(elements.map { JSONNode(replacingKeys(in: $0.value, with: replace)) })
        case .null, .bool, .number, .string, .longString, .base64:
            return value
        }
    }

    /// `value` with each string replaced by ``Redaction/replacement`` and each number by `0`,
    /// objects and arrays keeping their keys and lengths, booleans and nulls as they were: a
    /// `Codable` client decoding the response still finds the types it expects.
    private func redactedKeepingShape(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return text.isEmpty || isKept(text) ? value : .string(Redaction.replacement)
        case .longString, .base64: return .string(Redaction.replacement)
        case .number: return .number("0")
        case .null, .bool: return value
        case .array(let elements): return .array(elements.map { JSONNode(redactedKeepingShape($0.value)) })
        case .object(let members):
            return .object(
                members.map { member in
                    var member = member
                    member.value = JSONNode(redactedKeepingShape(member.value.value))
                    return member
                })
        }
    }

    /// The strings and number literals in a JSON value, each saying which it is.
    private static func scalars(in value: JSONValue) -> [(text: String, isNumber: Bool)] {
        switch value {
        case .string(let text): return [(text, false)]
        case .longString(let long): return [(long.string, false)]
        case .base64(let data): return [(data.base64EncodedString(), false)]
        case .number(let literal): return [(literal, true)]
        case .null, .bool: return []
        case .array(let elements): return elements.flatMap { scalars(in: $0.value) }
        case .object(let members): return members.flatMap { scalars(in: $0.value.value) }
        }
    }

    // MARK: Removing secrets everywhere

    private func echoScrubber(_ secrets: [String]) -> SecretScrubber {
        SecretScrubber(
            secrets: secrets.filter { $0.count >= redaction.minimumEchoLength && !isKept($0) },
            with: Redaction.replacement)
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
