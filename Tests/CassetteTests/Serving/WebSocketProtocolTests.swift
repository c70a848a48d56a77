import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer

/// The WebSocket protocol, written here: SHA-1 against FIPS 180 and RFC 3174, the handshake
/// against RFC 6455's own example, and the frame reader against the RFC's rules.
@Suite struct WebSocketProtocolTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "a49b2446a02c645bf419f995b67091253a04a259"
        ),
        ("The quick brown fox jumps over the lazy dog", "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"),
    ])
    func sha1MatchesTheStandardsVectors(message: String, digest: String) {
        #expect(Self.hex(SHA1.digest(Array(message.utf8))) == digest)
    }

    /// FIPS 180's long vector: a million "a", fed in uneven pieces.
    @Test func sha1OfAMillionAs() {
        var hash = SHA1()
        var left = 1_000_000
        var piece = 1
        while left > 0 {
            let count = min(piece, left)
            hash.update(repeatElement(UInt8(ascii: "a"), count: count))
            left -= count
            piece = piece * 3 % 997 + 1
        }
        #expect(Self.hex(hash.finish()) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    /// RFC 6455, section 1.3.
    @Test func theAcceptKeyOfTheRFCsExample() {
        #expect(WebSocketHandshake.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func aHandshakeIsAcceptedOrRefusedWithItsReason() {
        func fields(_ pairs: [String: String]) -> (String) -> String? {
            { name in pairs.first { $0.key.lowercased() == name.lowercased() }?.value }
        }
        let good = [
            "Upgrade": "WebSocket", "Connection": "keep-alive, Upgrade", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Protocol": "chat, superchat",
            "Sec-WebSocket-Extensions": "permessage-deflate; client_max_window_bits",
        ]
        #expect(WebSocketUpgrade.isAsked(fields(good)))
        #expect(!WebSocketUpgrade.isAsked(fields(["Connection": "Upgrade"])))
        guard case .success(let upgrade) = WebSocketHandshake.upgrade(method: "GET", fields(good)) else {
            Issue.record("refused")
            return
        }
        #expect(upgrade == .init(key: "dGhlIHNhbXBsZSBub25jZQ==", protocols: ["chat", "superchat"]))
        // No extension is ever accepted: the conversation is uncompressed.
        let headers = WebSocketHandshake.responseHeaders(for: upgrade, chosenProtocol: "chat")
        #expect(
            headers.map { "\($0.0): \($0.1)" } == [
                "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
                "Sec-WebSocket-Protocol: chat",
            ])
        var old = good
        old["Sec-WebSocket-Version"] = "8"
        #expect(
            WebSocketHandshake.upgrade(method: "GET", fields(old)).failure
                == .init(status: 426, reason: "only WebSocket version 13 is spoken here", headers: [("Sec-WebSocket-Version", "13")]))
        var short = good
        short["Sec-WebSocket-Key"] = "c2hvcnQ="
        #expect(WebSocketHandshake.upgrade(method: "GET", fields(short)).failure?.reason == "Sec-WebSocket-Key must be 16 bytes in base64")
        #expect(WebSocketHandshake.upgrade(method: "POST", fields(good)).failure?.status == 400)
    }

    static let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]

    /// RFC 6455, section 5.7: "Hello" unmasked and masked, byte for byte.
    @Test func theRFCsFrameExamples() throws {
        let hello = WebSocketFrame(opcode: .text, payload: Data("Hello".utf8))
        #expect(Array(hello.encoded()) == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(Array(hello.encoded(mask: Self.mask)) == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        var client = WebSocketFrameReader(role: .client)
        client.append(Data([0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F]))  // fragmented "Hel" + "lo"
        #expect(try client.next() == .text("Hello"))
        #expect(try client.next() == nil)
        // 256 bytes (16-bit length) and 65536 bytes (64-bit length).
        for size in [256, 65_536] {
            let frame = WebSocketFrame(opcode: .binary, payload: Data(repeating: 7, count: size))
            #expect(frame.encoded().prefix(2) == Data([0x82, size == 256 ? 126 : 127]))
            var reader = WebSocketFrameReader(role: .client)
            reader.append(frame.encoded())
            #expect(try reader.next() == .binary(Data(repeating: 7, count: size)))
        }
    }

    /// A message arrives in any pieces, control frames between its fragments come out on their own.
    @Test func fragmentsAndControlFramesArriveInPiecesAndInOrder() throws {
        var bytes = Data()
        bytes += WebSocketFrame(fin: false, opcode: .text, payload: Data("{\"a\":".utf8)).encoded(mask: Self.mask)
        bytes += WebSocketFrame(opcode: .ping, payload: Data("p".utf8)).encoded(mask: Self.mask)
        bytes += WebSocketFrame(fin: false, opcode: .continuation, payload: Data("1".utf8)).encoded(mask: Self.mask)
        bytes += WebSocketFrame(opcode: .continuation, payload: Data("}".utf8)).encoded(mask: Self.mask)
        bytes += WebSocketFrame(opcode: .close, payload: WebSocketFrame.closePayload(code: 1000, reason: "bye")).encoded(mask: Self.mask)
        var reader = WebSocketFrameReader(role: .server)
        var messages: [WebSocketFrameReader.Message] = []
        for byte in bytes {
            reader.append(Data([byte]))
            while let message = try reader.next() { messages.append(message) }
        }
        #expect(messages == [.ping(Data("p".utf8)), .text(#"{"a":1}"#), .close(code: 1000, reason: "bye")])
        #expect(reader.bufferedCount == 0)
    }

    /// Each rule the RFC sets, broken, with the close code that answers it.
    @Test(
        arguments: [
            ("unmasked client frame", [0x81, 0x01, 0x41], 1002, "a client frame that is not masked"),
            ("reserved bit", [0xC1, 0x81] + mask + [0x41 ^ 0x37], 1002, "a reserved bit is set (no extension was agreed)"),
            ("reserved opcode", [0x83, 0x80] + mask, 1002, "opcode 3 is reserved"),
            ("fragmented ping", [0x09, 0x80] + mask, 1002, "a fragmented control frame"),
            ("long ping", [0x89, 0xFE, 0x00, 0x7E] + mask, 1002, "a control frame of 126 bytes (at most 125)"),
            ("lone continuation", [0x80, 0x80] + mask, 1002, "a continuation frame with no message to continue"),
            ("invalid UTF-8", [0x81, 0x82] + mask + [0xC3 ^ 0x37, 0x28 ^ 0xFA], 1007, "a text message that is not UTF-8"),
            (
                "close code 1005", [0x88, 0x82] + mask + [0x03 ^ 0x37, 0xED ^ 0xFA], 1002,
                "a close frame with code 1005, which may not be sent"
            ),
            ("oversized", [0x82, 0xFF, 0, 0, 0, 0, 0, 0x10, 0, 1] + mask, 1009, "a frame of 1048577 bytes, over 1048576"),
        ] as [(String, [UInt8], Int, String)])
    func aBrokenRuleEndsTheReadingWithItsCode(name: String, bytes: [UInt8], code: Int, reason: String) {
        var reader = WebSocketFrameReader(role: .server, maximumMessageSize: 1_048_576)
        reader.append(Data(bytes))
        #expect(throws: WebSocketFrameReader.Failure(code: UInt16(code), reason: reason), "\(name)") { try reader.next() }
    }

    @Test func aMaskedServerFrameIsRefusedByAClient() {
        var reader = WebSocketFrameReader(role: .client)
        reader.append(WebSocketFrame(opcode: .text, payload: Data("x".utf8)).encoded(mask: Self.mask))
        #expect(throws: WebSocketFrameReader.Failure(code: 1002, reason: "a server frame that is masked")) { try reader.next() }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let failure) = self { failure } else { nil }
    }
}
