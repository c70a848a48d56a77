import Foundation

extension Interaction {
    /// What followed a WebSocket upgrade answered with `101 Switching Protocols`: the messages
    /// both sides sent, each with the moment it was sent, in order.
    ///
    /// In a JSON cassette, beside the `101` response; `at` counts seconds from the `101`:
    ///
    /// ```json
    /// "response": { "status": 101, "headers": { "Upgrade": "websocket", "Connection": "Upgrade" } },
    /// "webSocket": { "messages": [
    ///   { "from": "client", "at": 0.012, "kind": "text", "json": { "say": "hello" } },
    ///   { "from": "server", "at": 0.015, "kind": "text", "json": { "echo": { "say": "hello" } } },
    ///   { "from": "server", "at": 0.4, "kind": "binary", "base64": "AAECAw==" },
    ///   { "from": "server", "at": 1.2, "kind": "close", "code": 1000, "reason": "done" }
    /// ] }
    /// ```
    ///
    /// Edit it to simulate what a server does: move a message's `at`, change what it says, cut the
    /// conversation with a `close` (`"code": 1011`) after any message, or end the list without a
    /// close to drop the connection.
    public struct WebSocketConversation: Sendable, Equatable {
        /// The messages, in the order they were sent.
        public var messages: [WebSocketMessage]

        /// A conversation of `messages`.
        public init(messages: [WebSocketMessage] = []) {
            self.messages = messages
        }
    }

    /// One WebSocket message: who sent it, when, what kind, and what it carried.
    public struct WebSocketMessage: Sendable, Equatable {
        /// Which end sent it.
        public enum Sender: String, Sendable, Equatable, CaseIterable {
            case client
            case server
        }

        /// What it is (RFC 6455's data and control frames).
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            case text
            case binary
            case ping
            case pong
            case close
        }

        /// Which end sent it.
        public var from: Sender
        /// Seconds from the `101` response to the message.
        public var at: TimeInterval
        /// What it is: text, binary, ping, pong or close.
        public var kind: Kind
        /// What it carried: a text message's UTF-8, the bytes of a binary message, a ping or a
        /// pong, or a close's reason in UTF-8.
        public var data: Data
        /// A close's code (nil: a close without one, and every other kind).
        public var code: Int?

        /// A message from its parts.
        public init(from: Sender, at: TimeInterval, kind: Kind, data: Data = Data(), code: Int? = nil) {
            self.from = from
            self.at = at
            self.kind = kind
            self.data = data
            self.code = code
        }

        /// A text message.
        public static func text(_ text: String, from: Sender, at: TimeInterval) -> WebSocketMessage {
            WebSocketMessage(from: from, at: at, kind: .text, data: Data(text.utf8))
        }

        /// A close, with its code and reason.
        public static func close(code: Int?, reason: String = "", from: Sender, at: TimeInterval) -> WebSocketMessage {
            WebSocketMessage(from: from, at: at, kind: .close, data: Data(reason.utf8), code: code)
        }

        /// The payload as text, when it is UTF-8 (a text message's, a close's reason).
        public var text: String? { UTF8Validation.isValid(data) ? String(decoding: data, as: UTF8.self) : nil }
    }
}

extension CassetteRules {
    /// What is wrong with a conversation, message by message (nil index: the conversation):
    /// messages out of order in time, a message from a side after its close, a second close from
    /// one side, a text message or close reason that is not UTF-8, a control frame's payload over
    /// 125 bytes, a close code that may not be sent, a code on anything but a close — and a
    /// conversation after a response that is not `101`.
    package static func webSocketProblems(
        _ conversation: Interaction.WebSocketConversation, status: Int?
    ) -> [(index: Int?, field: String?, message: String)] {
        var problems: [(index: Int?, field: String?, message: String)] = []
        if status != 101 {
            problems.append(
                (
                    nil, nil,
                    "a WebSocket conversation follows a 101 Switching Protocols response, "
                        + (status.map { "not a \($0)" } ?? "and this interaction has no response")
                ))
        }
        var closed: Set<Interaction.WebSocketMessage.Sender> = []
        var last: TimeInterval = 0
        for (index, message) in conversation.messages.enumerated() {
            if let problem = secondsProblem("at", message.at) {
                problems.append((index, "at", problem))
            } else if message.at < last {
                problems.append(
                    (
                        index, "at",
                        "this message is sent at \(JSONCassetteCodec.formatSeconds(message.at)) s, before the one above it "
                            + "(\(JSONCassetteCodec.formatSeconds(last)) s): messages are listed in the order they were sent, and "
                            + "\"at\" counts seconds from the 101 response"
                    ))
            }
            if message.at.isFinite { last = max(last, message.at) }
            if closed.contains(message.from) {
                problems.append(
                    (
                        index, "from",
                        "the \(message.from.rawValue) already closed the connection: nothing it sends can follow its close (move or remove this message)"
                    ))
            }
            switch message.kind {
            case .text:
                if !UTF8Validation.isValid(message.data) { problems.append((index, nil, "a text message must be UTF-8")) }
            case .ping, .pong, .close:
                if message.data.count > (message.kind == .close ? 123 : 125) {
                    problems.append(
                        (
                            index, message.kind == .close ? "reason" : nil,
                            "a \(message.kind.rawValue) carries at most \(message.kind == .close ? 123 : 125) bytes, found \(message.data.count)"
                        ))
                }
            case .binary:
                break
            }
            if message.kind == .close {
                closed.insert(message.from)
                if !UTF8Validation.isValid(message.data) { problems.append((index, "reason", "a close reason must be UTF-8")) }
                if let code = message.code, !(0...0xFFFF).contains(code) || !WebSocketCloseCode.isSendable(UInt16(code)) {
                    problems.append(
                        (index, "code", "close code \(code) may not be sent: use 1000–1003, 1007–1011, or 3000–4999 (RFC 6455, 7.4)"))
                }
                if message.code == nil, !message.data.isEmpty {
                    problems.append((index, "reason", "a close with a reason needs a code"))
                }
            } else if message.code != nil {
                problems.append((index, "code", "only a close has a code"))
            }
        }
        return problems
    }
}
