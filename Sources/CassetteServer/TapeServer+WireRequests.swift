import Cassette
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A request off the wire as a session would send and capture it: what the router decides on,
/// what stubs' conditions read, and what `LiveRecording` sends upstream.
extension TapeServer {
    /// Where `wire` goes: `upstream` (or the cassette's origin) + its path, or its absolute target.
    func url(for wire: WireRequest, origin: String) -> URL? {
        URL(string: wire.target.hasPrefix("/") ? origin + wire.target : wire.target)
    }

    /// The request `wire` stands for, as a session would send it: what stubs' conditions read, and
    /// what `LiveRecording` sends upstream.
    static func urlRequest(for wire: WireRequest, url: URL) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = wire.method
        for (name, value) in wire.headers where !hopByHop.contains(name.lowercased()) {
            request.addValue(value, forHTTPHeaderField: name)
        }
        if !wire.body.isEmpty { request.httpBody = wire.body }
        return request
    }

    /// `wire` as a session would capture ``urlRequest(for:url:)`` (`Interaction.Request.capturing(_:)`),
    /// without building it: repeated fields joined with `,` as `URLRequest.addValue` joins them.
    static func captured(_ wire: WireRequest, url: URL) -> Interaction.Request {
        var joined: [(name: String, value: String)] = []
        for (name, value) in wire.headers where !hopByHop.contains(name.lowercased()) {
            if let index = joined.firstIndex(where: { asciiCaseInsensitiveEquals($0.name, name) }) {
                joined[index].value += "," + value
            } else {
                joined.append((name, value))
            }
        }
        var headers = Interaction.Headers()
        for field in joined.sorted(by: { $0.name.lowercased() < $1.name.lowercased() }) { headers.add(field.name, field.value) }
        return Interaction.Request(
            method: wire.method, url: url.absoluteString, headers: headers,
            body: wire.body.isEmpty ? .empty : Interaction.Body(unchecked: wire.body, form: .base64))
    }

    /// Fields that belong to one connection, not to the request (RFC 9110 §7.6.1), and those the
    /// forwarding session sets itself.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "expect", "host", "content-length",
        "proxy-authorization",
    ]
}
