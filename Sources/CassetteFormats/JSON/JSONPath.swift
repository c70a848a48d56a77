/// A location in a JSON document, written the way people write it: `interactions[3].response.status`.
///
/// Keys that are not plain identifiers are quoted: `headers["Content-Type"]`. The root is `$`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// One step into an object or an array.
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The steps from the root.
    public var components: [Component]

    /// A path from its steps.
    package init(_ components: [Component]) {
        self.components = components
    }

    /// A path from its components: `["user", 0, "email"]`.
    public init(arrayLiteral elements: Component...) {
        self.components = elements
    }

    /// The root of the document.
    package static let root = JSONPath([])

    /// This path, one key further.
    package func appending(_ key: String) -> JSONPath { appending(step: .key(key)) }

    /// This path, one array index further.
    package func appending(_ index: Int) -> JSONPath { appending(step: .index(index)) }

    /// This path, one step further: one array made (readers make a path for every value they read).
    private func appending(step: Component) -> JSONPath {
        var steps: [Component] = []
        steps.reserveCapacity(components.count + 1)
        steps.append(contentsOf: components)
        steps.append(step)
        return JSONPath(steps)
    }

    /// The path as messages write it: `$.user[0].email`.
    public var description: String {
        if components.isEmpty { return "$" }
        var text = ""
        for component in components {
            switch component {
            case .index(let i):
                text += "[\(i)]"
            case .key(let key) where Self.isIdentifier(key):
                text += text.isEmpty ? key : "." + key
            case .key(let key):
                var quoted: [UInt8] = []
                JSONWriter.appendString(key, to: &quoted)
                text += "[" + String(decoding: quoted, as: UTF8.self) + "]"
            }
        }
        return text
    }

    private static func isIdentifier(_ key: String) -> Bool {
        guard let first = key.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return key.utf8.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == UInt8(ascii: "_")
        }
    }
}
