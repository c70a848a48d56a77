import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the loopback server sends back.
struct Reply {
    enum Body {
        case whole(Data)
        case chunked([Data])
        /// `count` bytes of ``Reply/patterned(_:from:)``, made and written a piece at a time: the
        /// memory tests measure the process that serves 20 MB bodies, and a body held whole
        /// would be freed at a moment that depends on how much the sockets buffered.
        case patterned(count: Int)
        /// Promise `declared` bytes in `Content-Length`, send `sent`, then close.
        case truncated(declared: Int, sent: Data)
        /// Close the connection without answering.
        case drop
        /// A chunked body whose last chunk is sent and then the connection closed, without the
        /// chunk that ends the body: a stream cut short.
        case chunkedThenCut([Data])
    }

    var status: Int
    var headers: [(String, String)]
    var body: Body
    var delay: TimeInterval = 0
    /// For a chunked body: the pause before each chunk after the first.
    var chunkDelay: TimeInterval = 0

    /// Writes the reply; `false` when the connection must close. The answer to a `HEAD` (`headOnly`)
    /// is the head a `GET` would get, its `Content-Length` included, and no body (RFC 9110 §9.3.2).
    func send(on socket: Int32, headOnly: Bool = false) -> Bool {
        if delay > 0, !Self.pause(delay, on: socket) { return false }
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if headOnly {
            switch body {
            case .drop: return false
            case .whole(let data): head += "Content-Length: \(data.count)\r\n\r\n"
            case .patterned(let count): head += "Content-Length: \(count)\r\n\r\n"
            case .truncated(let declared, _): head += "Content-Length: \(declared)\r\n\r\n"
            case .chunked, .chunkedThenCut: head += "Transfer-Encoding: chunked\r\n\r\n"
            }
            return write(Data(head.utf8), to: socket)
        }
        switch body {
        case .drop:
            return false
        case .whole(let data):
            head += "Content-Length: \(data.count)\r\n\r\n"
            return write(Data(head.utf8) + data, to: socket)
        case .patterned(let count):
            head += "Content-Length: \(count)\r\n\r\n"
            guard write(Data(head.utf8), to: socket) else { return false }
            let piece = 1 << 16
            for start in stride(from: 0, to: count, by: piece) {
                guard write(Self.patterned(min(piece, count - start), from: start), to: socket) else { return false }
            }
            return true
        case .truncated(let declared, let sent):
            head += "Content-Length: \(declared)\r\n\r\n"
            _ = write(Data(head.utf8) + sent, to: socket)
            return false
        case .chunked(let chunks), .chunkedThenCut(let chunks):
            head += "Transfer-Encoding: chunked\r\n\r\n"
            guard write(Data(head.utf8), to: socket) else { return false }
            for (index, chunk) in chunks.enumerated() {
                if index > 0, chunkDelay > 0, !Self.pause(chunkDelay, on: socket) { return false }
                guard write(Data(String(chunk.count, radix: 16).utf8) + Data("\r\n".utf8) + chunk + Data("\r\n".utf8), to: socket) else {
                    return false
                }
            }
            if case .chunkedThenCut = body { return false }
            return write(Data("0\r\n\r\n".utf8), to: socket)
        }
    }

    /// Waits `seconds` before the next write, or less when the client hangs up or the server stops
    /// (both shut the connection): `false` then, and the reply is abandoned. A thread that slept
    /// on for a client long gone (a timeout test's 12-second delay) would still hold its reply
    /// when the test process exits, and LeakSanitizer cannot see the `Data` inside a reply (Swift
    /// keeps an enum's case in the spare bits of the pointer), so it reported that as a leak.
    static func pause(_ seconds: TimeInterval, on socket: Int32) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return true }
            // Only a hang-up wakes the wait: a request the client sends meanwhile is read later.
            #if os(Linux)
            var watched = pollfd(fd: socket, events: 0x2000, revents: 0)  // POLLRDHUP (needs _GNU_SOURCE to import)
            #else
            var watched = pollfd(fd: socket, events: 0, revents: 0)  // POLLHUP is always reported
            #endif
            let ready = poll(&watched, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
            if ready < 0 && errno != EINTR { return false }
            if ready > 0 { return false }
        }
    }

    private func write(_ data: Data, to socket: Int32) -> Bool { LoopbackSocket.write(data, to: socket) }

    /// `count` bytes of the sequence 0, 1, … 250, 0, 1, … from its `start`th byte: written
    /// through a typed pointer, fast even in a debug build (the memory tests ask for 20 MB).
    static func patterned(_ count: Int, from start: Int = 0) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { raw in
            guard let bytes = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            var value = UInt8(start % 251)
            for index in 0..<count {
                bytes[index] = value
                value = value == 250 ? 0 : value + 1
            }
        }
        return data
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 304: "Not Modified"
        case 404: "Not Found"
        case 418: "I'm a teapot"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// The routes of ``LoopbackServer``.
public enum LoopbackRoutes {
    /// The value of query parameter `name` in `target`.
    static func query(_ target: String, _ name: String) -> String? {
        URLComponents(string: "http://loopback" + target)?.queryItems?.first { $0.name == name }?.value
    }

    /// `date` as an HTTP date.
    public static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// `date` as ISO 8601 with seconds, in UTC: `2026-11-24T10:00:00Z`.
    public static func isoSeconds(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// A JWT (HS256 header, a signature that is not one) whose payload says `sub`, `iat` and `exp`.
    public static func jwt(issuedAt: Date, expiresAt: Date) -> String {
        func part(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let payload = #"{"sub":"ada","iat":\#(Int(issuedAt.timeIntervalSince1970)),"exp":\#(Int(expiresAt.timeIntervalSince1970))}"#
        return part(#"{"alg":"HS256","typ":"JWT"}"#) + "." + part(payload) + ".c2lnbmF0dXJlLW9mLXRoZS1zZXJ2ZXI"
    }

    /// The JSON that `/gzip` and `/deflate` send compressed.
    public static let compressedJSON = Data(#"{"compressed":true,"text":"The quick brown fox jumps over the lazy dog"}"#.utf8)

    /// The session id `/session` sets in a cookie and repeats in its body.
    public static let sessionSecret = "L00PBACK-SESSION-SECRET"

    /// Event `index` of `/sse/N/MS`: `id: INDEX` and a JSON `data` line.
    public static func sseEvent(_ index: Int) -> Data {
        Data("id: \(index)\ndata: {\"index\":\(index),\"token\":\"t\(index)\"}\n\n".utf8)
    }

    /// Message `index` (under 128) of `/grpc-web/N/MS`, as its envelope: flags 0, the length, and
    /// the protobuf message `{ 1: index, 2: "m<index>" }`, written here by hand from the
    /// protobuf encoding guide, not by the code under test.
    public static func grpcWebMessage(_ index: Int) -> Data {
        let text = Array("m\(index)".utf8)
        let payload = [0x08, UInt8(index & 0x7F), 0x12, UInt8(text.count)] + text
        return Data([0x00, 0, 0, 0, UInt8(payload.count)] + payload)
    }

    /// The trailers envelope that ends `/grpc-web/N/MS`: status 0.
    public static let grpcWebTrailers: Data = {
        let lines = Array("grpc-status: 0\r\ngrpc-message: \r\n".utf8)
        return Data([0x80, 0, 0, 0, UInt8(lines.count)] + lines)
    }()

    /// `/rpc.Echo/Say`, a Connect and gRPC-Web method that answers each request message (under
    /// 126 bytes) with a message holding it as field 1: a unary Connect POST (`application/proto`),
    /// a Connect GET (`?encoding=proto&base64=1&message=…`), or gRPC-Web envelopes, each echoed,
    /// then the trailers.
    static func rpcEcho(_ request: LoopbackServer.Received) -> Reply {
        func echoed(_ message: Data) -> Data { Data([0x0A, UInt8(message.count & 0x7F)]) + message }
        let contentType = request.headers["content-type"] ?? ""
        if contentType.hasPrefix("application/grpc-web") {
            var bytes = [UInt8](request.body)
            var body = Data()
            while bytes.count >= 5 {
                let length = Int(bytes[4])
                let payload = Data(bytes[5..<min(5 + length, bytes.count)])
                let answer = echoed(payload)
                body += Data([0x00, 0, 0, 0, UInt8(answer.count)]) + answer
                bytes.removeFirst(min(5 + length, bytes.count))
            }
            return Reply(status: 200, headers: [("Content-Type", "application/grpc-web+proto")], body: .whole(body + grpcWebTrailers))
        }
        var message = request.body
        if request.method == "GET" {
            let query = request.target.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
            let value = query.split(separator: "&").first { $0.hasPrefix("message=") }?.dropFirst("message=".count) ?? ""
            var base64 = value.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                .replacingOccurrences(of: "%3D", with: "=")
            while base64.hasSuffix("=") { base64.removeLast() }
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            message = Data(base64Encoded: base64) ?? Data()
        }
        return Reply(status: 200, headers: [("Content-Type", "application/proto")], body: .whole(echoed(message)))
    }

    /// The reply to `request`, the `number`th request the server received (from 1).
    static func reply(to request: LoopbackServer.Received, number: Int, editions: [String: Int]) -> Reply? {
        let path = String(request.target.prefix { $0 != "?" })
        let parts = path.split(separator: "/").map(String.init)
        let text: (String) -> [(String, String)] = { _ in [("Content-Type", "text/plain; charset=utf-8")] }
        switch (parts.first, parts.count) {
        case ("cache", 3) where parts[1] == "max-age":
            return Reply(
                status: 200, headers: text("") + [("Cache-Control", "max-age=\(parts[2])")],
                body: .whole(Data("response #\(number)".utf8)))
        case ("basic-auth", 3):
            // `/basic-auth/USER/PASSWORD`: 200 with those credentials, else a Basic challenge.
            let expected = "Basic " + Data("\(parts[1]):\(parts[2])".utf8).base64EncodedString()
            guard request.headers["authorization"] == expected else {
                return Reply(status: 401, headers: [("WWW-Authenticate", #"Basic realm="loopback""#)], body: .whole(Data("denied".utf8)))
            }
            return Reply(
                status: 200, headers: [("Content-Type", "application/json")],
                body: .whole(Data(#"{"authenticated":true,"user":"\#(parts[1])"}"#.utf8)))
        case ("cache", 3) where parts[1] == "status":
            // `/cache/status/404?control=max-age%3D60`: that status, with that `Cache-Control` (none without `control`).
            let control = query(request.target, "control").map { [("Cache-Control", $0)] } ?? []
            return Reply(
                status: Int(parts[2]) ?? 500, headers: text("") + control, body: .whole(Data("response #\(number)".utf8)))
        case ("cache", 3) where parts[1] == "etag":
            let tag = "\"\(parts[2])\""
            let headers = [("ETag", tag), ("Cache-Control", "no-cache")]
            if request.headers["if-none-match"] == tag { return Reply(status: 304, headers: headers, body: .whole(Data())) }
            return Reply(status: 200, headers: text("") + headers, body: .whole(Data("response #\(number)".utf8)))
        case ("sign-in", 1):
            // A session as an API hands it out: a cookie and a JWT valid for 60 s from the server's
            // time, which `?at=SECONDS` sets (a recording made as if on another day).
            let at = query(request.target, "at").flatMap(Double.init) ?? Date().timeIntervalSince1970
            let time = Date(timeIntervalSince1970: at.rounded(.down))
            let expiry = time.addingTimeInterval(60)
            let body = #"{"user":"ada","jwt":"\#(jwt(issuedAt: time, expiresAt: expiry))","expires_at":"\#(isoSeconds(expiry))"}"#
            return Reply(
                status: 200,
                headers: [
                    ("Content-Type", "application/json"), ("Date", httpDate(time)),
                    ("Set-Cookie", "session=s3ss10n-of-ada; Expires=\(httpDate(expiry)); Path=/"),
                ], body: .whole(Data(body.utf8)))
        case ("account", 1):
            let signedIn = request.headers["cookie"]?.contains("session=") == true
            return Reply(
                status: signedIn ? 200 : 403, headers: text(""), body: .whole(Data((signedIn ? "account of ada" : "signed out").utf8)))
        case ("profile", 1):
            // An API that moves on between editions (setEdition(_:of: "profile")): 1 as recorded;
            // 2 drops a field, turns a number into a string, adds a field to array elements and
            // forbids caching; 3 is down. Every answer has a new Date and request id.
            let volatile = [("Date", httpDate(Date())), ("X-Request-Id", UUID().uuidString)]
            switch editions["profile"] ?? 1 {
            case 1:
                return Reply(
                    status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=60")] + volatile,
                    body: .whole(Data(#"{"id":42,"name":"Ada","email":"ada@example.com","tags":[{"name":"a"}]}"#.utf8)))
            case 2:
                return Reply(
                    status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")] + volatile,
                    body: .whole(Data(#"{"id":"42","name":"Ada","tags":[{"name":"a","since":2020}]}"#.utf8)))
            default:
                return Reply(status: 503, headers: text("") + volatile, body: .whole(Data("down".utf8)))
            }
        case ("status", 2):
            let status = Int(parts[1]) ?? 500
            return Reply(status: status, headers: text(""), body: .whole(Data("status \(status)".utf8)))
        case ("echo", _):
            return Reply(status: 200, headers: [("Content-Type", "application/json")], body: .whole(echo(request)))
        case ("delay", 2):
            let milliseconds = Int(parts[1]) ?? 0
            return Reply(
                status: 200, headers: text(""), body: .whole(Data("delayed \(milliseconds) ms".utf8)),
                delay: TimeInterval(milliseconds) / 1000)
        case ("chunked", 2):
            let count = Int(parts[1]) ?? 1
            return Reply(status: 200, headers: text(""), body: .chunked((0..<count).map { Data("chunk \($0)\n".utf8) }))
        case ("slow-chunks", 3):
            let count = Int(parts[1]) ?? 1
            let milliseconds = Int(parts[2]) ?? 0
            return Reply(
                status: 200, headers: text(""), body: .chunked((0..<count).map { Data("chunk \($0)\n".utf8) }),
                chunkDelay: TimeInterval(milliseconds) / 1000)
        case ("sse", 3):
            // Server-sent events as an LLM API streams tokens: N events, MS milliseconds apart.
            let count = Int(parts[1]) ?? 1
            let milliseconds = Int(parts[2]) ?? 0
            return Reply(
                status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
                body: .chunked((0..<count).map { sseEvent($0) }), chunkDelay: TimeInterval(milliseconds) / 1000)
        case ("grpc-web", 3):
            // A gRPC-Web server stream: N messages, MS milliseconds apart, then the trailers.
            let count = min(Int(parts[1]) ?? 1, 127)
            let milliseconds = Int(parts[2]) ?? 0
            return Reply(
                status: 200, headers: [("Content-Type", "application/grpc-web+proto")],
                body: .chunked((0..<count).map { grpcWebMessage($0) } + [grpcWebTrailers]),
                chunkDelay: TimeInterval(milliseconds) / 1000)
        case ("grpc-web-cut", 3):
            // N messages of /grpc-web/N/MS, MS milliseconds apart, then the first 7 bytes of
            // another (its header and 2 bytes of its payload), and the connection closes.
            let count = min(Int(parts[1]) ?? 1, 126)
            let milliseconds = Int(parts[2]) ?? 0
            return Reply(
                status: 200, headers: [("Content-Type", "application/grpc-web+proto")],
                body: .chunkedThenCut((0..<count).map { grpcWebMessage($0) } + [grpcWebMessage(count).prefix(7)]),
                chunkDelay: TimeInterval(milliseconds) / 1000)
        case ("rpc.Echo", 2):
            return rpcEcho(request)
        case ("gzip", 1):
            return Reply(
                status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                body: .whole(Compression.gzip(compressedJSON)))
        case ("deflate", 1):
            return Reply(
                status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", "deflate")],
                body: .whole(Compression.zlib(compressedJSON)))
        case ("redirect", 2):
            let remaining = Int(parts[1]) ?? 0
            if remaining <= 0 { return Reply(status: 200, headers: text(""), body: .whole(Data("arrived".utf8))) }
            return Reply(status: 302, headers: [("Location", "/redirect/\(remaining - 1)")], body: .whole(Data()))
        case ("redirect-to", 1):
            // As httpbin's /redirect-to: `status_code` (302 by default) to `url`, and a cookie
            // when `cookie` is given, to show what a client does with the cookies of a hop.
            let items = URLComponents(string: request.target)?.queryItems ?? []
            let status = items.first { $0.name == "status_code" }?.value.flatMap(Int.init) ?? 302
            var headers = [("Location", items.first { $0.name == "url" }?.value ?? "/echo"), ("Content-Type", "text/plain")]
            // `cookie=session` sets the server-made session secret, which the URL does not show.
            if let cookie = items.first(where: { $0.name == "cookie" })?.value {
                headers.append(("Set-Cookie", (cookie == "session" ? "sid=\(sessionSecret)" : cookie) + "; Path=/"))
            }
            return Reply(status: status, headers: headers, body: .whole(Data("redirecting with \(status)".utf8)))
        case ("cookies", 1):
            // As httpbin's /cookies: the cookies the request carried, as JSON.
            let pairs = (request.headers["cookie"] ?? "").split(separator: ";").compactMap { pair -> (String, String)? in
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }
            let members = pairs.sorted { $0.0 < $1.0 }.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",")
            return Reply(
                status: 200, headers: [("Content-Type", "application/json")], body: .whole(Data("{\"cookies\":{\(members)}}".utf8)))
        case ("cookies", 2) where parts[1] == "set":
            // As httpbin's /cookies/set?name=value…: each pair set as a cookie, then a redirect to /cookies.
            let items = URLComponents(string: request.target)?.queryItems ?? []
            let cookies = items.map { ("Set-Cookie", "\($0.name)=\($0.value ?? ""); Path=/") }
            return Reply(
                status: 302, headers: [("Location", "/cookies"), ("Content-Type", "text/plain")] + cookies,
                body: .whole(Data("redirecting to /cookies".utf8)))
        case ("response-headers", 1):
            // As httpbin's /response-headers?Name=value…: each pair a header field of the response,
            // and the pairs again as the JSON body.
            let items = URLComponents(string: request.target)?.queryItems ?? []
            let fields = items.map { ($0.name, $0.value ?? "") }
            let members = fields.map { "\"\($0.0)\":\"\($0.1)\"" }.joined(separator: ",")
            return Reply(status: 200, headers: [("Content-Type", "application/json")] + fields, body: .whole(Data("{\(members)}".utf8)))
        case ("login", 1):
            // A login: a JSON body with "user" and "password" gets a token the server makes from them.
            guard let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
                let user = object["user"] as? String, let password = object["password"] as? String
            else { return Reply(status: 400, headers: text(""), body: .whole(Data("user and password, please".utf8))) }
            let token =
                "tok-" + String(UInt64(bitPattern: Int64((user + ":" + password).utf8.reduce(5381) { ($0 &* 33) &+ Int($1) })), radix: 16)
            return Reply(
                status: 200, headers: [("Content-Type", "application/json")],
                body: .whole(Data(#"{"access_token":"\#(token)","token_type":"bearer"}"#.utf8)))
        case ("bytes", 2):
            let count = Int(parts[1]) ?? 0
            return Reply(
                status: 200, headers: [("Content-Type", "application/octet-stream")],
                body: .patterned(count: count))
        case ("headers", 1):
            return Reply(
                status: 200,
                headers: [
                    ("Content-Type", "text/plain"), ("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2; Path=/"),
                    ("X-Multi", "first"), ("X-Multi", "second"), ("etag", "\"v1\""),
                ], body: .whole(Data("headers".utf8)))
        case ("bearer", 1):
            // As httpbin's /bearer: the token comes back in the body.
            guard let authorization = request.headers["authorization"], authorization.hasPrefix("Bearer ") else {
                return Reply(status: 401, headers: [("WWW-Authenticate", "Bearer")], body: .whole(Data()))
            }
            let token = String(authorization.dropFirst("Bearer ".count))
            return Reply(
                status: 200, headers: [("Content-Type", "application/json")],
                body: .whole(Data(#"{"authenticated":true,"token":"\#(token)"}"#.utf8)))
        case ("session", 1):
            // A server-made secret, in a cookie and again in the body.
            return Reply(
                status: 200,
                headers: [
                    ("Content-Type", "text/plain"), ("Set-Cookie", "sid=\(sessionSecret); Path=/; HttpOnly"),
                ], body: .whole(Data("your session is \(sessionSecret)".utf8)))
        case ("reencode", 1):
            // Each query value sent back percent-encoded another way: every character but letters
            // and digits, in lower-case hex in a header and in upper-case hex in the body.
            let values = (URLComponents(string: request.target)?.queryItems ?? []).compactMap(\.value)
            let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
            let upper = values.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }
            let lower = upper.map { encoded in
                var out = ""
                var pending = 0
                for character in encoded {
                    if character == "%" {
                        pending = 2
                        out.append(character)
                    } else if pending > 0 {
                        pending -= 1
                        out += character.lowercased()
                    } else {
                        out.append(character)
                    }
                }
                return out
            }
            return Reply(
                status: 200, headers: [("Content-Type", "text/plain"), ("X-Next", "/callback?v=" + lower.joined(separator: ","))],
                body: .whole(Data(upper.joined(separator: "\n").utf8)))
        case ("volatile", 2):
            // What changes on every answer of a real server: the date, the age, a request id.
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss.SSS 'GMT'"
            return Reply(
                status: 200,
                headers: [
                    ("Content-Type", "text/plain"), ("Date", formatter.string(from: Date())), ("Age", String(Int.random(in: 0...999))),
                    ("X-Request-Id", UUID().uuidString),
                ], body: .whole(Data("\(parts[1]), edition \(editions[parts[1]] ?? 1)".utf8)))
        case ("volatile", 3):
            // A large body whose edition changes only its last byte.
            var bytes = Data((0..<max(1, Int(parts[2]) ?? 1)).map { UInt8($0 % 251) })
            bytes[bytes.count - 1] = UInt8(truncatingIfNeeded: editions[parts[1]] ?? 1)
            return Reply(
                status: 200, headers: [("Content-Type", "application/octet-stream"), ("Date", Date().description)], body: .whole(bytes))
        case ("drop", 1):
            return Reply(status: 0, headers: [], body: .drop)
        case ("drop-mid-body", 1):
            return Reply(
                status: 200, headers: [("Content-Type", "application/octet-stream")],
                body: .truncated(declared: 1000, sent: Data(repeating: 7, count: 10)))
        default:
            return Reply(status: 404, headers: text(""), body: .whole(Data("no route for \(path)".utf8)))
        }
    }

    private static func echo(_ request: LoopbackServer.Received) -> Data {
        let query = request.target.firstIndex(of: "?").map { String(request.target[request.target.index(after: $0)...]) } ?? ""
        let object: [String: Any] = [
            "method": request.method,
            "path": String(request.target.prefix { $0 != "?" }),
            "query": query,
            "headers": request.headers,
            "body": String(decoding: request.body, as: UTF8.self),
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }
}
