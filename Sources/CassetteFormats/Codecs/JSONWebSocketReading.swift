import Foundation

/// Reading an interaction's `webSocket` member (``Interaction/WebSocketConversation``).
extension JSONCassetteReader {
    static let messageForms = ["text", "json", "base64"]

    mutating func readWebSocket(_ node: JSONNode, at path: JSONPath) -> Interaction.WebSocketConversation? {
        guard let fields = members(of: node, at: path, expected: "a conversation like { \"messages\": [ … ] }", allowed: ["messages"])
        else { return nil }
        guard let listNode = fields["messages"] else {
            report("missing required field \"messages\" (the conversation's messages, in order)", at: path, offset: node.offset)
            return nil
        }
        let listPath = path.appending("messages")
        guard let elements = readArray(listNode, at: listPath, expected: "an array of messages") else { return nil }
        var messages: [Interaction.WebSocketMessage] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            if let message = readMessage(element, at: listPath.appending(index)) {
                messages.append(message)
            } else {
                valid = false
            }
        }
        return valid ? Interaction.WebSocketConversation(messages: messages) : nil
    }

    private mutating func readMessage(_ node: JSONNode, at path: JSONPath) -> Interaction.WebSocketMessage? {
        let expected = "a message like { \"from\": \"client\", \"at\": 0.2, \"kind\": \"text\", \"text\": \"…\" }"
        guard
            let fields = members(
                of: node, at: path, expected: expected, allowed: ["from", "at", "kind", "code", "reason"] + Self.messageForms)
        else { return nil }
        var valid = true
        func need(_ key: String, _ what: String) -> JSONNode? {
            if let value = fields[key] { return value }
            report("missing required field \"\(key)\" (\(what))", at: path, offset: node.offset)
            valid = false
            return nil
        }
        var from: Interaction.WebSocketMessage.Sender?
        if let fromNode = need("from", "\"client\" or \"server\""),
            let text = readString(fromNode, at: path.appending("from"), expected: "\"client\" or \"server\"")
        {
            from = Interaction.WebSocketMessage.Sender(rawValue: text)
            if from == nil {
                report(
                    "expected \"client\" or \"server\", found \(CassetteRules.quoted(text))", at: path.appending("from"),
                    offset: fromNode.offset)
            }
        }
        let at = need("at", "seconds from the 101 response to the message").flatMap { readSeconds($0, at: path.appending("at")) }
        var kind: Interaction.WebSocketMessage.Kind?
        let kinds = Interaction.WebSocketMessage.Kind.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        if let kindNode = need("kind", kinds), let text = readString(kindNode, at: path.appending("kind"), expected: "one of \(kinds)") {
            kind = Interaction.WebSocketMessage.Kind(rawValue: text)
            if kind == nil {
                report(
                    "unknown kind \(CassetteRules.quoted(text)): expected one of \(kinds)", at: path.appending("kind"),
                    offset: kindNode.offset)
            }
        }
        var code: Int?
        if let codeNode = fields["code"] {
            code = readInteger(codeNode, at: path.appending("code"), expected: "a close code like 1000")
            if code == nil { valid = false }
        }
        guard case .object(let written) = node.value else { return nil }
        let forms = written.filter { Self.messageForms.contains($0.key) }
        var data = Data()
        if let reasonNode = fields["reason"] {
            guard forms.isEmpty else {
                report(
                    "a close's reason is written as \"reason\", not beside \"text\", \"json\" or \"base64\"", at: path.appending("reason"),
                    offset: reasonNode.offset)
                return nil
            }
            if kind != nil, kind != .close {
                report(
                    "only a close has a \"reason\"; a \(kind?.rawValue ?? "") message holds \"text\", \"json\" or \"base64\"",
                    at: path.appending("reason"), offset: reasonNode.offset)
                valid = false
            }
            guard let reason = readString(reasonNode, at: path.appending("reason"), expected: "the close's reason, as text") else {
                return nil
            }
            data = Data(reason.utf8)
        } else if !forms.isEmpty {
            guard let body = readBody(JSONNode(.object(forms), offset: node.offset), at: path) else { return nil }
            data = body.data
        }
        guard valid, let from, let at, let kind else { return nil }
        return Interaction.WebSocketMessage(from: from, at: at, kind: kind, data: data, code: code)
    }

    /// Reports the conversation's problems (``CassetteRules/webSocketProblems(_:status:)``) at the
    /// messages that have them.
    mutating func checkWebSocket(_ conversation: Interaction.WebSocketConversation, status: Int?, node: JSONNode, at path: JSONPath) {
        let elements: [JSONNode]
        if let list = node.memberValue("messages"), case .array(let array) = list.value { elements = array } else { elements = [] }
        for problem in CassetteRules.webSocketProblems(conversation, status: status) {
            guard let index = problem.index, index < elements.count else {
                report(problem.message, at: path, offset: node.offset)
                continue
            }
            var messagePath = path.appending("messages").appending(index)
            var offset = elements[index].offset
            if let field = problem.field, let fieldNode = elements[index].memberValue(field) {
                messagePath = messagePath.appending(field)
                offset = fieldNode.offset
            }
            report(problem.message, at: messagePath, offset: offset)
        }
    }
}
