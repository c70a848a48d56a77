/// A body pattern and why its matching did not finish.
typealias FailedPattern = (pattern: String, failure: BodyPattern.Failure)

/// The secrets the rules found, in the order they found them (so that numbering them is
/// repeatable), each once.
struct FoundSecrets {
    private(set) var list: [String] = []
    private var seen: Set<String> = []
    /// The ones found as JSON numbers: they stay numbers, never placeholders.
    private(set) var numbers: Set<String> = []

    /// A body pattern whose matching did not finish (``BodyPattern/Failure``): its body was
    /// redacted whole, and a request whose matching did not finish is refused.
    var failedPattern: FailedPattern?

    var isEmpty: Bool { list.isEmpty }

    mutating func insert(_ secret: String, isNumber: Bool = false) {
        if seen.insert(secret).inserted { list.append(secret) }
        if isNumber { numbers.insert(secret) }
    }

    mutating func formUnion<Secrets: Sequence<String>>(_ secrets: Secrets) {
        for secret in secrets { insert(secret) }
    }
}
