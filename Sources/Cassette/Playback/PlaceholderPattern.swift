import Foundation

/// A recorded text in which redaction placeholders stand for values the cassette does not hold:
/// `api_key=[REDACTED-1]&page=2` matches a live `api_key=abc123&page=2`, and learns that
/// `[REDACTED-1]` stood for `abc123`.
///
/// - `[REDACTED-n]`, a numbered placeholder, stands for one secret: it matches any value that
///   is not empty, binds to it, and from then on matches only that value.
/// - `[REDACTED]`, the plain placeholder of older cassettes (and of values too short to search
///   for), matches any value that is not empty and binds nothing: it may stand for different
///   secrets in different places.
///
/// Everything else in the text must be equal. Pure: the bindings so far go in, the new ones
/// come out.
enum PlaceholderPattern {
    /// How every placeholder starts.
    static let prefix = "[REDACTED"

    /// What a successful match found.
    struct Match: Equatable {
        /// Numbered placeholders bound by this match, to the values they stood for.
        var bindings: [String: String] = [:]
        /// How many placeholders the match relied on (bound or not).
        var count = 0
        /// What each placeholder stood for, numbered or not, in order.
        var values: [String] = []
    }

    /// How a value is spelled in the text being matched: as it is, or escaped inside a JSON string.
    enum Spelling {
        case plain
        case jsonString

        /// `value` as the text spells it.
        func spell(_ value: String) -> [UInt8] {
            switch self {
            case .plain:
                return Array(value.utf8)
            case .jsonString:
                var out: [UInt8] = []
                JSONWriter.appendString(value, to: &out)
                // Without the quotes the writer puts around the string.
                return out.count >= 2 ? Array(out[1..<(out.count - 1)]) : out
            }
        }

        /// The value that `bytes` spell, or nil when they spell none (an escape cut in two).
        func read(_ bytes: ArraySlice<UInt8>) -> String? {
            switch self {
            case .plain:
                return String(decoding: bytes, as: UTF8.self)
            case .jsonString:
                guard let node = try? JSONParser.parse(Data([UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")])),
                    case .string(let text) = node.value
                else { return nil }
                return text
            }
        }
    }

    /// Whether `text` holds a placeholder (a cheap test before any matching).
    static func containsPlaceholder(_ text: String) -> Bool {
        text.utf8.count >= prefix.utf8.count && text.utf8Contains(prefix)
    }

    /// Whether `data` holds a placeholder, searched as bytes (a body is never copied into a string).
    static func containsPlaceholder(_ data: Data) -> Bool {
        guard data.count >= prefix.utf8.count else { return false }
        var prefix = prefix
        return prefix.withUTF8 { needle in data.withUnsafeBytes { $0.bindMemory(to: UInt8.self).utf8Contains(needle) } }
    }

    /// The numbers of the numbered placeholders in `data`, searched as bytes.
    static func numbers(in data: Data) -> [Int] {
        let marker = Data((prefix + "-").utf8)
        var numbers: [Int] = []
        var cursor = data.startIndex
        while let found = data.range(of: marker, in: cursor..<data.endIndex) {
            var index = found.upperBound
            var number = 0
            var digits = 0
            while index < data.endIndex, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(data[index]), digits < 9 {
                number = number * 10 + Int(data[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            if digits > 0, index < data.endIndex, data[index] == UInt8(ascii: "]") { numbers.append(number) }
            cursor = found.upperBound
        }
        return numbers
    }

    /// Whether `text` is a placeholder and nothing else.
    static func isPlaceholder(_ text: String) -> Bool {
        let pieces = pieces(of: Array(text.utf8))
        if pieces.count == 1, case .placeholder = pieces[0] { return true }
        return false
    }

    /// Whether `live` is what `recorded` says, under `bound` (placeholder → value).
    static func match(_ recorded: String, _ live: String, bound: [String: String], spelling: Spelling = .plain) -> Match? {
        if recorded == live { return Match() }
        guard containsPlaceholder(recorded) else { return nil }
        var matcher = Matcher(pieces: pieces(of: Array(recorded.utf8)), live: Array(live.utf8), bound: bound, spelling: spelling)
        return matcher.run()
    }

    /// A piece of a recorded text: literal bytes, or a placeholder.
    enum Piece: Equatable {
        case literal([UInt8])
        /// The placeholder's text; `numbered` for `[REDACTED-n]`.
        case placeholder(String, numbered: Bool)
    }

    /// `text` cut into literals and placeholders.
    static func pieces(of text: [UInt8]) -> [Piece] {
        let marker = Array(prefix.utf8)
        var pieces: [Piece] = []
        var literal: [UInt8] = []
        var index = 0
        while index < text.count {
            if text[index] == marker[0], let (length, numbered) = placeholder(in: text, at: index, marker: marker) {
                if !literal.isEmpty { pieces.append(.literal(literal)) }
                literal = []
                pieces.append(.placeholder(String(decoding: text[index..<(index + length)], as: UTF8.self), numbered: numbered))
                index += length
            } else {
                literal.append(text[index])
                index += 1
            }
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return pieces
    }

    /// The length of the placeholder at `index` (`[REDACTED]` or `[REDACTED-` digits `]`), if one is there.
    private static func placeholder(in text: [UInt8], at index: Int, marker: [UInt8]) -> (Int, Bool)? {
        guard index + marker.count < text.count, Array(text[index..<(index + marker.count)]) == marker else { return nil }
        var end = index + marker.count
        if text[end] == UInt8(ascii: "]") { return (end + 1 - index, false) }
        guard text[end] == UInt8(ascii: "-") else { return nil }
        end += 1
        let digitsStart = end
        while end < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[end]) { end += 1 }
        guard end > digitsStart, end < text.count, text[end] == UInt8(ascii: "]") else { return nil }
        return (end + 1 - index, true)
    }

    /// Backtracking over the pieces; bounded, so a pathological text fails instead of hanging.
    private struct Matcher {
        let pieces: [Piece]
        let live: [UInt8]
        var bound: [String: String]
        let spelling: Spelling
        var steps = 0
        /// The live bytes each placeholder matched so far, innermost last.
        var captures: [Range<Int>] = []
        /// For a literal piece, the position from which it was found nowhere: no later search can find it.
        var absentFrom: [Int: Int] = [:]
        static let mostSteps = 50_000

        mutating func run() -> Match? {
            let before = bound
            guard let count = match(piece: 0, at: 0) else { return nil }
            var found = Match(count: count, values: captures.compactMap { spelling.read(live[$0]) })
            for (placeholder, value) in bound where before[placeholder] == nil { found.bindings[placeholder] = value }
            return found
        }

        /// The number of placeholders matched from `piece` on, with `live[position...]`; nil for no match.
        mutating func match(piece: Int, at position: Int) -> Int? {
            steps += 1
            guard steps < Self.mostSteps else { return nil }
            guard piece < pieces.count else { return position == live.count ? 0 : nil }
            switch pieces[piece] {
            case .literal(let bytes):
                guard live.count - position >= bytes.count, live[position..<(position + bytes.count)].elementsEqual(bytes) else {
                    return nil
                }
                return match(piece: piece + 1, at: position + bytes.count)
            case .placeholder(let name, let numbered):
                if numbered, let value = bound[name] {
                    let bytes = spelling.spell(value)
                    guard !bytes.isEmpty, live.count - position >= bytes.count,
                        live[position..<(position + bytes.count)].elementsEqual(bytes)
                    else { return nil }
                    captures.append(position..<(position + bytes.count))
                    if let rest = match(piece: piece + 1, at: position + bytes.count) { return rest + 1 }
                    captures.removeLast()
                    return nil
                }
                // Shortest first: the literal after a placeholder anchors where its value ends.
                var end = position + 1
                while end <= live.count {
                    if case .literal(let next)? = piece + 1 < pieces.count ? pieces[piece + 1] : nil {
                        // Jump to the next place the following literal starts.
                        if let absent = absentFrom[piece + 1], end >= absent { return nil }
                        guard let found = firstIndex(of: next, from: end) else {
                            absentFrom[piece + 1] = min(absentFrom[piece + 1] ?? end, end)
                            return nil
                        }
                        end = found
                    } else if piece + 1 == pieces.count {
                        end = live.count
                    }
                    if numbered {
                        guard let value = spelling.read(live[position..<end]), !value.isEmpty else {
                            end += 1
                            continue
                        }
                        bound[name] = value
                        captures.append(position..<end)
                        if let rest = match(piece: piece + 1, at: end) { return rest + 1 }
                        captures.removeLast()
                        bound[name] = nil
                    } else {
                        captures.append(position..<end)
                        if let rest = match(piece: piece + 1, at: end) { return rest + 1 }
                        captures.removeLast()
                    }
                    if piece + 1 == pieces.count { return nil }
                    end += 1
                }
                return nil
            }
        }

        private func firstIndex(of bytes: [UInt8], from start: Int) -> Int? {
            guard !bytes.isEmpty, start + bytes.count <= live.count else { return nil }
            var index = start
            while index + bytes.count <= live.count {
                if live[index] == bytes[0], live[index..<(index + bytes.count)].elementsEqual(bytes) { return index }
                index += 1
            }
            return nil
        }
    }
}

extension PlaceholderPattern {
    /// Whether the recorded request `recorded` (whose key holds placeholders) matches the live
    /// `live`, part by part: method exactly; the canonical URL, each compared header and the
    /// body with placeholders standing for values. A placeholder bound in one part must stand
    /// for the same value in the others.
    static func match(_ recorded: RequestKey, _ live: RequestKey, bound: [String: String]) -> Match? {
        guard recorded.method == live.method, recorded.headers.count == live.headers.count else { return nil }
        var found = Match()
        var bound = bound
        func add(_ recorded: String, _ live: String, _ spelling: Spelling = .plain) -> Bool {
            guard let match = match(recorded, live, bound: bound, spelling: spelling) else { return false }
            found.count += match.count
            for (placeholder, value) in match.bindings {
                found.bindings[placeholder] = value
                bound[placeholder] = value
            }
            return true
        }
        guard add(recorded.url, live.url) else { return nil }
        for (recordedValue, liveValue) in zip(recorded.headers, live.headers) where !add(recordedValue, liveValue) { return nil }
        func body(_ recorded: RequestKey.BodyKey, _ live: RequestKey.BodyKey) -> Bool {
            switch (recorded, live) {
            case (.canonical(let recordedText), .canonical(let liveText)):
                // Canonical JSON starts with its value; canonical form fields with a name.
                let isJSON =
                    recordedText.utf8.first.map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "\"") } ?? false
                return add(recordedText, liveText, isJSON ? .jsonString : .plain)
            case (.bytes(let recordedData), .bytes(let liveData)):
                if recordedData == liveData { return true }
                guard UTF8Validation.isValid(recordedData), UTF8Validation.isValid(liveData) else { return false }
                return add(String(decoding: recordedData, as: UTF8.self), String(decoding: liveData, as: UTF8.self))
            case (.multipart(let recordedParts), .multipart(let liveParts)):
                guard recordedParts.count == liveParts.count else { return false }
                for (recordedPart, livePart) in zip(recordedParts, liveParts) {
                    guard add(recordedPart.name ?? "", livePart.name ?? ""), add(recordedPart.filename ?? "", livePart.filename ?? ""),
                        recordedPart.contentType == livePart.contentType, body(recordedPart.body, livePart.body)
                    else { return false }
                }
                return true
            case (.envelopes(let recordedEnvelopes, let recordedRest), .envelopes(let liveEnvelopes, let liveRest)):
                guard recordedEnvelopes.count == liveEnvelopes.count, recordedRest == liveRest else { return false }
                return zip(recordedEnvelopes, liveEnvelopes).allSatisfy { $0.flags == $1.flags && body($0.payload, $1.payload) }
            default:
                return false
            }
        }
        return body(recorded.body, live.body) ? found : nil
    }

    /// What the placeholders of the recorded request `recorded` stand for in the live request
    /// `live`, part by part, wherever both have the part — compared or not: the URL, each header
    /// field the recording has, the body. A part that does not match teaches nothing; the others
    /// still do. `bindings` are the numbered placeholders newly bound; `values` everything any
    /// placeholder stood for (to keep out of a report).
    static func learn(from recorded: Interaction.Request, _ live: Interaction.Request, bound: [String: String]) -> Match {
        var learned = Match()
        var bound = bound
        func attempt(_ recorded: String, _ live: String, _ spelling: Spelling = .plain) {
            guard containsPlaceholder(recorded), let match = match(recorded, live, bound: bound, spelling: spelling) else { return }
            learned.count += match.count
            learned.values += match.values
            for (placeholder, value) in match.bindings {
                learned.bindings[placeholder] = value
                bound[placeholder] = value
            }
        }
        attempt(CanonicalURL.text(recorded.url), CanonicalURL.text(live.url))
        for field in recorded.headers where containsPlaceholder(field.value) {
            if let value = live.headers[field.name] { attempt(field.value, value) }
        }
        if containsPlaceholder(recorded.body.data) {
            switch (RequestKey(recorded, rules: .default).body, RequestKey(live, rules: .default).body) {
            case (.canonical(let recordedText), .canonical(let liveText)):
                let isJSON =
                    recordedText.utf8.first.map { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "\"") } ?? false
                attempt(recordedText, liveText, isJSON ? .jsonString : .plain)
            case (.bytes(let recordedData), .bytes(let liveData)):
                if UTF8Validation.isValid(recordedData), UTF8Validation.isValid(liveData) {
                    attempt(String(decoding: recordedData, as: UTF8.self), String(decoding: liveData, as: UTF8.self))
                }
            case (.multipart(let recordedParts), .multipart(let liveParts)) where recordedParts.count == liveParts.count:
                for (recordedPart, livePart) in zip(recordedParts, liveParts) {
                    if case .bytes(let recordedData) = recordedPart.body, case .bytes(let liveData) = livePart.body,
                        UTF8Validation.isValid(recordedData), UTF8Validation.isValid(liveData)
                    {
                        attempt(String(decoding: recordedData, as: UTF8.self), String(decoding: liveData, as: UTF8.self))
                    }
                }
            default:
                break
            }
        }
        return learned
    }

    /// What the placeholders of a recorded WebSocket message's text stand for in the text a live
    /// client sent: JSON compared as requests' JSON bodies are (canonical, without `ignoring`),
    /// any other text as it is. Nil when the texts do not match.
    static func learn(fromMessage recorded: String, _ live: String, ignoring: [JSONPathPattern], bound: [String: String]) -> Match? {
        guard containsPlaceholder(recorded) else { return nil }
        if let old = try? JSONParser.parse(Data(recorded.utf8)), let new = try? JSONParser.parse(Data(live.utf8)) {
            let canonical = { (value: JSONValue) in
                String(decoding: JSONWriter.compact(CanonicalJSON.value(value, removing: ignoring)), as: UTF8.self)
            }
            return match(canonical(old.value), canonical(new.value), bound: bound, spelling: .jsonString)
        }
        return match(recorded, live, bound: bound)
    }

    /// Whether a request key holds a placeholder anywhere it is compared.
    static func containsPlaceholder(_ key: RequestKey) -> Bool {
        func body(_ key: RequestKey.BodyKey) -> Bool {
            switch key {
            case .canonical(let text): return containsPlaceholder(text)
            case .bytes(let data): return containsPlaceholder(data)
            case .multipart(let parts):
                return parts.contains { containsPlaceholder($0.name ?? "") || containsPlaceholder($0.filename ?? "") || body($0.body) }
            case .envelopes(let envelopes, _):
                return envelopes.contains { body($0.payload) }
            }
        }
        return containsPlaceholder(key.url) || key.headers.contains(where: containsPlaceholder) || body(key.body)
    }
}
