import Foundation

/// The time claims of a JSON Web Token (RFC 7519: `exp`, `iat`, `nbf`, seconds since 1970),
/// moved. The token is re-encoded with its header and signature as they were: the signature no
/// longer matches the payload.
enum JWTClaims {
    /// `token` with `claims` moved by `seconds`, and the claims that moved; nil when `token` is not
    /// a JWT (three base64url parts, a JSON header naming `alg`, a JSON object payload) or holds
    /// none of `claims` as a number.
    static func moved(_ token: String, by seconds: TimeInterval, claims: Set<String>) -> (token: String, claims: [String])? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].hasPrefix("eyJ"), parts[1].hasPrefix("eyJ"),
            let header = decode(parts[0]), (try? JSONParser.parse(header))?.memberValue("alg") != nil,
            let payload = decode(parts[1]), let root = try? JSONParser.parse(payload), case .object(let members) = root.value
        else { return nil }
        var bytes = [UInt8](payload)
        var moved: [String] = []
        // From the last member back, so that earlier offsets stay right.
        for member in members.reversed() where claims.contains(member.key) {
            guard case .number(let literal) = member.value.value, member.value.offset >= 0,
                let text = JSONToken.movedEpoch(literal, by: seconds)
            else { continue }
            let start = member.value.offset
            bytes.replaceSubrange(start..<(start + literal.utf8.count), with: Array(text.utf8))
            moved.insert(member.key, at: 0)
        }
        guard !moved.isEmpty else { return nil }
        return ("\(parts[0]).\(encode(Data(bytes))).\(parts[2])", moved)
    }

    private static func decode(_ part: Substring) -> Data? {
        guard part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    private static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
