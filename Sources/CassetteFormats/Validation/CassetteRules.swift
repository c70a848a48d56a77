import Foundation

/// What makes a cassette's values valid, shared by every codec (reading and writing), so a file
/// that was written can always be read back. Each rule returns nil when the value is fine, or a
/// message saying what was expected and what was found.
package enum CassetteRules {
    /// RFC 9110 `token`: what methods and header names are made of.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { b in
                switch b {
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
                default: return "!#$%&'*+-.^_`|~".utf8.contains(b)
                }
            }
    }

    /// An RFC 9110 token that does not start with `#`: no server uses such a method, and in an
    /// HTTP-message cassette a line starting with `#` is a comment.
    package static func methodProblem(_ method: String) -> String? {
        guard isToken(method) else { return "expected an HTTP method like \"GET\", found \(quoted(method))" }
        return method.hasPrefix("#") ? "an HTTP method cannot start with '#', found \(quoted(method))" : nil
    }

    package static func statusProblem(_ status: Int) -> String? {
        (100...599).contains(status) ? nil : "expected an HTTP status from 100 to 599, found \(status)"
    }

    package static func headerNameProblem(_ name: String) -> String? {
        isToken(name) ? nil : "\(quoted(name)) is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)"
    }

    package static func headerValueProblem(name: String, value: String) -> String? {
        for b in value.utf8 where b == 0x0A || b == 0x0D || b == 0x00 {
            return "the value of header \(quoted(name)) contains a line break or NUL, which HTTP does not allow"
        }
        return nil
    }

    /// An interaction's `scenario`: one line that says what it simulates.
    package static func scenarioProblem(_ scenario: String) -> String? {
        if scenario.allSatisfy(\.isWhitespace) { return "expected a line saying what the interaction simulates, found \(quoted(scenario))" }
        for b in scenario.utf8 where b == 0x0A || b == 0x0D || b == 0x00 {
            return "a scenario is one line, found a line break or NUL in \(quoted(scenario))"
        }
        return nil
    }

    /// A challenge's authentication method: one the platform names (``Interaction/Challenge/method``).
    package static func challengeMethodProblem(_ method: String) -> String? {
        let known = Interaction.Challenge.knownMethods
        return known.contains(method) ? nil : unknown("authentication method", method, expected: known)
    }

    /// A challenge's realm: one line.
    package static func challengeRealmProblem(_ realm: String) -> String? {
        for b in realm.utf8 where b == 0x0A || b == 0x0D || b == 0x00 {
            return "a realm is one line, found a line break or NUL in \(quoted(realm))"
        }
        return nil
    }

    /// A challenge's answer, by its Swift name; the problem when it names none.
    package static func challengeAnswer(_ text: String) -> (answer: Interaction.Challenge.Answer?, problem: String?) {
        if let answer = Interaction.Challenge.Answer(rawValue: text) { return (answer, nil) }
        return (nil, unknown("answer", text, expected: Interaction.Challenge.Answer.allCases.map(\.rawValue)))
    }

    /// `unknown WHAT "name" (did you mean "…"?): expected one of "a", "b"`.
    private static func unknown(_ what: String, _ name: String, expected names: [String]) -> String {
        let hint = NearestWord.closest(to: name, in: names).map { " (did you mean \"\($0)\"?)" } ?? ""
        return "unknown \(what) \(quoted(name))\(hint): expected one of " + names.map { "\"\($0)\"" }.joined(separator: ", ")
    }

    /// A challenged response: a `401` from the server or a `407` from a proxy, from the request's
    /// URL and in one piece (no `url`, no `stream`: the platform asks before anything else arrives).
    package static func challengeResponseProblem(_ response: Interaction.Response) -> (field: String, message: String)? {
        if ![401, 407].contains(response.status) {
            return ("status", "a challenge is a 401 or 407 response, found \(response.status)")
        }
        if response.url != nil { return ("url", "a challenged response comes from the request's URL: remove its \"url\"") }
        if response.stream != nil { return ("stream", "a challenged response arrives in one piece: write a \"body\", not a \"stream\"") }
        return nil
    }

    /// A multipart boundary: 1 to 70 characters (RFC 2046), none a control character or a quote.
    package static func multipartBoundaryProblem(_ boundary: String) -> String? {
        guard !boundary.isEmpty, boundary.utf8.count <= 70 else {
            return "expected a boundary of 1 to 70 characters, found \(boundary.utf8.count)"
        }
        for scalar in boundary.unicodeScalars where scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\"" {
            return "a boundary cannot hold a control character or a quote, found \(quoted(boundary))"
        }
        return nil
    }

    /// A part's `name` or `filename`, written into `Content-Disposition` between quotes.
    package static func multipartParameterProblem(_ value: String) -> String? {
        for scalar in value.unicodeScalars where scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\"" || scalar == "\\" {
            return "\(quoted(value)) cannot be written between quotes in Content-Disposition (it holds a quote, a backslash or a "
                + "control character); write the part's header fields in \"headers\" instead"
        }
        return nil
    }

    /// The longest wait a cassette may ask for, in seconds: one day. A replay waiting longer is
    /// a hang, which a test simulates with the error `timedOut` instead.
    package static let longestSeconds: TimeInterval = 86_400

    /// The largest factor of a `scaled` latency: recorded timings are seconds, so a thousand
    /// times slower is already minutes per request.
    package static let largestScale: Double = 1_000

    /// The slowest download speed: one byte per second.
    package static let slowestBytesPerSecond: Double = 1

    /// A number of seconds a cassette holds (`name` for the message): zero to ``longestSeconds``.
    package static func secondsProblem(_ name: String, _ value: Double) -> String? {
        guard value.isFinite, value >= 0 else {
            return "expected \(name) to be a number of seconds, zero or more, found \(JSONCassetteCodec.formatSeconds(value))"
        }
        guard value <= longestSeconds else {
            return "\(name) (\(JSONCassetteCodec.formatSeconds(value)) s) is longer than a day (\(Int(longestSeconds)) s); "
                + "to simulate a server that never answers, use the error \"timedOut\""
        }
        return nil
    }

    /// A metadata key that Cassette keeps for itself: starting with `cassette` (any case) or `$`.
    package static func metadataKeyProblem(_ key: String) -> String? {
        guard key.hasPrefix("$") || key.lowercased().hasPrefix("cassette") else { return nil }
        return "metadata key \(quoted(key)) is reserved: keys starting with \"cassette\" or \"$\" are Cassette's own; rename it"
    }

    /// `recordedWith` is one line of text in every format (an HTTP-message cassette writes it as
    /// a comment line), so it cannot hold a line break.
    package static func recordedWithProblem(_ text: String) -> String? {
        text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D })
            ? "recordedWith is one line of text (\(quoted(text))): it cannot hold a line break" : nil
    }

    /// A download speed in bytes per second: at least ``slowestBytesPerSecond``, and finite.
    package static func speedProblem(_ bytesPerSecond: Double) -> String? {
        bytesPerSecond.isFinite && bytesPerSecond >= slowestBytesPerSecond
            ? nil
            : "expected bytesPerSecond to be at least \(Int(slowestBytesPerSecond)) (a finite number), found \(JSONCassetteCodec.formatSeconds(bytesPerSecond))"
    }

    package static func timingProblem(_ timing: Interaction.Timing) -> String? {
        for (name, value) in [("firstByte", timing.firstByte), ("duration", timing.duration)] {
            if let problem = secondsProblem(name, value) { return problem }
        }
        if timing.duration < timing.firstByte {
            return
                "duration (\(JSONCassetteCodec.formatSeconds(timing.duration))) cannot be less than firstByte (\(JSONCassetteCodec.formatSeconds(timing.firstByte))): both count from the start of the request"
        }
        return nil
    }

    /// What is wrong with a streamed body: no chunk, an empty chunk, an `at` that is not a number
    /// of seconds, that comes before the chunk above it, or before the response head. Each problem
    /// with the index of its chunk (nil for the stream as a whole) and its field (`at`, or nil for
    /// the chunk).
    package static func streamProblems(
        _ stream: Interaction.StreamedBody, timing: Interaction.Timing?
    ) -> [(chunk: Int?, field: String?, message: String)] {
        guard !stream.chunks.isEmpty else {
            return [(nil, nil, "a stream needs at least one chunk; for a response without a body, remove \"stream\"")]
        }
        var problems: [(chunk: Int?, field: String?, message: String)] = []
        var previous: TimeInterval = 0
        for (i, chunk) in stream.chunks.enumerated() {
            let at = JSONCassetteCodec.formatSeconds(chunk.at)
            if let problem = secondsProblem("at", chunk.at) {
                problems.append((i, "at", problem))
            } else if chunk.at < previous {
                problems.append(
                    (
                        i, "at",
                        "this chunk arrives at \(at) s, before the one above it (\(JSONCassetteCodec.formatSeconds(previous)) s): "
                            + "\"at\" counts seconds from the start of the request and never decreases; to slow a chunk down, move it and the ones after it"
                    ))
            } else if let timing, chunk.at < timing.firstByte {
                problems.append(
                    (
                        i, "at",
                        "this chunk arrives at \(at) s, before the response head (timing.firstByte \(JSONCassetteCodec.formatSeconds(timing.firstByte)) s)"
                    ))
            }
            if chunk.data.isEmpty { problems.append((i, nil, "a chunk holds at least one byte")) }
            if chunk.at.isFinite { previous = max(previous, chunk.at) }
        }
        return problems
    }

    /// `afterBytes` counts bytes of the response body, so it needs a response and fits its body.
    package static func afterBytesProblem(_ afterBytes: Int, bodySize: Int?) -> String? {
        guard afterBytes >= 0 else { return "expected afterBytes to be a number of bytes, zero or more, found \(afterBytes)" }
        guard let bodySize else {
            return
                "afterBytes counts bytes of the response body, but this interaction has no \"response\"; remove afterBytes or add a response"
        }
        guard afterBytes <= bodySize else {
            return "afterBytes (\(afterBytes)) is more than the response body holds (\(bodySize) bytes)"
        }
        return nil
    }

    /// An absolute URL with a scheme and a host. Unicode is allowed (the file is UTF-8); spaces,
    /// control characters and broken percent escapes are not.
    package static func urlProblem(_ url: String) -> String? {
        let example = "like \"https://api.example.com/path\""
        let scalars = Array(url.unicodeScalars)
        if scalars.isEmpty { return "expected an absolute URL \(example), found an empty string" }
        for (i, s) in scalars.enumerated() {
            if s == " " { return "the URL contains a space at character \(i + 1); write it as %20" }
            // ASCII white space is below 0x20 or the space: only a scalar beyond ASCII asks its properties.
            if s.value < 0x20 || s.value == 0x7F || (0x80...0x9F).contains(s.value) || (s.value > 0x7F && s.properties.isWhitespace) {
                return "the URL contains a control or white-space character at character \(i + 1)"
            }
            if s == "%" {
                let isHex: (Int) -> Bool = { j in j < scalars.count && scalars[j].properties.isASCIIHexDigit }
                if !(isHex(i + 1) && isHex(i + 2)) {
                    return "invalid percent escape at character \(i + 1) of the URL: '%' must be followed by two hexadecimal digits"
                }
            }
        }
        // scheme ":" "//" authority
        let isLetter: (Unicode.Scalar) -> Bool = { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        let isSchemeScalar: (Unicode.Scalar) -> Bool = { isLetter($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) }
        guard let colon = scalars.firstIndex(of: ":"), colon > 0, isLetter(scalars[0]),
            scalars[1..<colon].allSatisfy(isSchemeScalar)
        else {
            return "expected an absolute URL \(example), found \(quoted(url)) (no scheme)"
        }
        guard scalars.count >= colon + 3, scalars[colon + 1] == "/", scalars[colon + 2] == "/" else {
            return "expected an absolute URL \(example), found \(quoted(url)) (no \"//\" and host after the scheme)"
        }
        let authorityStart = colon + 3
        let authorityEnd = scalars[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? scalars.count
        var hostAndPort = scalars[authorityStart..<authorityEnd]
        if let at = hostAndPort.lastIndex(of: "@") { hostAndPort = hostAndPort[(at + 1)...] }
        var host = hostAndPort
        var port: ArraySlice<Unicode.Scalar>?
        if hostAndPort.first == "[" {
            guard let close = hostAndPort.firstIndex(of: "]") else {
                return "the URL's IPv6 host has no closing ']'"
            }
            host = hostAndPort[...close]
            let rest = hostAndPort[(close + 1)...]
            if let first = rest.first {
                guard first == ":" else { return "unexpected text after the URL's IPv6 host" }
                port = rest.dropFirst()
            }
        } else if let portColon = hostAndPort.lastIndex(of: ":") {
            host = hostAndPort[..<portColon]
            port = hostAndPort[(portColon + 1)...]
        }
        if host.isEmpty { return "the URL \(quoted(url)) has no host" }
        if let port {
            let digits = String(String.UnicodeScalarView(port))
            guard !digits.isEmpty, digits.utf8.count <= 5, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = Int(digits), value <= 65535
            else { return "the URL's port must be a number from 0 to 65535, found \(quoted(digits))" }
        }
        return nil
    }

    /// What is wrong with an error code written as `name`: it names no `URLError.Code`.
    package static func unknownErrorCodeProblem(_ name: String) -> String {
        let names = Interaction.TransportError.Code.allNames
        let hint = JSONCassetteReader.closest(to: name, in: names).map { " (did you mean \"\($0)\"?)" } ?? ""
        return "unknown error code \(quoted(name))\(hint); expected a URLError.Code name or number. Names: \(names.joined(separator: ", "))"
    }

    /// `"text"`, shortened to 60 characters, for messages.
    package static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        let shown = text.unicodeScalars.count > 60 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(57))) + "…" : text
        JSONWriter.appendString(shown, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
