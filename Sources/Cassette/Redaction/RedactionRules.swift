import Foundation

/// A tape's redaction rules (``Redaction``), as pure functions: a value in, the redacted value
/// out, and the secrets the rules found in it. No state: what a tape learns of secrets (their
/// numbers, what placeholders stand for) is its ``SecretLedger``'s, and ``Redactor`` puts the two
/// together at the points of the pipeline.
///
/// Thread-safe: immutable. A class, so that handing the rules around (every request's
/// redaction for matching passes them to a dozen helpers) retains one reference, not each of its sets.
final class RedactionRules: Sendable {
    let redaction: Redaction
    private let headerNames: Set<String>
    private let queryNames: Set<String>
    /// The lengths of ``queryNames`` in bytes: most query names are ruled out by their length alone.
    private let queryNameLengths: Set<Int>
    private let formNames: Set<String>
    private let jsonKeys: Set<String>
    private let jsonPaths: [JSONPathPattern]
    private let patterns: [BodyPattern]
    /// Texts the rules leave alone: `[REDACTED]`, and the placeholders, which stand for secrets
    /// already taken out.
    private let keptTexts: Set<String>

    /// The rules of `redaction`.
    ///
    /// - Throws: ``CassetteError/invalidRedactionPattern(_:reason:)`` for a body pattern that is not
    ///   a regular expression.
    static func make(_ redaction: Redaction) throws(CassetteError) -> RedactionRules {
        // Most tapes keep the default rules: made once, not per tape (about 10 µs of each).
        if redaction.hasTheSameRules(as: standard.redaction) { return standard }
        var patterns: [BodyPattern] = []
        for pattern in redaction.bodyPatterns {
            do throws(BodyPattern.Problem) {
                patterns.append(try BodyPattern(pattern))
            } catch {
                throw .invalidRedactionPattern(pattern, reason: error.reason)
            }
        }
        return RedactionRules(redaction, patterns: patterns)
    }

    /// Rules that change nothing.
    static let none = RedactionRules(.none, patterns: [])

    /// The rules of ``Redaction/default``, which has no body patterns to compile.
    private static let standard = RedactionRules(.default, patterns: [])

    private init(_ redaction: Redaction, patterns: [BodyPattern]) {
        self.redaction = redaction
        headerNames = Set(redaction.headers.map { $0.lowercased() })
        queryNames = Set(redaction.queryParameters.map(Redaction.comparable))
        queryNameLengths = Set(queryNames.map(\.utf8.count))
        formNames = Set(redaction.formFields.map(Redaction.comparable))
        jsonKeys = Set(redaction.jsonKeys.map(Redaction.comparable))
        jsonPaths = redaction.jsonPaths.map(JSONPathPattern.init)
        self.patterns = patterns
        let placeholders = redaction.placeholders.filter { !$0.secret.isEmpty }
        keptTexts = Set([Redaction.replacement] + placeholders.map(\.placeholder))
    }

    /// Whether `text` is left alone by the rules: `[REDACTED]`, a numbered placeholder, or one
    /// of ``Redaction/placeholders``: each stands for a secret already taken out.
    func isKept(_ text: String) -> Bool {
        keptTexts.contains(text) || (text.hasPrefix(PlaceholderPattern.prefix) && PlaceholderPattern.isPlaceholder(text))
    }

    /// The rules, over every part of `interaction` (``Interaction/changeParts(in:urlsAndHeaders:text:body:)``).
    func redact(_ interaction: inout Interaction, secrets: inout FoundSecrets) {
        interaction.changeParts(
            urlsAndHeaders: textRulesApply, text: { self.redact($1, in: $0, secrets: &secrets) },
            body: { self.redact($1, contentType: $0.contentType, secrets: &secrets) })
    }

    /// The rules, over every part of `request`.
    func redact(_ request: inout Interaction.Request, secrets: inout FoundSecrets) {
        request.changeParts(
            urlsAndHeaders: textRulesApply, text: { self.redact($1, in: $0, secrets: &secrets) },
            body: { self.redact($1, contentType: $0.contentType, secrets: &secrets) })
    }

    /// A scrubber that replaces each of `secrets` long enough to search for (and not kept) with
    /// ``Redaction/replacement`` wherever it appears.
    func echoScrubber(_ secrets: [String]) -> SecretScrubber {
        SecretScrubber(
            secrets: secrets.filter { $0.count >= redaction.minimumEchoLength && !isKept($0) },
            with: Redaction.replacement)
    }

    /// Whether the rules can change a URL or a header value: a header rule, a query rule (user
    /// info in URLs goes with them). When neither is given, only bodies are visited.
    var textRulesApply: Bool { !headerNames.isEmpty || !queryNames.isEmpty }

    /// The rules for a URL or a header value: a request URL loses its password and the query
    /// parameters the rules name, a response URL those parameters; a header the rules name loses
    /// its credentials, and the URLs a header holds (`Location`, `Link`, `Refresh`) get the URL rules.
    func redact(_ text: String, in part: Interaction.Part, secrets: inout FoundSecrets) -> String {
        switch part {
        case .url(.request):
            return redactUserInfo(of: redactQuery(of: text, secrets: &secrets), secrets: &secrets)
        case .url(.response), .url(.challenge):
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
        return String(url[..<authority.index(after: colon)]) + Redaction.replacement + url[at...]
    }

    private func redactQuery(of url: String, secrets: inout FoundSecrets) -> String {
        guard !queryNames.isEmpty, let range = queryToRedact(in: url) else { return url }
        let queryStart = url.utf8.index(url.utf8.startIndex, offsetBy: range.lowerBound)
        let queryEnd = url.utf8.index(url.utf8.startIndex, offsetBy: range.upperBound)
        let query = redactPairs(url[queryStart..<queryEnd], names: queryNames, plusIsSpace: false, urlsInValues: true, secrets: &secrets)
        return String(url[..<queryStart]) + query + url[queryEnd...]
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

    func redact(_ body: Interaction.Body, contentType: String?, secrets: inout FoundSecrets) -> Interaction.Body {
        guard !body.isEmpty, !jsonPaths.isEmpty || !jsonKeys.isEmpty || !formNames.isEmpty || !patterns.isEmpty else { return body }
        // A Connect or gRPC-Web body: each message's fields and payloads by themselves, framed again.
        let failedBefore = secrets.failedPattern != nil
        let rewritten = RPCBodyRewriting.rewritten(body.data, contentType: contentType) { leaf in
            let redacted = redactBytes(Interaction.Body(leaf), contentType: nil, secrets: &secrets).data
            return redacted == leaf ? nil : redacted
        }
        if let rewritten {
            if !failedBefore, secrets.failedPattern != nil {
                return Interaction.Body(Data(Redaction.replacement.utf8), contentType: contentType)
            }
            return rewritten == body.data ? body : Interaction.Body(rewritten, contentType: contentType)
        }
        return redactBytes(body, contentType: contentType, secrets: &secrets)
    }

    /// `body` redacted as one run of bytes: JSON by its paths and keys, a form by its fields, text by the patterns.
    private func redactBytes(_ body: Interaction.Body, contentType: String?, secrets: inout FoundSecrets) -> Interaction.Body {
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
            // One budget for the body, every pattern and replacement together.
            var text = String(decoding: data, as: UTF8.self)
            let deadline = BodyPattern.deadline(for: text)
            for pattern in patterns {
                switch pattern.matches(in: text, deadline: deadline) {
                case .failure(let failure):
                    // What is left of the body cannot be known to hold no secret, so none of it is
                    // kept; the caller is told (a request is refused).
                    secrets.failedPattern = (pattern.pattern, failure)
                    return Interaction.Body(Data(Redaction.replacement.utf8), contentType: contentType)
                case .success(let matches):
                    text = replacing(matches, in: text, secrets: &secrets)
                }
            }
            data = Data(text.utf8)
        }
        return data == body.data ? body : Interaction.Body(data, contentType: contentType)
    }

    /// `text` with each match (its first group where it has one) replaced by
    /// ``Redaction/replacement``, unless the rules keep it; in one pass over the text, so that
    /// 10,000 matches cost what one does.
    private func replacing(_ matches: [NSTextCheckingResult], in text: String, secrets: inout FoundSecrets) -> String {
        guard !matches.isEmpty else { return text }
        let units = Array(text.utf16)
        var out: [UInt16] = []
        out.reserveCapacity(units.count)
        var cursor = 0
        var found: [String] = []
        for match in matches {
            let group = match.numberOfRanges > 1 && match.range(at: 1).location != NSNotFound ? 1 : 0
            let range = match.range(at: group)
            guard range.length > 0, range.location >= cursor, NSMaxRange(range) <= units.count else { continue }
            let secret = String(decoding: units[range.location..<NSMaxRange(range)], as: UTF16.self)
            if isKept(secret) { continue }
            found.append(secret)
            out.append(contentsOf: units[cursor..<range.location])
            out.append(contentsOf: Redaction.replacement.utf16)
            cursor = NSMaxRange(range)
        }
        // Last match first, as they were numbered when each was replaced from the end.
        for secret in found.reversed() { secrets.insert(secret) }
        if found.isEmpty { return text }
        out.append(contentsOf: units[cursor...])
        return String(decoding: out, as: UTF16.self)
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
}
