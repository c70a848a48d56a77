import CassetteFormats
import CassetteTestSupport
import Foundation
import Testing

/// `decode(encode(x)) == x` for generated documents, bodies keeping their bytes and their form.
///
/// The two big round trips keep both cores busy for about a second; they take turns with the
/// timing tests through ``TimingIsolation``.
@Suite struct RoundTripTests {
    @Test func generatedInteractionsSurviveARoundTrip() async throws {
        try await TimingIsolation.run {
            var generator = InteractionGenerator(seed: 0xCA55_E77E)
            var checked = 0
            var forms: [Interaction.Body.Form: Int] = [:]
            var sawTenMegabytes = false
            for batch in 0..<125 {
                // 8 interactions per document, 1,000 in all; two documents carry a 10 MB body.
                let document = generator.document(count: 8, hugeBody: batch == 40 || batch == 99)
                let encoded = try JSONCassetteCodec.encode(document)
                let decoded = try JSONCassetteCodec.decode(encoded, file: "generated-\(batch).json")
                try #require(decoded == document, "batch \(batch) (seed 0xCA55E77E) changed in a round trip")
                for (a, b) in zip(document.interactions, decoded.interactions) {
                    for (original, read) in zip(Self.bodies(a), Self.bodies(b)) {
                        #expect(original.form == read.form, "a \(original.form) body came back as \(read.form)")
                        forms[original.form, default: 0] += 1
                        sawTenMegabytes = sawTenMegabytes || original.data.count == 10 * 1024 * 1024
                    }
                }
                // Writing again gives the same bytes.
                #expect(try JSONCassetteCodec.encode(decoded) == encoded)
                checked += document.interactions.count
            }
            #expect(checked == 1000)
            #expect(sawTenMegabytes)
            // The generator exercised every form, many times.
            for form in Interaction.Body.Form.allCases {
                #expect(forms[form, default: 0] > 50, "only \(forms[form, default: 0]) \(form) bodies were generated")
            }
        }
    }

    @Test func aTenMegabyteBinaryBodyKeepsEveryByte() async throws {
        try await TimingIsolation.run {
            var rng = SeededGenerator(seed: 7)
            var bytes = [UInt8](repeating: 0, count: 10 * 1024 * 1024)
            for i in stride(from: 0, to: bytes.count, by: 8) {
                withUnsafeBytes(of: rng.next()) { word in
                    for j in 0..<8 { bytes[i + j] = word[j] }
                }
            }
            let body = Interaction.Body(Data(bytes), contentType: "application/octet-stream")
            let document = CassetteDocument(interactions: [
                Interaction(request: .init(url: "https://example.com/big"), response: .init(status: 200, body: body))
            ])
            let decoded = try JSONCassetteCodec.decode(try JSONCassetteCodec.encode(document))
            let read = try #require(decoded.interactions.first?.response?.body)
            #expect(read.form == .base64)
            #expect(read.data.count == bytes.count)
            #expect(read.data.elementsEqual(bytes))
        }
    }

    @Test func timestampsKeepTheirMillisecond() throws {
        for ms: Int64 in [0, 1, -1, 999, 1_795_349_730_123, -62_167_219_200_000, 253_402_300_799_999] {
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            let document = CassetteDocument(interactions: [
                Interaction(recordedAt: date, request: .init(url: "https://example.com/"), response: .init(status: 204))
            ])
            let decoded = try JSONCassetteCodec.decode(try JSONCassetteCodec.encode(document))
            #expect(decoded.interactions.first?.recordedAt == date, "\(ms) ms")
        }
    }

    private static func bodies(_ interaction: Interaction) -> [Interaction.Body] {
        [interaction.request.body] + (interaction.response.map { [$0.body] } ?? [])
    }
}

/// Generates valid interactions covering what a cassette must carry exactly.
struct InteractionGenerator {
    private var rng: SeededGenerator

    init(seed: UInt64) {
        rng = SeededGenerator(seed: seed)
    }

    mutating func document(count: Int, hugeBody: Bool = false) -> CassetteDocument {
        var interactions = (0..<count).map { _ in interaction() }
        if hugeBody {
            var bytes = [UInt8](repeating: 0, count: 10 * 1024 * 1024)
            for i in stride(from: 0, to: bytes.count, by: 997) { bytes[i] = UInt8.random(in: 0...255, using: &rng) }
            interactions[0].response = .init(
                status: 200, headers: ["Content-Type": "application/octet-stream"],
                body: .init(Data(bytes), contentType: "application/octet-stream"))
        }
        return CassetteDocument(recordedWith: chance(0.5) ? "Cassette 0.1.0" : nil, interactions: interactions)
    }

    mutating func interaction() -> Interaction {
        let request = Interaction.Request(
            method: pick(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "M-SEARCH", "get"]),
            url: url(), headers: headers(), body: chance(0.4) ? body() : .empty)
        let outcome = Int.random(in: 0..<10, using: &rng)
        let response =
            outcome < 8
            ? Interaction.Response(
                status: Int.random(in: 100...599, using: &rng),
                url: chance(0.2) ? url() : nil, headers: headers(), body: body()) : nil
        var error = outcome >= 7 ? Interaction.TransportError(code: errorCode()) : nil
        if let response, chance(0.5) {
            error?.afterBytes = Int.random(in: 0...response.body.data.count, using: &rng)
        }
        var interaction = Interaction(
            recordedAt: chance(0.8) ? date() : nil, request: request, response: response, error: error,
            timing: chance(0.8) ? timing() : nil, latency: chance(0.3) ? latency() : nil)
        if chance(0.2) { interaction.scenario = pick(["status 503", " spaces kept ", "überlastet — 503", "a \"quoted\" # and ###"]) }
        if chance(0.15) { interaction.challenges = (0..<Int.random(in: 1...2, using: &rng)).map { _ in challenge() } }
        return interaction
    }

    /// A challenge the server made: any method, realm and answer, a 401 or 407 with any fields and body.
    private mutating func challenge() -> Interaction.Challenge {
        var headers = headers()
        headers.add(
            pick(["WWW-Authenticate", "Proxy-Authenticate"]), pick([#"Basic realm="api""#, "Negotiate", #"Digest realm="x", nonce="1""#]))
        return Interaction.Challenge(
            method: pick(Interaction.Challenge.knownMethods),
            realm: chance(0.8) ? pick(["api", "", " spaces ", #"a "quoted" realm"#, "ünïcödé ✓", "base64", "x base64"]) : nil,
            answer: pick(Interaction.Challenge.Answer.allCases),
            response: .init(status: pick([401, 407]), headers: headers, body: body()))
    }

    // MARK: Parts

    private mutating func url() -> String {
        let scheme = pick(["https", "http", "wss", "x-custom+scheme"])
        let host = pick(["api.example.com", "例え.jp", "127.0.0.1", "[::1]", "bücher.example", "a-b.c-d.example"])
        let port = chance(0.3) ? ":\(Int.random(in: 0...65535, using: &rng))" : ""
        var path = ""
        for _ in 0..<Int.random(in: 0...4, using: &rng) {
            path += "/" + pick(["users", "42", "パス", "%20", "a%2Fb", "ü", "~tilde", "semi;colon", "emoji😀", "%E2%82%AC"])
        }
        if chance(0.5) {
            let pairs = (0..<Int.random(in: 1...4, using: &rng)).map { _ in
                pick(["q", "fields", "ä", "page", "x%5By%5D"]) + "=" + pick(["1", "a%20b", "ü", "", "name,email", "%25", "a+b"])
            }
            path += "?" + pairs.joined(separator: "&")
        }
        if chance(0.1) { path += "#" + pick(["top", "section-2", "ä"]) }
        return scheme + "://" + host + port + path
    }

    private mutating func headers() -> Interaction.Headers {
        var headers = Interaction.Headers()
        for _ in 0..<Int.random(in: 0...6, using: &rng) {
            let name = pick(["Accept", "Content-Type", "Set-Cookie", "X-Request-ID", "etag", "X_Under.score~", "Cache-Control", "Vary"])
            let value = pick(["application/json", "a=1; Path=/", "", "text/html, */*;q=0.8", "\"abc\"", "ünïcödé ✓", "  padded  ", "x\ty"])
            // Repeats of a name (in any case) join its group, as a cassette file writes them.
            headers.add(chance(0.2) ? name.uppercased() : name, value)
        }
        return headers
    }

    private mutating func body() -> Interaction.Body {
        switch Int.random(in: 0..<9, using: &rng) {
        case 0:
            return .empty
        case 6:  // multipart/form-data, mostly as clients write it, sometimes not
            return multipartBody()
        case 7:  // unary Connect: one protobuf message
            return .init(ProtobufWire.encode(protobufFields(depth: 0)), contentType: "application/proto")
        case 8:  // a Connect stream or a gRPC-Web body
            return envelopesBody()
        case 1:  // text, with or without a trailing newline, sometimes many lines
            var text = ""
            for _ in 0..<Int.random(in: 1...40, using: &rng) {
                text += pick(["hello", " ", "wörld", "\n", "\r\n", "\t", "\"quoted\"", "back\\slash", "日本語", "🎉", "{", "}"])
            }
            if chance(0.5) { text += "\n" }
            return .init(Data(text.utf8), contentType: pick(["text/plain", "text/html; charset=utf-8", nil]))
        case 2:  // compact JSON
            let json = jsonValue(depth: 0)
            return .init(Data(json.utf8), contentType: pick(["application/json", "application/problem+json", nil]))
        case 3:  // invalid UTF-8
            var bytes = (0..<Int.random(in: 1...64, using: &rng)).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
            bytes.insert(pick([0xFF, 0xC0, 0x80, 0xED]), at: Int.random(in: 0...bytes.count, using: &rng))
            return .init(Data(bytes), contentType: "text/plain")
        case 4:  // binary
            let bytes = (0..<Int.random(in: 1...4096, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            return .init(Data(bytes), contentType: pick(["image/png", "application/octet-stream", nil]))
        default:  // pretty JSON, which is kept as text
            return .init(
                Data("{\n  \"id\": \(Int.random(in: 0...999, using: &rng)),\n  \"ok\": true\n}\n".utf8), contentType: "application/json")
        }
    }

    /// A multipart body with a random boundary and 1 to 4 parts of text, JSON or bytes; now and
    /// then with extra part headers, or with its fields in an order no client writes.
    private mutating func multipartBody() -> Interaction.Body {
        let boundary =
            pick(["alamofire.boundary.", "Boundary-", "----WebKitFormBoundary", "x"])
            + String(UInt64.random(in: 0...UInt64.max, using: &rng), radix: 16)
        var parts: [Multipart.Part] = []
        for index in 0..<Int.random(in: 1...4, using: &rng) {
            let kind = Int.random(in: 0..<3, using: &rng)
            let body: Data
            let contentType: String?
            switch kind {
            case 0:
                body = Data(pick(["", "hello", "wörld\r\nline 2", "🎉"]).utf8)
                contentType = pick(["text/plain; charset=utf-8", nil])
            case 1:
                body = Data(jsonValue(depth: 1).utf8)
                contentType = "application/json"
            default:
                body = Data((0..<Int.random(in: 1...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
                contentType = "application/octet-stream"
            }
            var headers = Interaction.Headers()
            if chance(0.1) { headers.add("Content-Transfer-Encoding", "binary") }
            parts.append(
                Multipart.Part(
                    name: pick(["title", "meta", "file", "é", "a b"]) + String(index),
                    filename: kind == 2 || chance(0.2) ? pick(["a.png", "photo 1.jpg", "データ.bin"]) : nil,
                    contentType: contentType, otherHeaders: headers, body: body))
        }
        var data = Multipart(boundary: boundary, parts: parts).serialized()
        if chance(0.1) { data = Data("preamble\r\n".utf8) + data }  // not canonical: kept as text or base64
        return .init(data, contentType: "multipart/form-data; boundary=" + boundary)
    }

    /// 1 to 5 fields of every wire type; text, bytes and (above the deepest level) nested messages.
    private mutating func protobufFields(depth: Int) -> [ProtobufWire.Field] {
        (0..<Int.random(in: 1...5, using: &rng)).map { _ in
            let number = pick([1, 2, 15, 16, 2047, ProtobufWire.maximumFieldNumber])
            switch Int.random(in: 0..<(depth < 2 ? 6 : 5), using: &rng) {
            case 0: return .init(number, .varint(pick([0, 1, 150, UInt64.max, UInt64.random(in: 0...UInt64.max, using: &rng)])))
            case 1: return .init(number, .fixed64(UInt64.random(in: 0...UInt64.max, using: &rng)))
            case 2: return .init(number, .fixed32(UInt32.random(in: 0...UInt32.max, using: &rng)))
            case 3: return .init(number, .delimited(.text(pick(["ada", "wörld 🎉", "a\tb\r\nc"]))))
            case 4:
                return .init(
                    number,
                    .delimited(.bytes(Data((0..<Int.random(in: 1...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))))
            default: return .init(number, .delimited(.message(protobufFields(depth: depth + 1))))
            }
        }
    }

    /// 1 to 4 envelopes: protobuf, JSON or compressed messages, gRPC-Web trailers or Connect's
    /// end of stream; now and then cut short.
    private mutating func envelopesBody() -> Interaction.Body {
        var framed = RPCEnvelope.Framed(envelopes: [])
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: framed.envelopes.append(.init(flags: 0, payload: ProtobufWire.encode(protobufFields(depth: 0))))
            case 1: framed.envelopes.append(.init(flags: 0, payload: Data(jsonValue(depth: 1).utf8)))
            case 2:
                let bytes = (0..<Int.random(in: 0...64, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                framed.envelopes.append(.init(flags: pick([0, 1, 0x81, 0x42]), payload: Data(bytes)))
            case 3:
                framed.envelopes.append(
                    .init(flags: 0x80, payload: Data(pick(["grpc-status: 0\r\ngrpc-message: \r\n", "grpc-status: 14\r\n", "x\r\ny"]).utf8)))
            default:
                framed.envelopes.append(.init(flags: 2, payload: Data(pick(["{}", #"{"error":{"code":"unavailable"}}"#, "{ }"]).utf8)))
            }
        }
        if chance(0.2) { framed.rest = Data([0, 0, 0, 0, 9, 1].prefix(Int.random(in: 1...6, using: &rng))) }
        return .init(framed.joined, contentType: pick(["application/grpc-web+proto", "application/connect+json", "application/grpc-web"]))
    }

    private mutating func jsonValue(depth: Int) -> String {
        let kind = depth > 3 ? Int.random(in: 0..<4, using: &rng) : Int.random(in: 0..<6, using: &rng)
        switch kind {
        case 0: return pick(["null", "true", "false"])
        case 1: return pick(["0", "-0", "42", "-17", "3.25", "1.50", "1e5", "2.5E-3", "123456789012345678901234567890"])
        case 2:
            var s: [UInt8] = []
            let text = pick(["", "plain", "é", "tab\there", "quote\"", "nl\nx", "\u{1}", "😀", "a/b", "\\"])
            // Same escaping as the writer, so the bytes are compact JSON.
            s.append(0x22)
            for b in text.utf8 {
                switch b {
                case 0x22: s += [0x5C, 0x22]
                case 0x5C: s += [0x5C, 0x5C]
                case 0x09: s += [0x5C, UInt8(ascii: "t")]
                case 0x0A: s += [0x5C, UInt8(ascii: "n")]
                case 0x01: s += Array("\\u0001".utf8)
                default: s.append(b)
                }
            }
            s.append(0x22)
            return String(decoding: s, as: UTF8.self)
        case 3: return "[]"
        case 4: return "[" + (0..<Int.random(in: 1...5, using: &rng)).map { _ in jsonValue(depth: depth + 1) }.joined(separator: ",") + "]"
        default:
            let keys = ["id", "name", "é", "tags", "nested", "a b"].shuffled(using: &rng).prefix(Int.random(in: 0...4, using: &rng))
            return "{" + keys.map { "\"\($0)\":" + jsonValue(depth: depth + 1) }.joined(separator: ",") + "}"
        }
    }

    private mutating func errorCode() -> Interaction.TransportError.Code {
        if chance(0.8), let code = Interaction.TransportError.Code(name: pick(Interaction.TransportError.Code.allNames)) {
            return code
        }
        return .init(rawValue: Int.random(in: -5000...5000, using: &rng))
    }

    private mutating func timing() -> Interaction.Timing {
        if chance(0.2) {
            let whole = Double(Int.random(in: 0...120, using: &rng))
            return .init(firstByte: whole, duration: whole)
        }
        let firstByte = Double.random(in: 0...5, using: &rng)
        return .init(firstByte: firstByte, duration: firstByte + Double.random(in: 0...5, using: &rng))
    }

    private mutating func latency() -> Latency {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: return .instant
        case 1: return .recorded
        case 2: return .scaled(Double.random(in: 0...4, using: &rng))
        case 3:
            let timing = timing()
            return .fixed(firstByte: timing.firstByte, duration: timing.duration)
        case 4: return .downloadSpeed(pick(DownloadSpeed.presets), firstByte: chance(0.5) ? 0 : Double.random(in: 0...2, using: &rng))
        default: return .downloadSpeed(.init(bytesPerSecond: Double(Int.random(in: 1...10_000_000, using: &rng))))
        }
    }

    private mutating func date() -> Date {
        Date(timeIntervalSince1970: Double(Int64.random(in: 0...4_102_444_800_000, using: &rng)) / 1000)
    }

    private mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }

    private mutating func pick<T>(_ options: [T]) -> T { options[Int.random(in: 0..<options.count, using: &rng)] }
}
