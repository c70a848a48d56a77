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
    private let beforePlayback: (@Sendable (Interaction) -> Interaction)?
    /// Every secret a rule found so far in any interaction of the tape (recorded, or live and
    /// matched), long enough to search for: a secret is replaced everywhere it appears, also in an
    /// interaction where no rule found it (a cookie value echoed into a later request's query).
    private let known = Locked(KnownSecrets())

    private struct KnownSecrets {
        var secrets: Set<String> = []
        var scrubber = SecretScrubber(pairs: [])
    }

    /// - Throws: ``CassetteError/invalidRedactionPattern(_:reason:)`` for a body pattern that is not
    ///   a regular expression.
    convenience init(
        _ redaction: Redaction,
        beforeRecord: (@Sendable (Interaction) -> Interaction?)? = nil,
        beforePlayback: (@Sendable (Interaction) -> Interaction)? = nil
    ) throws(CassetteError) {
        var patterns: [NSRegularExpression] = []
        for pattern in redaction.bodyPatterns {
            do {
                patterns.append(try NSRegularExpression(pattern: pattern))
            } catch {
                throw .invalidRedactionPattern(pattern, reason: (error as NSError).localizedDescription)
            }
        }
        self.init(redaction, patterns: patterns, beforeRecord: beforeRecord, beforePlayback: beforePlayback)
    }

    /// A redactor that changes nothing: for sessions that only stub.
    static func none() -> Redactor {
        Redactor(.none, patterns: [], beforeRecord: nil, beforePlayback: nil)
    }

    private init(
        _ redaction: Redaction,
        patterns: [NSRegularExpression],
        beforeRecord: (@Sendable (Interaction) -> Interaction?)?,
        beforePlayback: (@Sendable (Interaction) -> Interaction)?
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
        self.beforePlayback = beforePlayback
    }

    // MARK: The three points

    /// `interaction` as it may be stored: the `beforeRecord` hook first (nil: not recorded), then
    /// placeholders, then every rule (which leaves placeholders alone, so `Bearer <TOKEN>` stays),
    /// then every secret the rules found removed from the whole interaction.
    func forRecording(_ interaction: Interaction) -> Interaction? {
        guard var interaction = beforeRecord.map({ $0(interaction) }) ?? interaction else { return nil }
        let lengths = BodyLengths(interaction)
        scrub(&interaction, with: placing)
        var secrets = Set<String>()
        redact(&interaction.request, secrets: &secrets)
        if var response = interaction.response {
            redact(&response, secrets: &secrets)
            interaction.response = response
        }
        remember(secrets)
        scrub(&interaction, with: echoScrubber(secrets.union(known.current.secrets)))
        lengths.keepContentLengths(of: &interaction)
        return interaction
    }

    /// `interactions` with every secret the tape has found so far removed: the last pass before
    /// saving, for a secret found only in an interaction recorded after the one that echoes it.
    func removingKnownSecrets(from interactions: [Interaction]) -> [Interaction] {
        let scrubber = known.current.scrubber
        guard !scrubber.isEmpty else { return interactions }
        return interactions.map { interaction in
            var interaction = interaction
            let lengths = BodyLengths(interaction)
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
        var secrets = Set<String>()
        redact(&request, secrets: &secrets)
        if !secrets.isEmpty {
            if remembering { remember(secrets) }
            let echo = echoScrubber(secrets)
            if !echo.isEmpty { scrub(&request, with: echo) }
        }
        // Every request passes here: only a tape that found secrets pays for scrubbing with them.
        if let earlier = known.withLock({ $0.secrets.isEmpty ? nil : $0.scrubber }) { scrub(&request, with: earlier) }
        return request
    }

    /// Adds what the rules found to the tape's known secrets.
    private func remember(_ secrets: Set<String>) {
        let worth = secrets.filter { $0.count >= redaction.minimumEchoLength && !keptTexts.contains($0) }
        guard !worth.isEmpty else { return }
        known.withLock { known in
            guard !worth.isSubset(of: known.secrets) else { return }
            known.secrets.formUnion(worth)
            known.scrubber = SecretScrubber(secrets: known.secrets, with: Redaction.replacement)
        }
    }

    /// Whether ``forPlayback(_:)`` may change an interaction: when it cannot, a replay skips it
    /// (and the copy of the interaction it would make).
    var changesPlayback: Bool { !restoring.isEmpty || beforePlayback != nil }

    /// `interaction` as it replays: placeholders give back their secrets in the response, then the
    /// `beforePlayback` hook.
    func forPlayback(_ interaction: Interaction) -> Interaction {
        var interaction = interaction
        if !restoring.isEmpty, var response = interaction.response {
            let lengths = BodyLengths(interaction)
            scrub(&response, with: restoring)
            interaction.response = response
            lengths.keepContentLengths(of: &interaction)
        }
        return beforePlayback.map { $0(interaction) } ?? interaction
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
            if body != request, interaction.request.headers["Content-Length"] == String(request), !interaction.request.headers.contains("Content-Encoding") {
                interaction.request.headers["Content-Length"] = String(body)
            }
            if let length = response, var changed = interaction.response, changed.body.data.count != length, changed.declaredBodyLength == length {
                changed.headers["Content-Length"] = String(changed.body.data.count)
                interaction.response = changed
            }
        }
    }

    // MARK: Rules

    private func redact(_ request: inout Interaction.Request, secrets: inout Set<String>) {
        redact(&request.headers, secrets: &secrets)
        request.url = redactUserInfo(of: redactQuery(of: request.url, secrets: &secrets), secrets: &secrets)
        request.body = redact(request.body, contentType: request.headers["Content-Type"], secrets: &secrets)
    }

    private func redact(_ response: inout Interaction.Response, secrets: inout Set<String>) {
        redact(&response.headers, secrets: &secrets)
        response.url = response.url.map { redactQuery(of: $0, secrets: &secrets) }
        let contentType = response.headers["Content-Type"]
        response.changeBody { redact($0, contentType: contentType, secrets: &secrets) }
    }

    private func redact(_ headers: inout Interaction.Headers, secrets: inout Set<String>) {
        guard !headerNames.isEmpty else { return }
        headers.transformValues { name, value in
            guard headerNames.contains(name.lowercased()) else { return value }
            let (redacted, found) = CredentialFields.redact(value, ofField: name, replacement: Redaction.replacement)
            if !found.isEmpty, found.allSatisfy(keptTexts.contains) { return value }
            secrets.formUnion(found)
            return redacted
        }
    }

    /// `https://ada:s3cret@host/` → `https://ada:[REDACTED]@host/`: a password in the URL is a
    /// credential wherever the rules are (unless redaction is off).
    private func redactUserInfo(of url: String, secrets: inout Set<String>) -> String {
        // Most URLs have no user info: answer those without a search.
        guard !headerNames.isEmpty || !queryNames.isEmpty, url.utf8Contains(UInt8(ascii: "@")),
              let scheme = url.range(of: "://") else { return url }
        let authorityEnd = url[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        let authority = url[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return url }
        let password = String(authority[authority.index(after: colon)..<at])
        guard !password.isEmpty, !keptTexts.contains(password) else { return url }
        secrets.insert(password)
        if let decoded = password.removingPercentEncoding { secrets.insert(decoded) }
        return url[..<authority.index(after: colon)] + Redaction.replacement + url[at...]
    }

    private func redactQuery(of url: String, secrets: inout Set<String>) -> String {
        guard !queryNames.isEmpty, let range = queryToRedact(in: url) else { return url }
        let queryStart = url.utf8.index(url.utf8.startIndex, offsetBy: range.lowerBound)
        let queryEnd = url.utf8.index(url.utf8.startIndex, offsetBy: range.upperBound)
        let query = redactPairs(url[queryStart..<queryEnd], names: queryNames, plusIsSpace: false, secrets: &secrets)
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
            guard inName else { continue }
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "+"), 0x80...: return true
            case UInt8(ascii: "_"), UInt8(ascii: "-"): continue
            default: length += 1
            }
        }
        return inName && isARule(endingAt: bytes.count)
    }

    /// `a=1&token=xyz` → `a=1&token=[REDACTED]` for the names given (compared percent-decoded).
    private func redactPairs(_ text: Substring, names: Set<String>, plusIsSpace: Bool, secrets: inout Set<String>) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let field = FormFields.parse(String(pair), plusIsSpace: plusIsSpace).first
            guard let field, names.contains(Redaction.comparable(field.name)), !field.value.isEmpty, !keptTexts.contains(field.value) else {
                return String(pair)
            }
            secrets.insert(field.value)
            secrets.insert(String(pair[pair.index(after: equals)...]))
            return pair[...equals] + Redaction.replacement
        }.joined(separator: "&")
    }

    private func redact(_ body: Interaction.Body, contentType: String?, secrets: inout Set<String>) -> Interaction.Body {
        guard !body.isEmpty, !jsonPaths.isEmpty || !jsonKeys.isEmpty || !formNames.isEmpty || !patterns.isEmpty else { return body }
        var data = body.data
        let mediaType = contentType.map(Interaction.Body.mediaType(of:)) ?? ""
        if !jsonPaths.isEmpty || !jsonKeys.isEmpty, mediaType.isEmpty || Interaction.Body.isJSONMediaType(mediaType),
           data.first.map({ $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") || $0 <= 0x20 }) == true,
           let node = try? JSONParser.parse(data) {
            var changed = false
            let replace: (JSONValue) -> JSONValue = { found in
                let values = Self.scalars(in: found)
                if values.allSatisfy({ $0.isEmpty || self.keptTexts.contains($0) }) { return found }
                secrets.formUnion(values)
                changed = true
                return self.redactedKeepingShape(found)
            }
            var redacted = JSONPathPattern.replacing(in: node.value, at: jsonPaths, with: replace)
            if !jsonKeys.isEmpty { redacted = replacingKeys(in: redacted, with: replace) }
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
                    if keptTexts.contains(secret) { continue }
                    secrets.insert(secret)
                    text.replaceSubrange(range, with: Redaction.replacement)
                }
            }
            data = Data(text.utf8)
        }
        return data == body.data ? body : Interaction.Body(data, contentType: contentType)
    }

    /// `value` with the value of every member whose key is one of ``jsonKeys`` replaced, at any depth.
    private func replacingKeys(in value: JSONValue, with replace: (JSONValue) -> JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(members.map { member in
                var member = member
                let replaced = jsonKeys.contains(Redaction.comparable(member.key))
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
        case .string(let text): return text.isEmpty || keptTexts.contains(text) ? value : .string(Redaction.replacement)
        case .longString, .base64: return .string(Redaction.replacement)
        case .number: return .number("0")
        case .null, .bool: return value
        case .array(let elements): return .array(elements.map { JSONNode(redactedKeepingShape($0.value)) })
        case .object(let members):
            return .object(members.map { member in
                var member = member
                member.value = JSONNode(redactedKeepingShape(member.value.value))
                return member
            })
        }
    }

    /// The strings and number literals in a JSON value.
    private static func scalars(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): return [text]
        case .longString(let long): return [long.string]
        case .base64(let data): return [data.base64EncodedString()]
        case .number(let literal): return [literal]
        case .null, .bool: return []
        case .array(let elements): return elements.flatMap { scalars(in: $0.value) }
        case .object(let members): return members.flatMap { scalars(in: $0.value.value) }
        }
    }

    // MARK: Removing secrets everywhere

    private func echoScrubber(_ secrets: Set<String>) -> SecretScrubber {
        SecretScrubber(
            secrets: secrets.filter { $0.count >= redaction.minimumEchoLength && !keptTexts.contains($0) },
            with: Redaction.replacement)
    }

    private func scrub(_ interaction: inout Interaction, with scrubber: SecretScrubber) {
        guard !scrubber.isEmpty else { return }
        scrub(&interaction.request, with: scrubber)
        if var response = interaction.response {
            scrub(&response, with: scrubber)
            interaction.response = response
        }
    }

    private func scrub(_ request: inout Interaction.Request, with scrubber: SecretScrubber) {
        request.url = scrubber.apply(request.url)
        request.headers.transformValues { _, value in scrubber.apply(value) }
        request.body = scrub(request.body, contentType: request.headers["Content-Type"], with: scrubber)
    }

    private func scrub(_ response: inout Interaction.Response, with scrubber: SecretScrubber) {
        response.url = response.url.map(scrubber.apply)
        response.headers.transformValues { _, value in scrubber.apply(value) }
        let contentType = response.headers["Content-Type"]
        response.changeBody { scrub($0, contentType: contentType, with: scrubber) }
    }

    private func scrub(_ body: Interaction.Body, contentType: String?, with scrubber: SecretScrubber) -> Interaction.Body {
        guard let data = scrubber.apply(body.data) else { return body }
        return Interaction.Body(data, contentType: contentType)
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
        return interactions.compactMap(redactor.forRecording)
    }
}
