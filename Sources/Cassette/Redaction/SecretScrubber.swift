import Foundation

/// Replaces every occurrence of some texts with others, in strings and in bytes — the secrets of
/// an interaction with `[REDACTED]`, or placeholders with their secrets.
///
/// Each secret is searched for as written, percent-encoded (as in a URL or form body) and
/// JSON-escaped (as in a JSON body). One pass over the bytes replaces, at each place, the longest
/// text that starts there (a secret containing another is replaced whole): it walks a trie of the
/// texts from each byte that starts one, never searches the message once per secret. So the cost
/// does not grow with the number of secrets (10,000 cost what one does), only with the message's
/// length and, at a byte where a secret may start, with how far the trie is walked from there —
/// at most the longest secret.
struct SecretScrubber {
    private let trie: Trie

    /// Replaces each of `secrets` with `replacement`.
    init<Secrets: Sequence<String>>(secrets: Secrets, with replacement: String) {
        self.init(pairs: secrets.map { ($0, replacement) })
    }

    /// Replaces each `from` with its `to`.
    init(pairs: [(from: String, to: String)]) {
        var seen = Set<String>()
        var replacements: [(from: String, to: String)] = []
        for (from, to) in pairs where !from.isEmpty && from != to {
            for variant in Self.variants(of: from) where seen.insert(variant).inserted {
                replacements.append((variant, to))
            }
        }
        trie = Trie(replacements)
    }

    /// Puts each `value` back where its `placeholder` stands, spelled as the placeholder is
    /// spelled there: a percent-encoded placeholder gets the value percent-encoded the same way,
    /// a JSON-escaped one the value JSON-escaped.
    ///
    /// - Parameter insideJSON: the text is a JSON document, where a placeholder written as it is
    ///   stands inside a JSON string: the value goes back JSON-escaped.
    init(restoring pairs: [(placeholder: String, value: String)], insideJSON: Bool = false) {
        var seen = Set<String>()
        var replacements: [(from: String, to: String)] = []
        for (placeholder, value) in pairs where !placeholder.isEmpty && placeholder != value {
            var spellings = Self.variants(of: value)
            if insideJSON, let escaped = spellings.last { spellings[0] = escaped }
            for (from, to) in zip(Self.variants(of: placeholder), spellings) where seen.insert(from).inserted {
                replacements.append((from, to))
            }
        }
        trie = Trie(replacements)
    }

    /// Whether there is nothing to replace.
    var isEmpty: Bool { trie.isEmpty }

    /// `request` with every occurrence replaced in each of its parts (``Interaction/Part``).
    func applied(to request: Interaction.Request) -> Interaction.Request {
        guard !isEmpty else { return request }
        var request = request
        request.changeParts(text: { apply($1) }, body: { applied(to: $1, contentType: $0.contentType) })
        return request
    }

    /// `interaction` with every occurrence replaced in each of its parts, WebSocket messages included.
    func applied(to interaction: Interaction) -> Interaction {
        guard !isEmpty else { return interaction }
        var interaction = interaction
        interaction.changeParts(text: { apply($1) }, body: { applied(to: $1, contentType: $0.contentType) })
        return interaction
    }

    /// `body` with every occurrence replaced; the same body when nothing occurs in it. Inside a
    /// Connect or gRPC-Web body's messages, so that their lengths stay true (``RPCBodyRewriting``).
    func applied(to body: Interaction.Body, contentType: String?) -> Interaction.Body {
        guard !isEmpty else { return body }
        if let rewritten = RPCBodyRewriting.rewritten(body.data, contentType: contentType, { apply($0) }) {
            return rewritten == body.data ? body : Interaction.Body(rewritten, contentType: contentType)
        }
        return apply(body.data).map { Interaction.Body($0, contentType: contentType) } ?? body
    }

    /// `text` with every occurrence replaced.
    func apply(_ text: String) -> String {
        guard !isEmpty else { return text }
        var text = text
        guard let replaced = text.withUTF8({ trie.replacing(in: $0) }) else { return text }
        return String(decoding: replaced, as: UTF8.self)
    }

    /// `data` with every occurrence replaced, or nil when nothing occurs in it.
    func apply(_ data: Data) -> Data? {
        guard !isEmpty else { return nil }
        return data.withUnsafeBytes { trie.replacing(in: $0.bindMemory(to: UInt8.self)) }.map { Data($0) }
    }

    /// The texts to replace as a trie of their UTF-8 bytes: `children` maps a node and a byte to
    /// the next node (the root is 0), `ending` says which replacement a node completes.
    private struct Trie {
        private var children: [Int: Int32] = [:]
        private var ending: [Int32] = [-1]
        private var replacements: [[UInt8]] = []
        /// The bytes some text starts with: every other byte is copied without a look-up.
        private var starts = [Bool](repeating: false, count: 256)

        /// The first pair of each `from` counts.
        init(_ pairs: [(from: String, to: String)]) {
            let bytes = pairs.reduce(0) { $0 + $1.from.utf8.count }
            children.reserveCapacity(bytes)
            ending.reserveCapacity(bytes + 1)
            for (from, to) in pairs {
                var node = 0
                for byte in from.utf8 {
                    let key = node << 8 | Int(byte)
                    if let next = children[key] {
                        node = Int(next)
                    } else {
                        children[key] = Int32(ending.count)
                        node = ending.count
                        ending.append(-1)
                    }
                }
                guard ending[node] < 0, let first = from.utf8.first else { continue }
                starts[Int(first)] = true
                ending[node] = Int32(replacements.count)
                replacements.append(Array(to.utf8))
            }
        }

        var isEmpty: Bool { replacements.isEmpty }

        /// `bytes` with, from left to right, the longest text that starts at each place replaced;
        /// nil when none occurs.
        func replacing(in bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
            var result: [UInt8] = []
            var copied = 0
            var index = 0
            while index < bytes.count {
                guard starts[Int(bytes[index])] else {
                    index += 1
                    continue
                }
                var node = 0
                var cursor = index
                var found: (replacement: Int, end: Int)?
                while cursor < bytes.count, let next = children[node << 8 | Int(bytes[cursor])] {
                    node = Int(next)
                    cursor += 1
                    if ending[node] >= 0 { found = (Int(ending[node]), cursor) }
                }
                guard let found else {
                    index += 1
                    continue
                }
                if result.isEmpty { result.reserveCapacity(bytes.count) }
                result.append(contentsOf: bytes[copied..<index])
                result.append(contentsOf: replacements[found.replacement])
                copied = found.end
                index = found.end
            }
            guard copied > 0 else { return nil }
            result.append(contentsOf: bytes[copied...])
            return result
        }
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    private static let alphanumerics = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// The spellings a secret takes in a message: as written; percent-encoded, with unreserved
    /// characters left alone or encoded too, in upper- or lower-case hex, a space as `%20` or
    /// `+`; and JSON-escaped.
    private static func variants(of secret: String) -> [String] {
        var variants = [secret]
        for allowed in [unreserved, alphanumerics] {
            guard let upper = secret.addingPercentEncoding(withAllowedCharacters: allowed) else { continue }
            let lower = lowercasingPercentEscapes(upper)
            for encoded in [upper, lower] {
                variants.append(encoded)
                variants.append(encoded.replacingOccurrences(of: "%20", with: "+"))
            }
        }
        var escaped = ""
        for scalar in secret.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "/": escaped += "\\/"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        variants.append(escaped)
        return variants
    }

    /// `%5F%2B` → `%5f%2b`: the two hex digits after each `%` in lower case.
    private static func lowercasingPercentEscapes(_ text: String) -> String {
        var out = ""
        var pending = 0
        for character in text {
            if character == "%" {
                pending = 2
                out.append(character)
            } else if pending > 0 {
                pending -= 1
                out.append(contentsOf: character.lowercased())
            } else {
                out.append(character)
            }
        }
        return out
    }
}
