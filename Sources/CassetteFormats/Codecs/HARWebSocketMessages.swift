import Foundation

/// WebSocket messages in HAR, as Chrome's DevTools export them: `_webSocketMessages` on the
/// entry, each `{ "type": "send" | "receive", "time": SECONDS-SINCE-1970, "opcode": 1, "data": "…" }`
/// (binary data in base64, as Chrome writes it). A HAR a browser exported with WebSocket frames
/// imports; Cassette adds `_at` (seconds from the `101`, exactly), `_code` (a close's code) and
/// `_encoding: "base64"` (a control frame's bytes that are not text), which other tools ignore.
enum HARWebSocketMessages {
    /// The opcode of each kind (RFC 6455, 5.2), as Chrome writes it.
    static func opcode(of kind: Interaction.WebSocketMessage.Kind) -> Int {
        switch kind {
        case .text: 1
        case .binary: 2
        case .close: 8
        case .ping: 9
        case .pong: 10
        }
    }

    static func kind(ofOpcode opcode: Int) -> Interaction.WebSocketMessage.Kind? {
        switch opcode {
        case 1: .text
        case 2: .binary
        case 8: .close
        case 9: .ping
        case 10: .pong
        default: nil
        }
    }

    /// The messages of `conversation`, whose `101` arrived `upgradedAt` (seconds since 1970).
    static func tree(for conversation: Interaction.WebSocketConversation, upgradedAt: Double) -> JSONValue {
        .array(
            conversation.messages.map { message in
                var members = [
                    member("type", .string(message.from == .client ? "send" : "receive")),
                    member("time", .number(JSONCassetteCodec.formatSeconds(((upgradedAt + message.at) * 1000).rounded() / 1000))),
                    member("opcode", .number(String(opcode(of: message.kind)))),
                ]
                let asText = message.kind != .binary && Interaction.Body.isWritableAsText(message.data)
                members.append(member("data", .string(asText ? message.text ?? "" : message.data.base64EncodedString())))
                members.append(member("_at", .number(JSONCassetteCodec.formatSeconds(message.at))))
                if let code = message.code { members.append(member("_code", .number(String(code)))) }
                if !asText, message.kind != .binary { members.append(member("_encoding", .string("base64"))) }
                return JSONNode(.object(members))
            })
    }

    private static func member(_ key: String, _ value: JSONValue) -> JSONMember {
        JSONMember(key: key, value: JSONNode(value))
    }
}
