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
        let sentLength = interaction.response?.body.data.count
        scrub(&interaction, with: placing)
        var secrets = Set<String>()
        redact(&interaction.request, secrets: &secrets)
        if var response = interaction.response {
            redact(&response, secrets: &secrets)
            interaction.response = response
        }
        scrub(&interaction, with: echoScrubber(secrets))
        Self.keepContentLength(of: &interaction.response, truthfulFor: sentLength)
        return interaction
    }

    /// `request` redacted exactly as ``forRecording(_:)`` redacts the request of an interaction
    /// (without the hook), so that a live request and its recording compare equal.
    func forMatching(_ request: Interaction.Request) -> Interaction.Request {
        var request = request
        if !placing.isEmpty { scrub(&request, with: placing) }
        var secrets = Set<String>()
        redact(&request, secrets: &secrets)
        let echo = echoScrubber(secrets)
        if !echo.isEmpty { scrub(&request, with: echo) }
        return request
    }

    /// `interaction` as it replays: placeholders give back their secrets in the response, then the
    /// `beforePlayback` hook.
    func forPlayback(_ interaction: Interaction) -> Interaction {
        var interaction = interaction
        if !restoring.isEmpty, var response = interaction.response {
            let storedLength = response.body.data.count
            scrub(&response, with: restoring)
            interaction.response = response
            Self.keepContentLength(of: &interaction.response, truthfulFor: storedLength)
        }
        return beforePlayback.map { $0(interaction) } ?? interaction
    }

    /// A `Content-Length` that was true for a body of `length` bytes follows the body when
    /// redaction changes its length, so that a replay (which keeps that promise as the wire
    /// would: ``Interaction/Response/declaredBodyLength``) delivers the whole redacted body.
    private static func keepContentLength(of response: inout Interaction.Response?, truthfulFor length: Int?) {
        guard let length, var changed = response, changed.body.data.count != length, changed.declaredBodyLength == length else { return }
        changed.headers["Content-Length"] = String(changed.body.data.count)
        response = changed
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
        response.body = redact(response.body, contentType: response.headers["Content-Type"], secrets: &secrets)
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
        guard !headerNames.isEmpty || !queryNames.isEmpty, url.utf8.contains(UInt8(ascii: "@")),
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
        guard !queryNames.isEmpty, let mark = url.firstIndex(of: "?") else { return url }
        let queryStart = url.index(after: mark)
        let queryEnd = url[queryStart...].firstIndex(of: "#") ?? url.endIndex
        let query = redactPairs(url[queryStart..<queryEnd], names: queryNames, plusIsSpace: false, secrets: &secrets)
        return url[..<queryStart] + query + url[queryEnd...]
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
                return .string(Redaction.replacement)
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
        case .null, .bool, .number, .string:
            return value
        }
    }

    /// The strings and number literals in a JSON value.
    private static func scalars(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): return [text]
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
        response.body = scrub(response.body, contentType: response.headers["Content-Type"], with: scrubber)
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
