import Foundation

/// The name/value lists a HAR request and response carry beside their headers (`cookies`,
/// `queryString`). They repeat what the headers and URL already say, so export fills them for
/// other tools and import ignores them.
enum HARNameValuePairs {
    /// The cookies of the request's `Cookie` headers: `a=1; b=2` → (a, 1), (b, 2).
    static func requestCookies(_ headers: Interaction.Headers) -> [(name: String, value: String)] {
        headers.values(for: "Cookie").flatMap { value in
            value.split(separator: ";").compactMap { pair(String($0).trimmingCharacters(in: .whitespaces)) }
        }
    }

    /// The cookie each `Set-Cookie` value sets, without its attributes.
    static func responseCookies(_ headers: Interaction.Headers) -> [(name: String, value: String)] {
        headers.values(for: "Set-Cookie").compactMap { value in
            let first = value.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return pair(first.trimmingCharacters(in: .whitespaces))
        }
    }

    /// The query parameters of `url`, percent-decoded, in order: `?a=1&b=x%20y` → (a, 1), (b, x y).
    static func queryParameters(of url: String) -> [(name: String, value: String)] {
        guard let question = url.firstIndex(of: "?") else { return [] }
        var query = url[url.index(after: question)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        return query.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let decode: (String) -> String = { $0.removingPercentEncoding ?? $0 }
            return (decode(parts[0]), parts.count == 2 ? decode(parts[1]) : "")
        }
    }

    private static func pair(_ text: String) -> (name: String, value: String)? {
        guard !text.isEmpty else { return nil }
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        return (parts[0], parts.count == 2 ? parts[1] : "")
    }
}
