import Foundation

/// WebSocket close codes (RFC 6455, section 7.4.1): those Cassette sends, and which a cassette
/// may hold (a close a server may send).
package enum WebSocketCloseCode {
    package static let normal: UInt16 = 1000
    package static let goingAway: UInt16 = 1001
    package static let protocolError: UInt16 = 1002
    package static let unsupportedData: UInt16 = 1003
    package static let invalidPayload: UInt16 = 1007
    package static let policyViolation: UInt16 = 1008
    package static let tooBig: UInt16 = 1009
    package static let internalError: UInt16 = 1011

    /// Whether `code` may be sent in a close frame: 1000–1003, 1007–1011, 3000–4999 (1004–1006,
    /// 1015 and the unassigned rest of 1000–2999 may not).
    package static func isSendable(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }
}
