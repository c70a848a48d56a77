import Foundation

/// The request message of a Connect GET (connectrpc.com/docs/protocol, "Unary-Get-Request"):
/// an idempotent unary call sends its message in the query, not the body —
/// `?encoding=proto&base64=1&message=CgNhZGE&connect=v1`.
///
/// Matching and the miss report read the message from there as they read a `POST`'s body: the
/// `message` and `base64` parameters leave the URL's comparison, and the decoded message is
/// compared in their place, by its fields (`encoding=proto`) or by meaning (`encoding=json`). So
/// the same message written with or without base64 padding, or in the other base64 alphabet,
/// matches, and a miss names the fields that differ. `encoding`, `compression` and `connect`
/// stay in the URL's comparison.
struct ConnectGetMessage {
    /// The query parameters that carry the message, compared as the message instead.
    static let carriers: Set<String> = ["message", "base64"]

    /// The message, read as a body of its encoding.
    var content: BodyContent

    /// The message of `request` when it is a Connect GET with `encoding` `proto` or `json` and a
    /// `message` that decodes; nil for any other request.
    init?(_ request: Interaction.Request) {
        // Most requests are not Connect GETs: decide before parsing anything, by bytes (Foundation's
        // `String.contains` costs 10,000 instructions a call on Linux, more than matching itself).
        guard request.method.utf8.elementsEqual("GET".utf8) || request.method.uppercased() == "GET",
            Self.hasMessageParameter(request.url)
        else { return nil }
        self.init(query: URLParts(request.url).query)
    }

    /// The message carried by `query` (fields percent-decoded), or nil.
    init?(query: [FormFields.Field]) {
        func value(_ name: String) -> String? { query.last { $0.name == name }?.value }
        guard let message = value("message"), let encoding = value("encoding") else { return nil }
        let data: Data
        if value("base64") == "1" {
            guard let decoded = Self.base64Decoded(message) else { return nil }
            data = decoded
        } else {
            data = Data(message.utf8)
        }
        if let compression = value("compression"), compression != "identity" {
            content = .bytes(data)
            return
        }
        switch encoding {
        case "proto": content = BodyContent(data, contentType: "application/proto")
        case "json": content = BodyContent(data, contentType: "application/json")
        default: return nil
        }
    }

    /// Whether `url`'s query has a parameter named `message`: its name after `?` or `&`.
    static func hasMessageParameter(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            let name = Array("message=".utf8)
            guard bytes.count > name.count else { return false }
            var inQuery = false
            for index in 0..<(bytes.count - name.count) {
                let byte = bytes[index]
                if byte == UInt8(ascii: "#") { return false }
                if byte == UInt8(ascii: "?") { inQuery = true }
                guard inQuery, byte == UInt8(ascii: "?") || byte == UInt8(ascii: "&") else { continue }
                if (0..<name.count).allSatisfy({ bytes[index + 1 + $0] == name[$0] }) { return true }
            }
            return false
        }
    }

    /// Base64 in either alphabet (`+/` or the URL's `-_`), with or without `=` padding, as the
    /// protocol allows.
    static func base64Decoded(_ text: String) -> Data? {
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while standard.hasSuffix("=") { standard.removeLast() }
        guard standard.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
