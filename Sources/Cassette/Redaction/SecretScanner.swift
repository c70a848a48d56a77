import Foundation

/// Finds values that look like secrets: in a cassette, part by part (``Interaction/Part``: header
/// values and cookies, query parameters, JSON values and form fields of bodies and WebSocket
/// messages, text); in any other file, line by line.
///
/// Two kinds of evidence:
/// - **a known shape**, wherever it is: JWTs, AWS, Google, GitHub, Slack and Stripe keys, private
///   key blocks, and the credentials after `Bearer` or `Basic`;
/// - **a long random string in an auth-like field**: a field whose name speaks of tokens, secrets,
///   passwords, keys, sessions or signatures (`X-Api-Key`, `access_token`, a `sid` cookie), holding
///   16 or more token characters that mix letters and digits with high entropy.
///
/// `[REDACTED]` and placeholders like `<TOKEN>` are not secrets.
package struct SecretScanner {
    /// One secret-shaped value.
    package struct Finding: Equatable, Sendable {
        /// What it looks like: "JWT", "bearer token", "AWS access key ID", "random string in an auth-like field"…
        package var kind: String
        /// Where: `interactions[0].request.headers.Authorization`, or `line 12` in a file that is not a cassette.
        package var place: String
        /// The value itself (never printed whole).
        package var value: String
        /// The line (from 1) of a file that is not a cassette it was found on; nil in a cassette.
        package var line: Int? = nil
    }

    private struct Shape {
        package var kind: String
        var pattern: NSRegularExpression
    }

    private let shapes: [Shape]
    private let assignment: NSRegularExpression

    private static let shapePatterns: [(kind: String, pattern: String)] = [
        ("private key", "-----BEGIN [A-Z ]*PRIVATE KEY-----"),
        ("JWT", #"eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}"#),
        ("AWS access key ID", #"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"#),
        ("Google API key", #"AIza[0-9A-Za-z_-]{35}"#),
        ("GitHub token", #"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"#),
        ("Slack token", #"\bxox[abposr]-[A-Za-z0-9-]{10,}"#),
        ("Stripe secret key", #"\b(?:sk|rk)_live_[0-9A-Za-z]{16,}"#),
        ("bearer token", #"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{8,}=*)"#),
        ("Basic credentials", #"(?i)\bbasic\s+([A-Za-z0-9+/]{8,}=*)"#),
    ]
    /// A name, possessively and only where a run of name characters starts, so a long run with no
    /// `:` or `=` after it is read once, not once from each of its characters (a 40,000-character
    /// token took 93 s): every pattern here runs in time linear in the line.
    private static let assignmentPattern = #"(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]++)["']?\s*[:=]\s*["']?([A-Za-z0-9+/=_.~-]{16,})"#

    /// - Throws: when one of the patterns above does not compile (a test catches that).
    package init() throws {
        shapes = try Self.shapePatterns.map { Shape(kind: $0.kind, pattern: try NSRegularExpression(pattern: $0.pattern)) }
        assignment = try NSRegularExpression(pattern: Self.assignmentPattern)
    }

    // MARK: Cassettes

    /// The secrets in a cassette's interactions, each place once.
    package func findings(in document: CassetteDocument) -> [Finding] {
        document.interactions.enumerated().flatMap { index, interaction in
            findings(in: interaction, placePrefix: "interactions[\(index)].")
        }
    }

    /// The secrets in every part of one interaction (``Interaction/Part``: URLs, header values,
    /// bodies, WebSocket messages), each place starting with `placePrefix`.
    ///
    /// - Parameter largestBody: bodies and messages longer than this are checked in their first
    ///   part only.
    package func findings(in interaction: Interaction, placePrefix: String = "", largestBody: Int = .max) -> [Finding] {
        var findings: [Finding] = []
        interaction.forEachPart(
            text: { part, text in
                let place = placePrefix + part.place
                switch part {
                case .url: scanURL(text, at: place, into: &findings)
                case .header(_, let name): scanHeader(name: name, value: text, at: place, into: &findings)
                case .body, .message: break
                }
            },
            body: { part, body in
                let data = body.data.prefix(largestBody)  // a slice: scanning reads the bytes in place
                // A binary WebSocket message is often text sent as binary: searched as text. A body
                // that is not UTF-8 (an image, a compressed or protobuf body) is not: searching
                // megabytes of bytes at every save costs more than the shapes it could hold.
                var isMessage = false
                if case .message = part { isMessage = true }
                scanPayload(data, at: placePrefix + part.place, bytesAsText: isMessage, into: &findings)
            })
        return findings
    }

    private func scanHeader(name: String, value: String, at place: String, into findings: inout [Finding]) {
        let lowered = name.lowercased()
        if lowered == "cookie" || lowered == "set-cookie" {
            for (cookie, cookieValue) in Self.cookies(in: value, setCookie: lowered == "set-cookie") {
                scanField(name: cookie, value: cookieValue, at: place + " (cookie \(cookie))", into: &findings)
            }
        } else {
            let before = findings.count
            scanField(name: name, value: value, at: place, into: &findings)
            // A URL in a header (a redirect's Location) carries query parameters of its own.
            if findings.count == before, value.contains("?") {
                scanURL(value, at: place, into: &findings)
            }
        }
    }

    /// A body or a message: a JSON document value by value (each at its JSON path after the
    /// part's place), form fields, or text. Bytes that are not UTF-8 are searched for known
    /// shapes in what text they hold when `bytesAsText`, and left alone otherwise.
    private func scanPayload(_ data: Data, at place: String, bytesAsText: Bool, into findings: inout [Finding]) {
        guard !data.isEmpty else { return }
        guard UTF8Validation.isValid(data) else {
            if bytesAsText { scanText(String(decoding: data, as: UTF8.self), at: place, into: &findings) }
            return
        }
        if let json = try? JSONParser.parse(data) {
            Self.forEachString(in: json.value, at: .root) { path, key, value in
                scanField(name: key, value: value, at: Self.place(place, path), into: &findings)
            }
            return
        }
        let text = String(decoding: data, as: UTF8.self)
        if text.contains("="), !text.contains(" "), !text.contains("\n") {
            for (name, value) in Self.pairs(text, separator: "&") {
                scanField(name: name, value: value, at: place + "." + name, into: &findings)
            }
        } else {
            scanText(text, at: place, into: &findings)
        }
    }

    /// `response.body` and `user.token` → `response.body.user.token`; `[0].key` → `response.body[0].key`.
    private static func place(_ base: String, _ path: JSONPath) -> String {
        guard let first = path.components.first else { return base }
        if case .index = first { return base + path.description }
        return base + "." + path.description
    }

    private func scanURL(_ url: String, at place: String, into findings: inout [Finding]) {
        guard let question = url.firstIndex(of: "?") else { return }
        let query = url[url.index(after: question)...].prefix { $0 != "#" }
        for (name, value) in Self.pairs(String(query), separator: "&") {
            scanField(name: name, value: value, at: place + " (query \(name))", into: &findings)
        }
    }

    /// A named value: a known shape anywhere in it, or a random string when the name is auth-like.
    private func scanField(name: String?, value: String, at place: String, into findings: inout [Finding]) {
        let before = findings.count
        scanText(value, at: place, into: &findings)
        guard findings.count == before, let name, Self.isAuthLike(name) else { return }
        var candidate = value
        for scheme in ["Bearer ", "Basic ", "Token ", "token "] where candidate.hasPrefix(scheme) {
            candidate = String(candidate.dropFirst(scheme.count))
        }
        if Self.looksRandom(candidate) {
            findings.append(Finding(kind: "random string in an auth-like field", place: place, value: candidate))
        }
    }

    /// Known shapes in free text; each value reported once per place, and a value inside one
    /// already found (a JWT after `Bearer`) not again.
    private func scanText(_ text: String, at place: String, into findings: inout [Finding]) {
        var found: Set<String> = []
        var taken: [NSRange] = []
        for shape in shapes {
            for match in shape.pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let group = match.numberOfRanges > 1 ? 1 : 0
                let place16 = match.range(at: group)
                guard let range = Range(place16, in: text) else { continue }
                let value = String(text[range])
                if Self.isRedacted(value) || found.contains(value) || taken.contains(where: { NSIntersectionRange($0, place16).length > 0 })
                {
                    continue
                }
                found.insert(value)
                taken.append(place16)
                findings.append(Finding(kind: shape.kind, place: place, value: value))
            }
        }
    }

    // MARK: Other files

    /// The secrets in a file that is not a cassette, line by line: known shapes, and
    /// `name: value` / `name=value` assignments of random strings to auth-like names.
    package func findings(inText text: String) -> [Finding] {
        var findings: [Finding] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            let place = "line \(index + 1)"
            let before = findings.count
            scanText(line, at: place, into: &findings)
            guard findings.count == before else {
                for found in before..<findings.count { findings[found].line = index + 1 }
                continue
            }
            for match in assignment.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                guard let nameRange = Range(match.range(at: 1), in: line), let valueRange = Range(match.range(at: 2), in: line) else {
                    continue
                }
                let name = String(line[nameRange])
                let value = String(line[valueRange])
                if Self.isAuthLike(name), Self.looksRandom(value) {
                    findings.append(Finding(kind: "random string in an auth-like field", place: place, value: value, line: index + 1))
                }
            }
        }
        return findings
    }

    // MARK: Judging values

    /// Names that speak of credentials: `Authorization`, `X-Api-Key`, `access_token`, `client_secret`, `sid`…
    package static func isAuthLike(_ name: String) -> Bool {
        let lowered = name.lowercased()
        let fragments = [
            "auth", "token", "secret", "password", "passwd", "apikey", "api_key", "api-key", "access_key",
            "access-key", "accesskey", "session", "signature", "credential", "private",
        ]
        if fragments.contains(where: lowered.contains) { return true }
        let words = lowered.split { !$0.isLetter && !$0.isNumber }
        return words.contains { ["key", "sid", "pwd", "jwt", "sig"].contains($0) }
    }

    /// 16 or more token characters, letters mixed with digits (or both cases and a symbol),
    /// with at least 3 bits of entropy per character: not a word, a date or a number.
    package static func looksRandom(_ value: String) -> Bool {
        guard value.count >= 16, !isRedacted(value) else { return false }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_.~-")
        guard value.allSatisfy(allowed.contains) else { return false }
        let hasDigit = value.contains(where: \.isNumber)
        let hasUpper = value.contains(where: \.isUppercase)
        let hasLower = value.contains(where: \.isLowercase)
        guard [hasDigit, hasUpper, hasLower].filter({ $0 }).count >= 2 else { return false }
        var counts: [Character: Int] = [:]
        for character in value { counts[character, default: 0] += 1 }
        let length = Double(value.count)
        let entropy = counts.values.reduce(0.0) { sum, count in
            let p = Double(count) / length
            return sum - p * log2(p)
        }
        return entropy >= 3.0
    }

    package static func isRedacted(_ value: String) -> Bool {
        value.contains(Redaction.replacement) || (value.hasPrefix("<") && value.hasSuffix(">"))
    }

    // MARK: Taking values apart

    private static func pairs(_ text: String, separator: Character) -> [(String, String)] {
        text.split(separator: separator).map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let decode: (String) -> String = { $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? $0 }
            return (decode(parts[0]), parts.count == 2 ? decode(parts[1]) : "")
        }
    }

    /// `a=1; b=2` → (a, 1), (b, 2); a `Set-Cookie` value gives its cookie (joined ones too), not its attributes.
    private static func cookies(in value: String, setCookie: Bool) -> [(String, String)] {
        let attributes: Set<String> = ["path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority", "partitioned"]
        return value.split(whereSeparator: { $0 == ";" || (setCookie && $0 == ",") }).compactMap { part in
            let pair = part.trimmingCharacters(in: .whitespaces)
            guard let equals = pair.firstIndex(of: "=") else { return nil }
            let name = String(pair[..<equals])
            if setCookie, attributes.contains(name.lowercased()) { return nil }
            return (name, String(pair[pair.index(after: equals)...]))
        }
    }

    /// Every string in a JSON value, in document order, with its path and the key nearest above
    /// it (`tokens` for `tokens[0]`).
    private static func forEachString(
        in value: JSONValue, at path: JSONPath, key: String? = nil, _ visit: (JSONPath, String?, String) -> Void
    ) {
        switch value {
        case .string(let text): visit(path, key, text)
        case .longString(let long): visit(path, key, long.string)
        case .array(let elements):
            for (index, element) in elements.enumerated() { forEachString(in: element.value, at: path.appending(index), key: key, visit) }
        case .object(let members):
            for member in members { forEachString(in: member.value.value, at: path.appending(member.key), key: member.key, visit) }
        case .null, .bool, .number, .base64:
            break
        }
    }
}
