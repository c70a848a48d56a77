import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response on its way to a client on the wire (``TapeServer``): the head, then the body as it
/// comes, framed by the recorded `Content-Length` or chunked, then the end.
///
/// The body is what a `URLSession` caller receives — decoded — so a recorded `Content-Encoding`
/// is left out, and so is a `Content-Length` that described the encoded body.
struct WireResponse {
    /// How the body is framed.
    enum Framing: Equatable {
        /// No body (HEAD, 1xx, 204, 304).
        case none
        /// By the recorded `Content-Length`, which the body keeps (or the connection closes short of it).
        case length
        /// Chunked: the body's length is not known from the head (none recorded, or it described the encoded body).
        case chunked
        /// HTTP/1.0 without a length: the body ends where the connection does.
        case untilClose
    }

    let status: Int
    let headers: Interaction.Headers
    let framing: Framing
    let keepsAlive: Bool

    /// A recorded response (a replay): its fields as recorded, repeated ones repeated.
    init(status: Int, headers: Interaction.Headers, for request: WireRequest) {
        self.status = status
        self.headers = headers
        keepsAlive = request.keepsAlive
        if request.method == "HEAD" || (100...199).contains(status) || status == 204 || status == 304 {
            framing = .none
        } else if !headers.contains("Content-Encoding"), let length = headers["Content-Length"], Int(length) != nil {
            framing = .length
        } else {
            framing = request.version == "HTTP/1.0" ? .untilClose : .chunked
        }
    }

    /// What a session received, fields in name order (`allHeaderFields` is a dictionary).
    init(_ head: HTTPURLResponse, for request: WireRequest) {
        let fields = head.allHeaderFields.compactMap { key, value -> (name: String, value: String)? in
            guard let name = key as? String, let text = value as? String else { return nil }
            return (name, text)
        }
        self.init(
            status: head.statusCode, headers: Interaction.Headers(fields.sorted { $0.name.lowercased() < $1.name.lowercased() }),
            for: request)
    }

    /// The status line and header fields, and the empty line after them.
    var headBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        bytes += "HTTP/1.1 \(status) \(ReasonPhrase.of(status))\r\n".utf8
        forEachField { name, value in
            bytes += name.utf8
            bytes.append(UInt8(ascii: ":"))
            bytes.append(UInt8(ascii: " "))
            bytes += value.utf8
            bytes.append(0x0D)
            bytes.append(0x0A)
        }
        if !keepsAlive || framing == .untilClose { bytes += "Connection: close\r\n".utf8 }
        bytes.append(0x0D)
        bytes.append(0x0A)
        return bytes
    }

    /// A piece of the body as it goes on the wire (a chunk, when chunked).
    func bodyBytes(_ data: Data) -> [UInt8] {
        guard framing != .none, !data.isEmpty else { return [] }
        if framing == .chunked {
            return Array(String(data.count, radix: 16).utf8) + [0x0D, 0x0A] + Array(data) + [0x0D, 0x0A]
        }
        return Array(data)
    }

    /// What ends a successful body on the wire (the last chunk, when chunked).
    var endBytes: [UInt8] { framing == .chunked ? Array("0\r\n\r\n".utf8) : [] }

    /// How many body bytes complete this response for a client reading it: once they are on the
    /// wire, it has the whole response (0: the head alone). Nil when the end is a signal of its own
    /// (the last chunk, or the connection closing).
    var completingLength: Int? {
        switch framing {
        case .none: 0
        case .length: Int(headers["Content-Length"] ?? "0")
        case .chunked, .untilClose: nil
        }
    }

    /// Whether the connection can serve another request after a successful end.
    var keepsConnection: Bool { keepsAlive && framing != .untilClose }

    /// Hands `write` each field as it goes on the wire, in order (not collected: every response's
    /// head is written so): connection fields and `Content-Encoding` left out, `Content-Length`
    /// only when it frames the body (or describes it, for a response without one), and `Set-Cookie`
    /// one field per cookie (`HTTPURLResponse`, and so a recording, joins them).
    func forEachField(_ write: (_ name: String, _ value: String) -> Void) {
        for field in headers.fields {
            // Names compared by ASCII bytes, as `Interaction.Headers` compares them: lower-casing
            // every name of every response cost more than writing it.
            if Self.skipped.contains(where: { asciiCaseInsensitiveEquals($0, field.name) }) { continue }
            let setsCookies = asciiCaseInsensitiveEquals(field.name, "set-cookie")
            for value in field.values {
                if setsCookies {
                    for cookie in Self.splitCookies(value) { write(field.name, cookie) }
                } else {
                    write(field.name, value)
                }
            }
        }
        switch framing {
        case .length: write("Content-Length", headers["Content-Length"] ?? "0")
        case .chunked: write("Transfer-Encoding", "chunked")
        case .none:
            if let length = headers["Content-Length"], !headers.contains("Content-Encoding") { write("Content-Length", length) }
        case .untilClose: break
        }
    }

    /// The recorded fields a response on the wire leaves out (or frames anew), lower-cased.
    private static let skipped = ["connection", "keep-alive", "transfer-encoding", "content-encoding", "content-length"]

    /// `a=1; Path=/, b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT` → the two cookies: a comma
    /// starts a new cookie only when `name=` follows it.
    static func splitCookies(_ joined: String) -> [String] {
        var cookies: [String] = []
        var current = ""
        for piece in joined.components(separatedBy: ", ") {
            let startsCookie = piece.range(of: #"^[^=;,\s]+="#, options: .regularExpression) != nil
            if current.isEmpty {
                current = piece
            } else if startsCookie {
                cookies.append(current)
                current = piece
            } else {
                current += ", " + piece
            }
        }
        if !current.isEmpty { cookies.append(current) }
        return cookies
    }
}
