import Foundation

// The fuzz targets compile this file with the runtime's files in one module (Fuzz/run).
#if canImport(Cassette)
import Cassette
#endif

/// Reads WebSocket messages from the bytes of a connection as they arrive (RFC 6455, sections 5
/// and 8): frames are parsed, unmasked, and reassembled into messages; control frames between
/// fragments come out on their own. Anything the RFC forbids ends the reading with the close
/// code to send: 1002 for a protocol error (an unmasked client frame, a reserved bit, a bad
/// opcode, a fragmented or oversized control frame, a continuation out of place), 1007 for text
/// that is not UTF-8, 1009 for a frame or message over the limit.
///
/// ```swift
/// var reader = WebSocketFrameReader(role: .server)
/// reader.append(bytesFromTheSocket)
/// while case .message(let message)? = try reader.next() { … }
/// ```
package struct WebSocketFrameReader: Sendable {
    /// Which end reads: a server reads masked client frames, a client unmasked server frames.
    package enum Role: Sendable { case server, client }

    /// A whole message, or a control frame: the message type conversation playback reads.
    package typealias Message = ConversationMessage

    /// What ends the reading: the close code to send and why.
    package struct Failure: Error, Sendable, Equatable {
        package var code: UInt16
        package var reason: String
    }

    package let role: Role
    /// The largest message (and so frame) accepted, in bytes.
    package let maximumMessageSize: Int
    private var buffer = Data()
    /// How much of `buffer` was read as frames already.
    private var consumed = 0
    private var fragments: (opcode: WebSocketFrame.Opcode, payload: Data)?

    package init(role: Role, maximumMessageSize: Int = 16 * 1_048_576) {
        self.role = role
        self.maximumMessageSize = maximumMessageSize
    }

    /// Adds bytes read from the connection.
    package mutating func append(_ bytes: Data) {
        buffer.append(bytes)
    }

    /// Bytes received but not yet read as a frame.
    package var bufferedCount: Int { buffer.count - consumed }

    /// The next message, nil when more bytes are needed.
    ///
    /// - Throws: ``Failure`` with the close code to send.
    package mutating func next() throws(Failure) -> Message? {
        while let frame = try nextFrame() {
            if frame.opcode.isControl {
                return try control(frame)
            }
            switch (frame.opcode, fragments) {
            case (.continuation, nil):
                throw Failure(code: WebSocketCloseCode.protocolError, reason: "a continuation frame with no message to continue")
            case (.text, _?), (.binary, _?):
                throw Failure(code: WebSocketCloseCode.protocolError, reason: "a new message began before the last one's final fragment")
            case (.continuation, let started?):
                guard started.payload.count + frame.payload.count <= maximumMessageSize else {
                    throw Failure(code: WebSocketCloseCode.tooBig, reason: "a message over \(maximumMessageSize) bytes")
                }
                fragments = (started.opcode, started.payload + frame.payload)
            default:
                fragments = (frame.opcode, frame.payload)
            }
            guard frame.fin, let whole = fragments else { continue }
            fragments = nil
            if whole.opcode == .text {
                guard UTF8Validation.isValid(whole.payload) else {
                    throw Failure(code: WebSocketCloseCode.invalidPayload, reason: "a text message that is not UTF-8")
                }
                return .text(String(decoding: whole.payload, as: UTF8.self))
            }
            return .binary(whole.payload)
        }
        return nil
    }

    private func control(_ frame: WebSocketFrame) throws(Failure) -> Message {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        default:
            let payload = frame.payload
            if payload.isEmpty { return .close(code: nil, reason: "") }
            guard payload.count >= 2 else {
                throw Failure(code: WebSocketCloseCode.protocolError, reason: "a close frame with a 1-byte payload")
            }
            let code = UInt16(payload[payload.startIndex]) << 8 | UInt16(payload[payload.startIndex + 1])
            guard WebSocketCloseCode.isSendable(code) else {
                throw Failure(code: WebSocketCloseCode.protocolError, reason: "a close frame with code \(code), which may not be sent")
            }
            let reason = payload.dropFirst(2)
            guard UTF8Validation.isValid(Data(reason)) else {
                throw Failure(code: WebSocketCloseCode.invalidPayload, reason: "a close reason that is not UTF-8")
            }
            return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
        }
    }

    /// The next whole frame in the buffer, unmasked; nil when it is not all there yet.
    private mutating func nextFrame() throws(Failure) -> WebSocketFrame? {
        let bytes = buffer
        let start = bytes.startIndex + consumed
        let available = bytes.count - consumed
        guard available >= 2 else { return nil }
        let first = bytes[start]
        let second = bytes[start + 1]
        guard first & 0x70 == 0 else {
            throw Failure(code: WebSocketCloseCode.protocolError, reason: "a reserved bit is set (no extension was agreed)")
        }
        guard let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F) else {
            throw Failure(code: WebSocketCloseCode.protocolError, reason: "opcode \(first & 0x0F) is reserved")
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        switch role {
        case .server where !masked:
            throw Failure(code: WebSocketCloseCode.protocolError, reason: "a client frame that is not masked")
        case .client where masked:
            throw Failure(code: WebSocketCloseCode.protocolError, reason: "a server frame that is masked")
        default:
            break
        }
        var offset = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(bytes[start + 2]) << 8 | UInt64(bytes[start + 3])
            offset = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(bytes[start + index]) }
            guard length >> 63 == 0 else {
                throw Failure(code: WebSocketCloseCode.protocolError, reason: "a frame length with its top bit set")
            }
            offset = 10
        }
        if opcode.isControl {
            guard fin else { throw Failure(code: WebSocketCloseCode.protocolError, reason: "a fragmented control frame") }
            guard length <= 125 else {
                throw Failure(code: WebSocketCloseCode.protocolError, reason: "a control frame of \(length) bytes (at most 125)")
            }
        }
        guard length <= UInt64(maximumMessageSize) else {
            throw Failure(code: WebSocketCloseCode.tooBig, reason: "a frame of \(length) bytes, over \(maximumMessageSize)")
        }
        let mask = masked ? offset : nil
        if masked { offset += 4 }
        let size = Int(length)
        guard available >= offset + size else { return nil }
        var payload = Data(bytes[(start + offset)..<(start + offset + size)])
        if let mask {
            let key = [bytes[start + mask], bytes[start + mask + 1], bytes[start + mask + 2], bytes[start + mask + 3]]
            payload.withUnsafeMutableBytes { raw in
                for index in 0..<raw.count { raw[index] ^= key[index & 3] }
            }
        }
        consumed += offset + size
        if consumed == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            consumed = 0
        } else if consumed >= 65_536 {
            buffer.removeSubrange(buffer.startIndex..<(buffer.startIndex + consumed))
            consumed = 0
        }
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }
}
