import Foundation

/// A path inside a JSON body, as matching (`ignoringJSONPaths`) and redaction (`redactingJSONPaths`)
/// take it: `meta.requestId`, `items[0].id`, `items[*].clientTime` (`[*]` is every element),
/// `headers["X-Token"]`, optionally starting with `$.`.
struct JSONPathPattern: Sendable {
    enum Step: Sendable, Equatable {
        case key(String)
        case index(Int)
        case anyIndex
    }

    var steps: [Step]

    init(_ text: String) {
        var steps: [Step] = []
        var body = Substring(text)
        if body.hasPrefix("$") { body = body.dropFirst() }
        for part in body.split(separator: ".", omittingEmptySubsequences: true) {
            var part = part
            let name = part.prefix { $0 != "[" }
            if !name.isEmpty { steps.append(.key(String(name))) }
            part = part.dropFirst(name.count)
            while part.hasPrefix("["), let close = part.firstIndex(of: "]") {
                let inside = part[part.index(after: part.startIndex)..<close]
                if inside == "*" {
                    steps.append(.anyIndex)
                } else if let index = Int(inside) {
                    steps.append(.index(index))
                } else {
                    steps.append(.key(inside.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))))
                }
                part = part[part.index(after: close)...]
            }
        }
        self.steps = steps
    }
}

extension JSONPathPattern {
    /// `value` with each value found at one of `patterns` replaced by `replace(found)`; a value
    /// inside one already replaced is not visited.
    static func replacing(in value: JSONValue, at patterns: [JSONPathPattern], with replace: (JSONValue) -> JSONValue) -> JSONValue {
        transform(value, patterns.map { ArraySlice($0.steps) }, replace)
    }

    private static func transform(
        _ value: JSONValue, _ paths: [ArraySlice<Step>], _ replace: (JSONValue) -> JSONValue
    ) -> JSONValue {
        if paths.contains(where: \.isEmpty) { return replace(value) }
        if paths.isEmpty { return value }
        switch value {
        case .object(let members):
            return .object(
                members.map { member in
                    let below = paths.compactMap { path -> ArraySlice<Step>? in
                        guard case .key(let key)? = path.first, key == member.key else { return nil }
                        return path.dropFirst()
                    }
                    var member = member
                    member.value = JSONNode(transform(member.value.value, below, replace))
                    return member
                })
        case .array(let elements):
            return .array(
                elements.enumerated().map { index, element in
                    let below = paths.compactMap { path -> ArraySlice<Step>? in
                        switch path.first {
                        case .index(let i)? where i == index: return path.dropFirst()
                        case .anyIndex?: return path.dropFirst()
                        default: return nil
                        }
                    }
                    return JSONNode(transform(element.value, below, replace))
                })
        default:
            return value
        }
    }
}

extension JSONPathPattern {
    /// Whether `path` is at this pattern or inside what it names: `items[*].fetchedAt` contains
    /// `items[2].fetchedAt` and `items[2].fetchedAt.zone`, not `items[2]`.
    func contains(_ path: JSONPath) -> Bool {
        guard steps.count <= path.components.count else { return false }
        return zip(steps, path.components).allSatisfy { step, component in
            switch (step, component) {
            case (.key(let a), .key(let b)): return a == b
            case (.index(let a), .index(let b)): return a == b
            case (.anyIndex, .index): return true
            default: return false
            }
        }
    }
}
