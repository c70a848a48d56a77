import Foundation

/// JSON for stub conditions and responses: `Encodable` values turned into ``JSONValue`` trees,
/// compared by meaning.
enum StubJSON {
    /// `value` encoded as JSON, or nil when it cannot be (the condition then matches nothing).
    static func value(encoding value: some Encodable) -> JSONValue? {
        // Foundation's JSON coder stays here, not the project's JSON: the value is the user's
        // `Encodable`, which speaks only to an `Encoder`. What it writes is read with `JSONParser` at once.
        guard let data = try? JSONEncoder().encode(value) else { return nil }
        return try? JSONParser.parse(data).value
    }

    /// Keys sorted, numbers normalised, as request matching compares bodies.
    static func canonical(_ value: JSONValue) -> Data {
        Data(JSONWriter.compact(CanonicalJSON.value(value, removing: [])))
    }

    static func text(_ value: JSONValue?) -> String {
        value.map { String(decoding: JSONWriter.compact($0), as: UTF8.self) } ?? "(a value that cannot be encoded as JSON)"
    }

    /// Whether `actual` holds `expected`: objects by their keys, recursively; anything else equal.
    static func contains(_ actual: JSONValue, _ expected: JSONValue) -> Bool {
        if case .object(let wanted) = expected, case .object(let found) = actual {
            return wanted.allSatisfy { member in
                found.first { $0.key == member.key }.map { contains($0.value.value, member.value.value) } ?? false
            }
        }
        return canonical(actual) == canonical(expected)
    }
}
