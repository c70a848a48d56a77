/// The secrets the rules found, in the order they found them (so that numbering them is
/// repeatable), each once.
struct FoundSecrets {
    private(set) var list: [String] = []
    private var seen: Set<String> = []
    /// The ones found as JSON numbers: they stay numbers, never placeholders.
    private(set) var numbers: Set<String> = []

    /// A body pattern stopped at its budget (``BodyPattern/budget(length:)``): its body was
    /// redacted whole, and a request whose matching stopped is refused.
    var slowPattern: String?

    var isEmpty: Bool { list.isEmpty }

    mutating func insert(_ secret: String, isNumber: Bool = false) {
        if seen.insert(secret).inserted { list.append(secret) }
        if isNumber { numbers.insert(secret) }
    }

    mutating func formUnion<Secrets: Sequence<String>>(_ secrets: Secrets) {
        for secret in secrets { insert(secret) }
    }
}
