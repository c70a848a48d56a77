import Foundation

/// One WebSocket frame (RFC 6455, section 5.2), and its bytes on the wire.
package struct WebSocketFrame: Sendable, Equatable {
    /// What a frame carries.
    package enum Opcode: UInt8, Sendable, Equatable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Close, ping and pong: at most 125 bytes, never fragmented, allowed between fragments.
        package var isControl: Bool { rawValue & 0x8 != 0 }
    }

    /// Whether this is the last frame of its message.
    package var fin: Bool
    package var opcode: Opcode
    /// The payload, unmasked.
    package var payload: Data

    package init(fin: Bool = true, opcode: Opcode, payload: Data) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The frame's bytes: masked with `mask` (4 bytes) when given, as a client must send them;
    /// unmasked otherwise, as a server does.
    package func encoded(mask: [UInt8]? = nil) -> Data {
        var out = Data()
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        switch payload.count {
        case 0..<126:
            out.append(maskBit | UInt8(payload.count))
        case 126...0xFFFF:
            out.append(maskBit | 126)
            out.append(UInt8(payload.count >> 8))
            out.append(UInt8(truncatingIfNeeded: payload.count))
        default:
            out.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift)))
            }
        }
        if let mask, mask.count == 4 {
            out.append(contentsOf: mask)
            var index = 0
            for byte in payload {
                out.append(byte ^ mask[index & 3])
                index += 1
            }
        } else {
            out.append(payload)
        }
        return out
    }

    /// A close frame's payload: the code (big-endian) and the reason in UTF-8; empty without a code.
    package static func closePayload(code: UInt16?, reason: String) -> Data {
        guard let code else { return Data() }
        return Data([UInt8(code >> 8), UInt8(truncatingIfNeeded: code)]) + Data(reason.utf8)
    }
}
