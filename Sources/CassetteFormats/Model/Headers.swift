extension Interaction {
    /// HTTP header fields: an ordered multi-map with case-insensitive lookup.
    ///
    /// Fields are grouped by name (compared case-insensitively), in the order each name first
    /// appeared; a group keeps the spelling of its first field and every value in order. This is
    /// exactly what a cassette file can say (`"Set-Cookie": ["a=1", "b=2"]`), so a round trip
    /// through a file gives back an equal value.
    ///
    /// ```swift
    /// var headers: Interaction.Headers = ["Content-Type": "application/json"]
    /// headers.add("Set-Cookie", "a=1")
    /// headers.add("set-cookie", "b=2")       // joins the "Set-Cookie" group
    /// headers.values(for: "SET-COOKIE")     // ["a=1", "b=2"]
    /// headers["content-type"]               // "application/json"
    /// ```
    ///
    /// Equality compares names as spelled and values in order: `Etag` and `ETag` are different
    /// spellings of the same field, and a cassette keeps whichever was recorded.
    public struct Headers: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
        /// All values of one field name, under the spelling it first had.
        public struct Field: Sendable, Hashable {
            /// The name as first spelled.
            public var name: String
            /// Every value, in order. Never empty.
            public var values: [String]
        }

        /// The fields grouped by name, in first-appearance order.
        public private(set) var fields: [Field] = []

        /// Where each name's field is in ``fields``, once there are more than
        /// ``linearSearchLimit`` of them: finding a field then takes constant time, so a message
        /// with thousands of fields reads in linear time. Empty below the limit, where a scan of
        /// a few names is faster than hashing one.
        private var positions: [FieldName: Int] = [:]

        private static let linearSearchLimit = 16

        /// No fields.
        public init() {}

        /// Fields from name–value pairs, in order; repeated names are grouped.
        public init(_ pairs: [(name: String, value: String)]) {
            for pair in pairs { add(pair.name, pair.value) }
        }

        /// Fields from a dictionary literal, in the order written.
        public init(dictionaryLiteral elements: (String, String)...) {
            for (name, value) in elements { add(name, value) }
        }

        /// Whether there are no fields.
        public var isEmpty: Bool { fields.isEmpty }

        /// The number of name–value pairs (a field with two values counts twice).
        public var count: Int { fields.reduce(0) { $0 + $1.values.count } }

        /// The values of the field named `name` (any case), in order; empty when absent.
        public func values(for name: String) -> [String] {
            indexOfField(named: name).map { fields[$0].values } ?? []
        }

        /// Whether a field named `name` (any case) is present.
        public func contains(_ name: String) -> Bool {
            indexOfField(named: name) != nil
        }

        /// The value of the field named `name` (any case), repeated values joined with `", "` as
        /// `URLRequest` and `HTTPURLResponse` do. Setting replaces every value of that field
        /// (keeping its position and spelling); setting `nil` removes it.
        public subscript(name: String) -> String? {
            get {
                guard let i = indexOfField(named: name) else { return nil }
                let values = fields[i].values
                // One value, the common case, is returned as it is: joining makes a new string.
                return values.count == 1 ? values[0] : values.isEmpty ? nil : values.joined(separator: ", ")
            }
            set {
                if let newValue { set(name, newValue) } else { remove(name) }
            }
        }

        /// Adds one value, after any the field already has.
        public mutating func add(_ name: String, _ value: String) {
            if let i = indexOfField(named: name) {
                fields[i].values.append(value)
            } else {
                append(Field(name: name, values: [value]))
            }
        }

        /// Replaces every value of the field named `name` with `value`, or appends the field.
        public mutating func set(_ name: String, _ value: String) {
            if let i = indexOfField(named: name) {
                fields[i].values = [value]
            } else {
                append(Field(name: name, values: [value]))
            }
        }

        /// Replaces each value with what `transform` returns for it, keeping names, order and
        /// spelling.
        ///
        /// ```swift
        /// headers.transformValues { name, value in name == "X-Trace" ? "-" : value }
        /// ```
        package mutating func transformValues(_ transform: (_ name: String, _ value: String) throws -> String) rethrows {
            for i in fields.indices {
                let name = fields[i].name
                fields[i].values = try fields[i].values.map { try transform(name, $0) }
            }
        }

        /// Removes the field named `name` (any case) and all its values.
        public mutating func remove(_ name: String) {
            guard let i = indexOfField(named: name) else { return }
            fields.remove(at: i)
            positions = [:]
            if fields.count > Self.linearSearchLimit {
                for (position, field) in fields.enumerated() { positions[FieldName(field.name)] = position }
            }
        }

        /// The field named `name` (any case), with the spelling it was first given; nil when absent.
        package func field(named name: String) -> Field? {
            indexOfField(named: name).map { fields[$0] }
        }

        /// Every name–value pair, grouped by name in first-appearance order.
        public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
            fields.lazy.flatMap { field in field.values.lazy.map { (name: field.name, value: $0) } }.makeIterator()
        }

        /// The fields as an HTTP message writes them, one `Name: value` line each.
        public var description: String {
            fields.map { "\($0.name): \($0.values.joined(separator: ", "))" }.joined(separator: "\n")
        }

        /// Equal when the fields are: the same names as spelled, the same values in order.
        public static func == (lhs: Headers, rhs: Headers) -> Bool {
            lhs.fields == rhs.fields
        }

        /// Hashes the fields as `==` compares them.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(fields)
        }

        private mutating func append(_ field: Field) {
            if positions.isEmpty, fields.count >= Self.linearSearchLimit {
                for (position, existing) in fields.enumerated() { positions[FieldName(existing.name)] = position }
            }
            if !positions.isEmpty { positions[FieldName(field.name)] = fields.count }
            fields.append(field)
        }

        private func indexOfField(named name: String) -> Int? {
            if positions.isEmpty {
                return fields.firstIndex { asciiCaseInsensitiveEquals($0.name, name) }
            }
            return positions[FieldName(name)]
        }
    }
}

/// A header field name as a dictionary key: equal and hashed ignoring ASCII case, without making
/// a lowercased copy.
private struct FieldName: Hashable {
    let name: String

    init(_ name: String) {
        self.name = name
    }

    static func == (lhs: FieldName, rhs: FieldName) -> Bool {
        asciiCaseInsensitiveEquals(lhs.name, rhs.name)
    }

    func hash(into hasher: inout Hasher) {
        for byte in name.utf8 { hasher.combine(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
    }
}

/// Compares two strings ignoring ASCII case only, as HTTP field names are compared.
package func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    let a = a.utf8
    let b = b.utf8
    guard a.count == b.count else { return false }
    for (x, y) in zip(a, b) where x != y {
        let lx = (x >= 0x41 && x <= 0x5A) ? x | 0x20 : x
        let ly = (y >= 0x41 && y <= 0x5A) ? y | 0x20 : y
        if lx != ly { return false }
    }
    return true
}
