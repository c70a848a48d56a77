import Foundation

/// Redacts the value of one header field while keeping what a reader of the cassette needs: the
/// scheme of `Authorization`, the cookie names of `Cookie`, the names and attributes of
/// `Set-Cookie`. Every removed value is handed back as a secret, so it can be removed wherever
/// else it appears.
enum CredentialFields {
    /// `value` of the field `name` with its secret parts replaced by `replacement`, and those parts.
    static func redact(_ value: String, ofField name: String, replacement: String) -> (value: String, secrets: [String]) {
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            return credentials(value, replacement: replacement)
        case "cookie":
            return cookies(value, replacement: replacement)
        case "set-cookie":
            return setCookies(value, replacement: replacement)
        default:
            return value == replacement || value.isEmpty ? (value, []) : (replacement, [value])
        }
    }

    /// `Bearer abc` → `Bearer [REDACTED]`; for `Basic`, the decoded `user:password` and the
    /// password are secrets too (servers echo them).
    private static func credentials(_ value: String, replacement: String) -> (value: String, secrets: [String]) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " "), isToken(trimmed[..<space]) else {
            return trimmed.isEmpty || trimmed == replacement ? (value, []) : (replacement, [trimmed])
        }
        let scheme = trimmed[..<space]
        let token = trimmed[space...].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token != replacement else { return (value, []) }
        var secrets = [token]
        if scheme.lowercased() == "basic", let decoded = Data(base64Encoded: token).flatMap({ String(data: $0, encoding: .utf8) }) {
            secrets.append(decoded)
            if let colon = decoded.firstIndex(of: ":") { secrets.append(String(decoded[decoded.index(after: colon)...])) }
        }
        return ("\(scheme) \(replacement)", secrets)
    }

    /// `a=1; b=2` → `a=[REDACTED]; b=[REDACTED]`.
    private static func cookies(_ value: String, replacement: String) -> (value: String, secrets: [String]) {
        var secrets: [String] = []
        let pairs = value.split(separator: ";", omittingEmptySubsequences: true).map { part -> String in
            let pair = part.trimmingCharacters(in: .whitespaces)
            guard let equals = pair.firstIndex(of: "=") else { return pair }
            let cookieValue = String(pair[pair.index(after: equals)...])
            if !cookieValue.isEmpty, cookieValue != replacement { secrets.append(cookieValue) }
            return pair[...equals] + replacement
        }
        return (pairs.joined(separator: "; "), secrets)
    }

    /// `id=1; Path=/, theme=dark; Expires=Wed, 21 Oct 2026 07:28:00 GMT` (several cookies joined
    /// with ", ", as FoundationNetworking delivers them) → each cookie's value replaced, the
    /// attributes kept. A piece after ", " starts a cookie when it begins with `name=`.
    private static func setCookies(_ value: String, replacement: String) -> (value: String, secrets: [String]) {
        var secrets: [String] = []
        let pieces = value.components(separatedBy: ", ").map { piece -> String in
            let pair = piece.prefix { $0 != ";" }
            guard let equals = pair.firstIndex(of: "="), isToken(pair[..<equals].trimmingCharacters(in: .whitespaces)[...])
            else { return piece }
            let cookieValue = String(pair[pair.index(after: equals)...])
            if cookieValue.isEmpty || cookieValue == replacement { return piece }
            secrets.append(cookieValue)
            return piece[...equals] + replacement + piece[pair.endIndex...]
        }
        return (pieces.joined(separator: ", "), secrets)
    }

    /// An HTTP token: letters, digits and ``!#$%&'*+-.^_`|~``, at least one.
    private static func isToken(_ text: Substring) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
            }
    }
}
