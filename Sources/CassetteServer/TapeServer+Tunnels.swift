import Cassette
import Foundation

/// Where a `CONNECT` asks to go (RFC 9110 §9.3.6): `host:port`, an IPv6 address in brackets.
struct TunnelTarget: Equatable {
    /// The host as written, lower-cased, without brackets.
    var host: String
    var port: Int

    /// `host:port` as a `CONNECT` names it; nil when it is not one.
    init?(authority: String) {
        guard let colon = authority.lastIndex(of: ":") else { return nil }
        var host = String(authority[..<colon])
        let portText = authority[authority.index(after: colon)...]
        guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let port = Int(portText), (1...65_535).contains(port)
        else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
            guard host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            // A registered name or IPv4 address (RFC 3986 §3.2.2): no colon, slash, space or other delimiter.
            guard !host.isEmpty,
                host.unicodeScalars.allSatisfy({
                    $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._~".unicodeScalars.contains($0))
                })
            else { return nil }
        }
        self.host = host.lowercased()
        self.port = port
    }

    /// How a `CONNECT` whose target is not `host:port` is answered.
    static func refusal(of target: String) -> WireRequest.Refusal {
        .init(status: 400, reason: "CONNECT needs a target \"host:port\" (like \"api.example.com:80\"), found \"\(target.prefix(60))\"")
    }

    /// The origin a request inside the tunnel is for, as the client would write it in proxy form:
    /// `http://api.example.com:8080`, without the port when it is 80.
    var origin: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? "http://\(name)" : "http://\(name):\(port)"
    }

    /// `host:port` as a message shows it.
    var authority: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether `origin` (`https://api.example.com`, as a cassette records it) is this host and port over TLS.
    func isTLSOrigin(_ origin: String) -> Bool {
        guard let url = URL(string: origin), url.scheme?.lowercased() == "https" || url.scheme?.lowercased() == "wss",
            let host = url.host?.lowercased()
        else { return false }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare == self.host && (url.port ?? 443) == port
    }
}

// `CONNECT` tunnels: how a client that always tunnels through an HTTP proxy (AsyncHTTPClient,
// Java's HttpClient, many SDKs behind a corporate proxy) uses the server as its proxy for
// `http://` URLs. Each request inside is the request a proxy-form one would be, decided and
// answered the same way; TLS inside cannot be read, and is refused as clearly as it can be.
extension TapeServer {
    /// Opens the tunnel `connect` asks for on `connection`, then serves the requests inside it
    /// until the connection ends. One to a port that speaks TLS is refused instead: with `501` and
    /// why, when the target says so before the tunnel opens (port 443, or an `https` origin of the
    /// cassette or the upstream); with a TLS alert when the client starts TLS inside it. Either way
    /// the tape's report says why, once.
    func tunnel(_ connect: WireRequest, on connection: ServerConnection) {
        guard let target = TunnelTarget(authority: connect.target) else {
            return writeRefusal(TunnelTarget.refusal(of: connect.target), to: connection)
        }
        let stage = stage.withLock { $0 }
        let tlsOrigins =
            (stage.map { Array($0.tape.router.recordedOrigins) + [$0.origin] } ?? []) + [options.upstream?.absoluteString ?? ""]
        if target.port == 443 || tlsOrigins.contains(where: target.isTLSOrigin) {
            let reason = Self.tunnelRefusal(target, ownOrigin: ownOrigin)
            stage?.tape.router.access.warnOnce(reason)
            return writeRefusal(.init(status: 501, reason: reason), to: connection)
        }
        guard connection.write(Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8)) else { return }
        // What the client speaks inside: a TLS handshake record starts with 0x16; a request, with a method.
        let deadline = Date(timeIntervalSinceNow: options.limits.idleTimeout)
        while connection.pending.isEmpty {
            guard connection.readMore(until: deadline) == .data else { return }
        }
        if connection.pending.first == Self.tlsHandshakeRecord {
            stage?.tape.router.access.warnOnce(Self.tunnelRefusal(target, ownOrigin: ownOrigin, answered: "a TLS handshake_failure alert"))
            connection.write(Self.tlsHandshakeFailureAlert)
            return
        }
        serve(connection, tunnel: target)
    }

    /// The first byte of a TLS record that carries a handshake (a `ClientHello`).
    static let tlsHandshakeRecord: UInt8 = 0x16
    /// A fatal `handshake_failure` alert record (RFC 8446 §6): how a client that started TLS learns
    /// the other end will not speak it.
    static let tlsHandshakeFailureAlert: [UInt8] = [0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x28]

    /// The one message for a tunnel that would carry TLS: what was asked, why not, and what to do.
    static func tunnelRefusal(_ target: TunnelTarget, ownOrigin: String, answered: String = "501") -> String {
        "a CONNECT tunnel to \(target.authority) carries TLS, which this server cannot read (Cassette has no TLS of its own, "
            + "having no dependencies), so nothing inside could be recorded or replayed; answered with \(answered). Point the "
            + "client at the server itself instead (\(ownOrigin) + the path, with the service as the upstream: cassette serve "
            + "--upstream https://\(target.authority)), or give the client an http:// URL in tests"
    }
}
