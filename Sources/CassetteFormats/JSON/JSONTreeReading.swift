import Foundation

/// A known key that an unknown key in the same object was taken for ("reponse" → "response"):
/// its absence is already explained, so it is not reported again.
package struct JSONMisspeltKey: Hashable, Sendable {
    var objectOffset: Int
    var key: String
}

/// A reader that turns a parsed JSON tree (``JSONNode``) into values of its own, collecting every
/// problem with its JSON path and byte offset instead of stopping at the first: the cassette's
/// JSON and HAR readers, the rules file, the ledger. They share these helpers, so a value of the
/// wrong type, a missing member or a misspelt key is worded the same way in every file Cassette
/// reads.
package protocol JSONTreeReading {
    /// Every problem so far, in the order found.
    var problems: [(path: JSONPath, offset: Int, message: String)] { get set }
    /// Known keys unknown ones were taken for (see ``JSONMisspeltKey``).
    var misspelt: Set<JSONMisspeltKey> { get set }
    /// How a value found where another was expected is named: by default scalars by value and
    /// containers by kind (`the string "yes"`, `7`, `an array`).
    static func describe(_ value: JSONValue) -> String
}

/// The members of an object a reader knows, by key (``JSONTreeReading/members(of:at:expected:allowed:hints:unknown:)``):
/// each key's first member, in the order written. An object a reader knows has a handful of
/// keys, each one of its `allowed` list (the others are reported, not kept), so a key is found by
/// comparing it with each, which costs less than hashing it into a dictionary.
package struct JSONFields {
    /// The members kept, in the order written; no key twice.
    var kept: [JSONMember] = []

    /// The value of the member `key`, or nil.
    package subscript(key: String) -> JSONNode? {
        for member in kept where member.key == key { return member.value }
        return nil
    }

    /// How many members were kept.
    package var count: Int { kept.count }

    /// Whether none was.
    package var isEmpty: Bool { kept.isEmpty }

    /// The first member kept.
    package var first: (key: String, value: JSONNode)? { kept.first.map { ($0.key, $0.value) } }
}

extension JSONTreeReading {
    /// Records a problem at `path` (`offset` is the byte where the value starts).
    package mutating func report(_ message: String, at path: JSONPath, offset: Int) {
        problems.append((path, offset, message))
    }

    // MARK: Scalars

    /// The text of a string; nil, with "expected `expected`, found …" reported, for anything else.
    package mutating func readString(_ node: JSONNode, at path: JSONPath, expected: String) -> String? {
        guard let text = node.value.stringValue else {
            report("expected \(expected), found \(Self.describe(node.value))", at: path, offset: node.offset)
            return nil
        }
        return text
    }

    /// A string that `rule` accepts (it returns the problem with a text, or nil).
    package mutating func readChecked(_ node: JSONNode, at path: JSONPath, expected: String, rule: (String) -> String?) -> String? {
        guard let text = readString(node, at: path, expected: expected) else { return nil }
        if let problem = rule(text) {
            report(problem, at: path, offset: node.offset)
            return nil
        }
        return text
    }

    /// A whole number.
    package mutating func readInteger(_ node: JSONNode, at path: JSONPath, expected: String) -> Int? {
        guard case .number(let literal) = node.value, !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else {
            report("expected \(expected) (a whole number), found \(Self.describe(node.value))", at: path, offset: node.offset)
            return nil
        }
        guard let value = Int(literal) else {
            report("the number \(literal) is too large", at: path, offset: node.offset)
            return nil
        }
        return value
    }

    /// A finite number, zero or more.
    package mutating func readSeconds(_ node: JSONNode, at path: JSONPath, expected: String = "a number of seconds") -> Double? {
        guard case .number(let literal) = node.value, let value = Double(literal), value.isFinite else {
            report("expected \(expected), found \(Self.describe(node.value))", at: path, offset: node.offset)
            return nil
        }
        guard value >= 0 else {
            report("expected \(expected), zero or more, found \(literal)", at: path, offset: node.offset)
            return nil
        }
        return value
    }

    /// A time written as ISO 8601 (`2026-11-26T05:00:00.000Z`, ``Timestamp``).
    package mutating func readTimestamp(_ node: JSONNode, at path: JSONPath, expected: String = "an ISO 8601 time") -> Date? {
        guard let text = readString(node, at: path, expected: expected) else { return nil }
        switch Timestamp.parse(text) {
        case .success(let date): return date
        case .failure(let error):
            report(error.message, at: path, offset: node.offset)
            return nil
        }
    }

    /// `true` or `false`.
    package mutating func readBool(_ node: JSONNode, at path: JSONPath) -> Bool? {
        guard case .bool(let value) = node.value else {
            report("expected true or false, found \(Self.describe(node.value))", at: path, offset: node.offset)
            return nil
        }
        return value
    }

    // MARK: Containers

    /// The elements of an array.
    package mutating func readArray(_ node: JSONNode, at path: JSONPath, expected: String) -> [JSONNode]? {
        guard case .array(let elements) = node.value else {
            report("expected \(expected), found \(Self.describe(node.value))", at: path, offset: node.offset)
            return nil
        }
        return elements
    }

    /// An array of strings.
    package mutating func readStrings(_ node: JSONNode, at path: JSONPath, expected: String) -> [String]? {
        guard let elements = readArray(node, at: path, expected: expected) else { return nil }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard let text = readString(element, at: path.appending(index), expected: "a string") else { return nil }
            strings.append(text)
        }
        return strings
    }

    /// An array of whole numbers.
    package mutating func readIntegers(_ node: JSONNode, at path: JSONPath, expected: String) -> [Int]? {
        guard let elements = readArray(node, at: path, expected: expected) else { return nil }
        var numbers: [Int] = []
        for (index, element) in elements.enumerated() {
            guard let number = readInteger(element, at: path.appending(index), expected: "a number") else { return nil }
            numbers.append(number)
        }
        return numbers
    }

    /// Whether `node` is an object; reports what it is when it is not.
    package mutating func isObject(_ node: JSONNode, at path: JSONPath, expected: String) -> Bool {
        guard case .object = node.value else {
            report("expected \(expected), found \(Self.describe(node.value))", at: path, offset: node.offset)
            return false
        }
        return true
    }

    /// The members of an object by key, after reporting duplicate and unknown keys (each with a
    /// suggestion when a known key is close, or the `hints` given for it). Nil, with a problem
    /// reported, when `node` is not an object.
    package mutating func members(
        of node: JSONNode, at path: JSONPath, expected: String, allowed: [String], hints: [String: String] = [:],
        unknown: String = "field"
    ) -> JSONFields? {
        guard case .object(let written) = node.value else {
            report("expected \(expected), found \(Self.describe(node.value))", at: path, offset: node.offset)
            return nil
        }
        var fields = JSONFields()
        for member in written {
            // Made only for a report: every member of every object passes here.
            var memberPath: JSONPath { path.appending(member.key) }
            if fields[member.key] != nil {
                report(
                    "duplicate key \(CassetteRules.quoted(member.key)); each key may appear once", at: memberPath, offset: member.keyOffset)
            } else if !allowed.contains(member.key) {
                if let hint = hints[member.key] {
                    report(hint, at: memberPath, offset: member.keyOffset)
                } else {
                    let guess = Self.closest(to: member.key, in: allowed)
                    if let guess { misspelt.insert(.init(objectOffset: node.offset, key: guess)) }
                    let suggestion = guess.map { " (did you mean \"\($0)\"?)" } ?? ""
                    let list = allowed.map { "\"\($0)\"" }.joined(separator: ", ")
                    report(
                        "unknown \(unknown) \(CassetteRules.quoted(member.key))\(suggestion); expected one of \(list)",
                        at: memberPath, offset: member.keyOffset)
                }
            } else {
                fields.kept.append(member)
            }
        }
        return fields
    }

    /// The member `key` of `fields` (read from `node` by ``members(of:at:expected:allowed:hints:unknown:)``);
    /// nil, with "missing required field" reported unless a misspelt key already explained it.
    package mutating func required(
        _ key: String, in fields: JSONFields, of node: JSONNode, at path: JSONPath, expecting: String
    ) -> JSONNode? {
        if let value = fields[key] { return value }
        if misspelt.contains(.init(objectOffset: node.offset, key: key)) { return nil }
        report("missing required field \"\(key)\" (expected \(expecting))", at: path, offset: node.offset)
        return nil
    }

    /// The member `key` of the object `node`, whatever else it holds (a format with members of
    /// its own, like HAR); nil, with "missing required field" reported, when it has none.
    package mutating func required(_ key: String, in node: JSONNode, at path: JSONPath, expecting: String) -> JSONNode? {
        if let value = node.memberValue(key) { return value }
        report("missing required field \"\(key)\" (expected \(expecting))", at: path, offset: node.offset)
        return nil
    }

    // MARK: Wording

    /// How a found value is named in a message: scalars by value, containers by kind.
    package static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let s): return "the string \(CassetteRules.quoted(s))"
        case .longString(let long): return "a string of \(long.bytes.count) bytes"
        case .number(let literal): return literal
        default: return value.kindDescription
        }
    }

    /// The candidate nearest to `word` by edit distance, if it is close enough to be a typo (``NearestWord``).
    package static func closest(to word: String, in candidates: [String]) -> String? {
        NearestWord.closest(to: word, in: candidates)
    }
}
