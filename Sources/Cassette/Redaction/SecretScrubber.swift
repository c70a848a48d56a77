import Foundation

/// Replaces every occurrence of some texts with others, in strings and in bytes — the secrets of
/// an interaction with `[REDACTED]`, or placeholders with their secrets.
///
/// Each secret is searched for as written, percent-encoded (as in a URL or form body) and
/// JSON-escaped (as in a JSON body), longest first, so that a secret containing another is
/// replaced whole.
struct SecretScrubber {
    private let replacements: [(from: String, to: String)]

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
        self.replacements = replacements.sorted { $0.from.utf8.count > $1.from.utf8.count }
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
        self.replacements = replacements.sorted { $0.from.utf8.count > $1.from.utf8.count }
    }

    /// Whether there is nothing to replace.
    var isEmpty: Bool { replacements.isEmpty }

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

    /// `body` with every occurrence replaced; the same body when nothing occurs in it.
    func applied(to body: Interaction.Body, contentType: String?) -> Interaction.Body {
        apply(body.data).map { Interaction.Body($0, contentType: contentType) } ?? body
    }

    /// `text` with every occurrence replaced.
    func apply(_ text: String) -> String {
        var text = text
        for (from, to) in replacements where text.contains(from) {
            text = text.replacingOccurrences(of: from, with: to)
        }
        return text
    }

    /// `data` with every occurrence replaced, or nil when nothing occurs in it.
    func apply(_ data: Data) -> Data? {
        var result = data
        var changed = false
        for (from, to) in replacements {
            if let replaced = Self.replacing(Data(from.utf8), with: Data(to.utf8), in: result) {
                result = replaced
                changed = true
            }
        }
        return changed ? result : nil
    }

    private static func replacing(_ target: Data, with replacement: Data, in data: Data) -> Data? {
        guard var found = data.range(of: target) else { return nil }
        var result = Data()
        result.reserveCapacity(data.count)
        var cursor = data.startIndex
        while true {
            result.append(data[cursor..<found.lowerBound])
            result.append(replacement)
            cursor = found.upperBound
            guard let next = data.range(of: target, in: cursor..<data.endIndex) else { break }
            found = next
        }
        result.append(data[cursor..<data.endIndex])
        return result
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
