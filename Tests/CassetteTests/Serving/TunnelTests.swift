import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// `CONNECT` tunnels: a client that always tunnels through its HTTP proxy (AsyncHTTPClient with
/// `proxy: .server(…)`, Java's HttpClient) has each request inside recorded, replayed and refused
/// exactly as the same request in proxy form — shown with a raw socket client (what such a client
/// sends, byte for byte) and with `curl --proxytunnel`. TLS inside is refused, saying why.
@Suite(.timingIsolated) struct TunnelTests {
    /// What one client sends on one kept-alive connection: in proxy form (`GET http://…`), or in a
    /// tunnel (`CONNECT host:port`, then `GET /…`).
    static func exchange(
        _ requests: [(method: String, path: String, body: String)], port: Int, upstream: Int, tunnel: Bool
    ) throws -> [String] {
        let client = try RawHTTP(port: port)
        if tunnel {
            // As AsyncHTTPClient opens its tunnel (HTTP1ProxyConnectHandler): the target, a `host`
            // field without the port, no body; any 2xx without a body opens it.
            client.send("CONNECT 127.0.0.1:\(upstream) HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
            let opened = try #require(client.receiveResponse(bodiless: true))
            #expect(opened.head == "HTTP/1.1 200 Connection Established")
        }
        return try requests.map { method, path, body in
            let target = tunnel ? path : "http://127.0.0.1:\(upstream)" + path
            let length = body.isEmpty ? "" : "Content-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
            client.send("\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(upstream)\r\nAccept: */*\r\n\(length)\r\n\(body)")
            let response = try #require(client.receiveResponse(bodiless: method == "HEAD"), "\(method) \(path)")
            return response.head + "\r\n\r\n" + String(decoding: response.body, as: UTF8.self)
        }
    }

    static let requests: [(method: String, path: String, body: String)] = [
        ("GET", "/echo?x=1", ""), ("POST", "/echo", "pen"), ("GET", "/bytes/300", ""), ("HEAD", "/bytes/2048", ""),
        ("GET", "/chunked/3", ""), ("GET", "/status/404", ""),
    ]

    @Test func aTunnelledRequestIsRecordedReplayedAndMissedAsItsProxyFormIs() throws {
        try withScratchTape { scratch in
            let upstream = scratch.server
            let upstreamURL = URL(string: upstream.baseURL)

            // Recorded: the same requests in proxy form and in a tunnel, each into a cassette of its own.
            var answers: [Bool: [String]] = [:]
            var files: [Bool: URL] = [:]
            for tunnel in [false, true] {
                let file = scratch.file(tunnel ? "tunnel.json" : "proxy.json")
                let tape = try Tape(file: file, mode: .all, environment: .tests)
                let server = try TapeServer(tape: tape, options: .init(upstream: upstreamURL))
                answers[tunnel] = try Self.exchange(Self.requests, port: server.port, upstream: upstream.port, tunnel: tunnel)
                #expect(tape.reportSoFar.recorded == Self.requests.count)
                try tape.eject()
                files[tunnel] = file
            }
            #expect(answers[true] == answers[false])
            #expect(answers[true]?.first?.contains(#""method":"GET","path":"\/echo","query":"x=1""#) == true, "\(answers[true] ?? [])")
            let proxied = try CassetteFile.read(try #require(files[false])).interactions
            let tunnelled = try CassetteFile.read(try #require(files[true])).interactions
            #expect(tunnelled.map(\.request) == proxied.map(\.request))
            #expect(tunnelled.map(\.request.url).first == "\(upstream.baseURL)/echo?x=1")
            #expect(tunnelled.map { $0.response?.status } == proxied.map { $0.response?.status })
            #expect(tunnelled.map { $0.response?.body } == proxied.map { $0.response?.body })

            // Replayed offline, through a tunnel: the recorded answers; and a request the cassette
            // has no recording for is the same miss, with the same report, in a tunnel and in proxy form.
            upstream.stop()
            let replaying = try Tape(file: try #require(files[true]), mode: .none, environment: .tests)
            let server = try TapeServer(tape: replaying)
            let unrecorded = [(method: "GET", path: "/never", body: "")]
            let replayed = try Self.exchange(Self.requests + unrecorded, port: server.port, upstream: upstream.port, tunnel: true)
            #expect(Array(replayed.prefix(Self.requests.count)) == answers[true])
            let miss = try #require(replayed.last)
            #expect(miss.hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"), "\(miss)")
            #expect(miss.contains("\r\nX-Cassette-Unmatched: true\r\n"))
            #expect(miss.contains("GET \(upstream.baseURL)/never"), "\(miss)")
            let proxyMiss = try Self.exchange(unrecorded, port: server.port, upstream: upstream.port, tunnel: false)
            #expect(proxyMiss == [miss])
            #expect(try replaying.eject().unmatched.count == 2)
        }
    }

    /// A tape on an empty cassette, replaying only.
    static func emptyTape(_ scratch: ScratchTape) throws -> Tape {
        try JSONCassetteCodec.encode(CassetteDocument(interactions: [])).write(to: scratch.file)
        return try scratch.tape(mode: .none)
    }

    @Test func aTunnelToAPortThatSpeaksTLSIsRefusedSayingWhy() throws {
        try withScratchTape { scratch in
            let tape = try Self.emptyTape(scratch)
            let server = try TapeServer(tape: tape)

            // Port 443: refused before the tunnel opens, in words.
            let client = try RawHTTP(port: server.port)
            client.send("CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n")
            let refused = client.receiveUntilClosed()
            let reason = TapeServer.tunnelRefusal(
                try #require(TunnelTarget(authority: "api.example.com:443")), ownOrigin: "\(server.baseURL)")
            let body = "501 Not Implemented: \(reason)\n"
            #expect(
                String(decoding: refused.data, as: UTF8.self)
                    == "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n\(body)")
            #expect(refused.closed)
            #expect(
                reason
                    == "a CONNECT tunnel to api.example.com:443 carries TLS, which this server cannot read (Cassette has no TLS of its "
                    + "own, having no dependencies), so nothing inside could be recorded or replayed; answered with 501. Point the "
                    + "client at the server itself instead (\(server.baseURL) + the path, with the service as the upstream: cassette "
                    + "serve --upstream https://api.example.com:443), or give the client an http:// URL in tests")

            // Another port: the tunnel opens, the client starts TLS, and gets a handshake_failure alert.
            let tls = try RawHTTP(port: server.port)
            tls.send("CONNECT 127.0.0.1:8443 HTTP/1.1\r\nHost: 127.0.0.1:8443\r\n\r\n")
            tls.send(Data([0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x01, 0x03]))  // a ClientHello's first bytes
            let alerted = tls.receiveUntilClosed()
            #expect(
                alerted.data == Data("HTTP/1.1 200 Connection Established\r\n\r\n".utf8) + Data([0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x28]))
            #expect(alerted.closed)

            let warnings = try tape.eject().warnings
            #expect(warnings.contains(reason))
            #expect(
                warnings.contains(
                    TapeServer.tunnelRefusal(
                        try #require(TunnelTarget(authority: "127.0.0.1:8443")), ownOrigin: "\(server.baseURL)",
                        answered: "a TLS handshake_failure alert")))
        }
    }

    /// A cassette recorded from `https://127.0.0.1:8443` says that port speaks TLS: refused at once.
    @Test func aTunnelToAnOriginTheCassetteRecordedOverHTTPSIsRefused() throws {
        try withScratchTape { scratch in
            try JSONCassetteCodec.encode(
                CassetteDocument(interactions: [
                    Interaction(request: .init(url: "https://127.0.0.1:8443/users"), response: .init(status: 200, body: .init(text: "[]")))
                ])
            ).write(to: scratch.file)
            let tape = try scratch.tape(mode: .none)
            let server = try TapeServer(tape: tape)
            let client = try RawHTTP(port: server.port)
            client.send("CONNECT 127.0.0.1:8443 HTTP/1.1\r\n\r\n")
            let refused = String(decoding: client.receiveUntilClosed().data, as: UTF8.self)
            #expect(refused.hasPrefix("HTTP/1.1 501 Not Implemented\r\n"))
            #expect(refused.contains("a CONNECT tunnel to 127.0.0.1:8443 carries TLS"))
        }
    }

    /// A tunnel to the server itself: a request inside would go round to it, and is answered
    /// `502` with the one message a proxy-form request for it gets.
    @Test func aTunnelBackToTheServerIsAnsweredAsItsProxyFormIs() throws {
        try withScratchTape { scratch in
            let tape = try scratch.tape(mode: .once)
            let server = try tape.serve(.init(upstream: URL(string: scratch.server.baseURL)))
            let loop = [(method: "GET", path: "/loop", body: "")]
            let client = try RawHTTP(port: server.port)
            client.send("CONNECT 127.0.0.1:\(server.port) HTTP/1.1\r\n\r\n")
            #expect(client.receiveResponse(bodiless: true)?.head == "HTTP/1.1 200 Connection Established")
            client.send("GET /loop HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
            let tunnelled = String(decoding: client.receiveUntilClosed().data, as: UTF8.self)
            let proxied = try Self.exchange(loop, port: server.port, upstream: server.port, tunnel: false)
            let reason = TapeServer.selfReference("http://127.0.0.1:\(server.port)/loop", ownOrigin: "\(server.baseURL)")
            #expect(tunnelled.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"), "\(tunnelled)")
            #expect(tunnelled.hasSuffix("\r\n\r\n502 Bad Gateway: \(reason)\n"), "\(tunnelled)")
            #expect(proxied == [tunnelled])
            #expect(try tape.eject().recorded == 0)
            #expect(scratch.server.received.isEmpty)
        }
    }

    @Test(arguments: [
        ("CONNECT /users HTTP/1.1", #"CONNECT needs a target "host:port" (like "api.example.com:80"), found "/users""#),
        ("CONNECT api.example.com HTTP/1.1", #"CONNECT needs a target "host:port" (like "api.example.com:80"), found "api.example.com""#),
        ("CONNECT [::1:8080 HTTP/1.1", #"CONNECT needs a target "host:port" (like "api.example.com:80"), found "[::1:8080""#),
        ("CONNECT a.example:99999 HTTP/1.1", #"CONNECT needs a target "host:port" (like "api.example.com:80"), found "a.example:99999""#),
    ])
    func aConnectWithoutHostAndPortIsABadRequest(line: String, reason: String) throws {
        try withScratchTape { scratch in
            let server = try TapeServer(tape: try Self.emptyTape(scratch))
            let client = try RawHTTP(port: server.port)
            client.send(line + "\r\n\r\n")
            let answer = String(decoding: client.receiveUntilClosed().data, as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(answer)")
            #expect(answer.hasSuffix("\r\n\r\n400 Bad Request: \(reason)\n"), "\(answer)")
        }
    }

    @Test func targetsAreReadAsRFC3986Authorities() {
        #expect(TunnelTarget(authority: "API.example.com:80")?.origin == "http://api.example.com")
        #expect(TunnelTarget(authority: "127.0.0.1:8080")?.origin == "http://127.0.0.1:8080")
        #expect(TunnelTarget(authority: "[::1]:8080")?.origin == "http://[::1]:8080")
        #expect(TunnelTarget(authority: "[::1]:8080")?.authority == "[::1]:8080")
        #expect(TunnelTarget(authority: "a b:80") == nil)
        #expect(TunnelTarget(authority: "a/b:80") == nil)
        #expect(TunnelTarget(authority: ":80") == nil)
        #expect(TunnelTarget(authority: "a:0") == nil)
        #expect(TunnelTarget(authority: "127.0.0.1:8443")?.isTLSOrigin("https://127.0.0.1:8443") == true)
        #expect(TunnelTarget(authority: "api.example.com:443")?.isTLSOrigin("https://API.example.com") == true)
        #expect(TunnelTarget(authority: "api.example.com:8443")?.isTLSOrigin("https://api.example.com") == false)
        #expect(TunnelTarget(authority: "127.0.0.1:8443")?.isTLSOrigin("http://127.0.0.1:8443") == false)
    }

    #if os(Linux) || os(macOS)  // starts a process
    /// curl as a client that tunnels (`--proxytunnel`): what it gets recorded and replayed is what
    /// it gets from the upstream; an `https://` URL gets the refusal, and curl says so.
    @Test func curlThroughATunnelRecordsAndReplays() throws {
        try withScratchTape { scratch in
            let url = scratch.url("/bytes/100")
            let direct = TapeServerTests.curl(["-i", url])
            try #require(direct.status == 0, "curl: \(direct.err)")

            let recording = try scratch.tape(mode: .all)
            let recorder = try TapeServer(tape: recording, options: .init(upstream: URL(string: scratch.server.baseURL)))
            let recorded = TapeServerTests.curl(["-i", "--proxytunnel", "-x", recorder.baseURL.absoluteString, url])
            #expect(recorded.status == 0, "\(recorded.err)")
            #expect(try recording.eject().recorded == 1)

            scratch.server.stop()
            let replaying = try scratch.tape(mode: .none)
            let player = try TapeServer(tape: replaying)
            let replayed = TapeServerTests.curl(["-i", "--proxytunnel", "-x", player.baseURL.absoluteString, url])
            #expect(replayed.status == 0, "\(replayed.err)")
            let body = Data((0..<100).map { UInt8($0 % 251) })
            #expect(replayed.out == recorded.out)
            #expect(replayed.out.suffix(100) == body)
            #expect(
                String(decoding: replayed.out.prefix(60), as: UTF8.self).hasPrefix(
                    "HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200 OK"))

            let https = TapeServerTests.curl(["-S", "-x", player.baseURL.absoluteString, "https://api.example.com/users"])
            // curl reports a refused CONNECT as error 56 (curl 7.88, Debian 12) or 7 (curl 8.23, Debian
            // sid); each names the server's 501.
            #expect([7, 56].contains(https.status), "\(https.err)")
            #expect(https.err.contains("CONNECT tunnel failed, response 501"), "\(https.err)")
        }
    }
    #endif
}
