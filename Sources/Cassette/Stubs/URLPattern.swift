/// A path pattern with named parameters: `/users/:id/posts/:post` matches `/users/42/posts/7`
/// with `id` = 42 and `post` = 7. Segments without `:` must be equal; the number of segments too.
struct URLPattern: Sendable, CustomStringConvertible {
    private enum Segment: Sendable {
        case literal(String)
        case parameter(String)
    }

    private let segments: [Segment]
    let description: String

    init(path: String) {
        description = path
        segments = path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix(":") && part.count > 1 ? .parameter(String(part.dropFirst())) : .literal(String(part))
        }
    }

    /// The parameters when `path` matches, else nil.
    func match(path: String) -> [String: String]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text):
                guard text == part else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(part)
            }
        }
        return parameters
    }
}
