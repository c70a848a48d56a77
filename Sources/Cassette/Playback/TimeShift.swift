import Foundation

/// Every time in a recorded response moved by the same number of seconds, each written back in
/// the form it had (``ReplayTime/shifted``): the `Date`, `Expires`, `Last-Modified` and
/// `Retry-After` fields when they hold an HTTP date, the `Expires` of each `Set-Cookie` (its
/// `Max-Age` is relative and stays), the values at the JSON paths the user named (ISO 8601 strings
/// and numbers of seconds or milliseconds since 1970), and the `exp`, `iat` and `nbf` claims of the
/// JWTs found in header fields, cookies and JSON strings.
///
/// Only the bytes of a moved value change: the rest of a JSON body stays byte for byte. A JWT is
/// re-encoded with its payload changed and its signature as recorded, so it no longer verifies:
/// code under test that checks signatures must not be given shifted tokens. A value that looks
/// like a time but cannot be read is left as it is and named in ``unreadable``.
struct TimeShift {
    /// How far every time moves.
    let seconds: TimeInterval
    /// The JSON paths whose values are times (``JSONPathPattern`` syntax: `token.expires_at`,
    /// `items[*].updated`).
    let jsonPaths: [JSONPathPattern]

    /// The header fields that hold a date.
    static let dateFields = ["Date", "Expires", "Last-Modified", "Retry-After"]
    /// The JWT claims that hold a time.
    static let jwtClaims: Set<String> = ["exp", "iat", "nbf"]

    /// What moved, one line each (`Date: Mon, … → Thu, …`), and what looked like a time but
    /// could not be read.
    struct Result {
        var interaction: Interaction
        var moved: [String] = []
        var unreadable: [String] = []
    }

    /// `interaction` with every time of its response moved.
    func apply(to interaction: Interaction) -> Result {
        var result = Result(interaction: interaction)
        guard var response = interaction.response else { return result }
        response.headers.transformValues { name, value in
            if name.caseInsensitiveCompare("Set-Cookie") == .orderedSame { return cookie(value, into: &result) }
            guard let field = Self.dateFields.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else {
                return tokens(in: value, field: name, into: &result)
            }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            // Retry-After in seconds is relative: it stays.
            if field == "Retry-After", Int(trimmed) != nil { return value }
            guard let moved = HTTPDate.moved(trimmed, by: seconds) else {
                result.unreadable.append("\(name): \(value)")
                return value
            }
            result.moved.append("\(name): \(value) → \(moved)")
            return moved
        }
        if !response.body.isEmpty, response.stream == nil, let body = json(response.body.data, into: &result) {
            response.body = Interaction.Body(body, contentType: response.headers["Content-Type"])
        }
        result.interaction.response = response
        return result
    }

    /// A `Set-Cookie` value with its `Expires` moved and the JWTs in its value moved.
    private func cookie(_ value: String, into result: inout Result) -> String {
        var parts = value.components(separatedBy: ";")
        for index in parts.indices {
            let part = parts[index]
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            if index == 0 {
                parts[index] = tokens(in: part, field: "Set-Cookie", into: &result)
                continue
            }
            guard trimmed.lowercased().hasPrefix("expires=") else { continue }
            let date = String(trimmed.dropFirst("expires=".count))
            guard let moved = HTTPDate.moved(date, by: seconds) else {
                result.unreadable.append("Set-Cookie expires: \(date)")
                continue
            }
            let name = parts[0].split(separator: "=").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            result.moved.append("Set-Cookie \(name) expires: \(date) → \(moved)")
            parts[index] = part.replacingOccurrences(of: date, with: moved)
        }
        return parts.joined(separator: ";")
    }

    /// `text` with each JWT in it (a run of base64url characters with two dots) moved.
    private func tokens(in text: String, field: String, into result: inout Result) -> String {
        guard text.contains("."), text.contains("eyJ") else { return text }
        var out = ""
        var current = ""
        func flush() {
            if let moved = JWTClaims.moved(current, by: seconds, claims: Self.jwtClaims) {
                result.moved.append("\(field): a JWT's \(moved.claims.joined(separator: ", "))")
                out += moved.token
            } else {
                out += current
            }
            current = ""
        }
        for character in text {
            if character.isASCII, character.isLetter || character.isNumber || "-_.".contains(character) {
                current.append(character)
            } else {
                flush()
                out.append(character)
            }
        }
        flush()
        return out
    }

    /// The JSON body `data` with its times moved, or nil when it is not JSON or nothing moved.
    private func json(_ data: Data, into result: inout Result) -> Data? {
        guard let first = data.first(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }), first == 0x7B || first == 0x5B,
            let root = try? JSONParser.parse(data)
        else { return nil }
        var edits: [(range: Range<Int>, text: String)] = []
        visit(root, path: [], in: data, edits: &edits, result: &result)
        guard !edits.isEmpty else { return nil }
        var bytes = [UInt8](data)
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(edit.range, with: Array(edit.text.utf8))
        }
        return Data(bytes)
    }

    private func visit(
        _ node: JSONNode, path: [JSONPathPattern.Step], in data: Data, edits: inout [(range: Range<Int>, text: String)],
        result: inout Result
    ) {
        let shown =
            "$"
            + path.map { step -> String in
                switch step {
                case .key(let key): return "." + key
                case .index(let index): return "[\(index)]"
                case .anyIndex: return "[*]"
                }
            }.joined()
        let named = jsonPaths.contains { Self.matches($0.steps, path) }
        switch node.value {
        case .object(let members):
            for member in members { visit(member.value, path: path + [.key(member.key)], in: data, edits: &edits, result: &result) }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                visit(element, path: path + [.index(index)], in: data, edits: &edits, result: &result)
            }
        case .string(let text):
            guard node.offset >= 0, let end = JSONToken.endOfString(in: data, at: node.offset) else { return }
            if named {
                guard let moved = ISO8601Time.moved(text, by: seconds) else {
                    result.unreadable.append("\(shown): \(text)")
                    return
                }
                result.moved.append("\(shown): \(text) → \(moved)")
                edits.append((node.offset..<end, JSONToken.quoted(moved)))
            } else if let moved = JWTClaims.moved(text, by: seconds, claims: Self.jwtClaims) {
                result.moved.append("\(shown): a JWT's \(moved.claims.joined(separator: ", "))")
                edits.append((node.offset..<end, JSONToken.quoted(moved.token)))
            }
        case .number(let literal) where named:
            guard node.offset >= 0, let moved = JSONToken.movedEpoch(literal, by: seconds) else {
                result.unreadable.append("\(shown): \(literal)")
                return
            }
            result.moved.append("\(shown): \(literal) → \(moved)")
            edits.append((node.offset..<(node.offset + literal.utf8.count), moved))
        default:
            if named { result.unreadable.append("\(shown): \(node.value.kindDescription)") }
        }
    }

    /// Whether the concrete `path` is one `steps` names.
    static func matches(_ steps: [JSONPathPattern.Step], _ path: [JSONPathPattern.Step]) -> Bool {
        guard steps.count == path.count else { return false }
        return zip(steps, path).allSatisfy { step, part in
            switch (step, part) {
            case (.anyIndex, .index): return true
            default: return step == part
            }
        }
    }
}

/// The byte-level pieces of JSON a shift rewrites in place.
enum JSONToken {
    /// The offset just past the string token starting at `start` (its opening quote).
    static func endOfString(in data: Data, at start: Int) -> Int? {
        let base = data.startIndex
        guard start < data.count, data[base + start] == 0x22 else { return nil }
        var index = start + 1
        while index < data.count {
            switch data[base + index] {
            case 0x5C: index += 2
            case 0x22: return index + 1
            default: index += 1
            }
        }
        return nil
    }

    /// `text` as a JSON string token.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        JSONWriter.appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A number of seconds (or, from 10¹¹ on, milliseconds) since 1970 moved by `seconds`, with
    /// as many decimals as it had; nil for a literal that is not such a number.
    static func movedEpoch(_ literal: String, by seconds: TimeInterval) -> String? {
        guard let value = Double(literal), !literal.contains("e"), !literal.contains("E") else { return nil }
        let milliseconds = abs(value) >= 1e11
        let move = milliseconds ? seconds * 1000 : seconds
        let decimals = literal.split(separator: ".").dropFirst().first?.count ?? 0
        if decimals == 0 { return String(Int64((value + move).rounded(.down))) }
        return String(format: "%.\(decimals)f", value + move)
    }
}
