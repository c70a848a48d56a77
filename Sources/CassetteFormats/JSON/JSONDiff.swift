import Foundation

/// How two JSON documents differ, by path: members added and removed, values changed, values whose
/// type changed. Object members compare by name (their order is not a change), arrays element by
/// element, numbers by value (`1.0` and `1` are the same number).
package enum JSONDiff {
    /// One difference.
    package struct Change: Sendable, Equatable, CustomStringConvertible {
        package enum Kind: Sendable, Equatable {
            case added(String)
            case removed(String)
            case value(old: String, new: String)
            case type(old: String, new: String)
        }

        /// Where: `$.user.email`, `$.items[2]`.
        package var path: JSONPath
        package var kind: Kind

        /// The path as changes show it: `$.user.email`, `$[0].id`, `$` for the whole document.
        package var shownPath: String { JSONDiff.shownPath(path) }

        /// `$.user.email: removed (was "ada@example.com")`.
        package var description: String {
            switch kind {
            case .added(let value): return "\(shownPath): added (\(value))"
            case .removed(let value): return "\(shownPath): removed (was \(value))"
            case .value(let old, let new): return "\(shownPath): \(old) → \(new)"
            case .type(let old, let new): return "\(shownPath): was \(old), is \(new)"
            }
        }
    }

    /// A path as changes show it: `$.user.email`, `$[0].id`, `$` for the whole document.
    package static func shownPath(_ path: JSONPath) -> String {
        let text = path.description
        return text.hasPrefix("$") ? text : text.hasPrefix("[") ? "$" + text : "$." + text
    }

    /// The differences from `old` to `new`, in document order; at most `limit` of them.
    ///
    /// - Parameter values: whether values count. Without them only the structure does — members
    ///   added and removed, types changed, and the shape of arrays' elements (the first element of
    ///   each side, at `[0]`) — as when a live API is compared with its recording, where ids and
    ///   counts differ every time.
    package static func changes(from old: JSONValue, to new: JSONValue, values: Bool = true, limit: Int = 200) -> [Change] {
        var changes: [Change] = []
        compare(old, new, at: .root, values: values, into: &changes, limit: limit)
        return changes
    }

    private static func compare(
        _ old: JSONValue, _ new: JSONValue, at path: JSONPath, values: Bool, into changes: inout [Change], limit: Int
    ) {
        guard changes.count < limit else { return }
        switch (old, new) {
        case (.object(let a), .object(let b)):
            let oldMembers = Dictionary(a.map { ($0.key, $0.value.value) }, uniquingKeysWith: { first, _ in first })
            let newMembers = Dictionary(b.map { ($0.key, $0.value.value) }, uniquingKeysWith: { first, _ in first })
            var seen = Set<String>()
            for member in b where seen.insert(member.key).inserted {
                if let before = oldMembers[member.key] {
                    compare(before, member.value.value, at: path.appending(member.key), values: values, into: &changes, limit: limit)
                } else if changes.count < limit {
                    changes.append(Change(path: path.appending(member.key), kind: .added(shown(member.value.value))))
                }
            }
            for member in a where newMembers[member.key] == nil && seen.insert(member.key).inserted && changes.count < limit {
                changes.append(Change(path: path.appending(member.key), kind: .removed(shown(member.value.value))))
            }
        case (.array(let a), .array(let b)) where !values:
            if let first = a.first, let other = b.first {
                compare(first.value, other.value, at: path.appending(0), values: false, into: &changes, limit: limit)
            }
        case (.array(let a), .array(let b)):
            for index in 0..<max(a.count, b.count) where changes.count < limit {
                if index < a.count, index < b.count {
                    compare(a[index].value, b[index].value, at: path.appending(index), values: values, into: &changes, limit: limit)
                } else if index < b.count {
                    changes.append(Change(path: path.appending(index), kind: .added(shown(b[index].value))))
                } else {
                    changes.append(Change(path: path.appending(index), kind: .removed(shown(a[index].value))))
                }
            }
        default:
            if kind(of: old) != kind(of: new) {
                changes.append(Change(path: path, kind: .type(old: typed(old), new: typed(new))))
            } else if values, !same(old, new) {
                changes.append(Change(path: path, kind: .value(old: shown(old), new: shown(new))))
            }
        }
    }

    private static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string, .longString, .base64: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// A value with its type: `a number 42`, `a string "42"`, `null`, `an array of 3`.
    private static func typed(_ value: JSONValue) -> String {
        switch value {
        case .null, .array, .object, .base64: return shown(value)
        default: return "\(kind(of: value)) \(shown(value))"
        }
    }

    private static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y || (Double(x) != nil && Double(x) == Double(y))
        default: return a.stringValue != nil && a.stringValue == b.stringValue
        }
    }

    /// A value as a change shows it: scalars as JSON, containers by their size.
    package static func shown(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let literal): return literal
        case .string, .longString:
            var out: [UInt8] = []
            let text = value.stringValue ?? ""
            JSONWriter.appendString(text.count > 80 ? String(text.prefix(77)) + "…" : text, to: &out)
            return String(decoding: out, as: UTF8.self)
        case .base64(let data): return "\(data.count) bytes"
        case .array(let elements): return "an array of \(elements.count)"
        case .object(let members): return "an object of \(members.count) member\(members.count == 1 ? "" : "s")"
        }
    }
}
