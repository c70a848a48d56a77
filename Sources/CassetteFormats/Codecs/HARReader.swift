import Foundation

/// Turns a parsed HAR 1.2 tree into a ``CassetteDocument``.
///
/// HAR files come from many tools, each adding fields of its own, so only the fields an
/// interaction needs are read and everything else is ignored. What is read must be right, and
/// every problem is collected with its path and byte offset. The `_cassette` object, which only
/// Cassette writes, is read strictly: an unknown key there is a typo.
struct HARReader: JSONTreeReading {
    var problems: [(path: JSONPath, offset: Int, message: String)] = []
    var misspelt: Set<JSONMisspeltKey> = []

    mutating func readDocument(_ root: JSONNode) -> CassetteDocument {
        var document = CassetteDocument()
        guard let log = requiredObject("log", in: root, at: .root, expecting: "the HAR \"log\" object") else { return document }
        let logPath = JSONPath.root.appending("log")
        if let versionNode = log.memberValue("version") {
            var version: String?
            if let text = versionNode.value.stringValue { version = text }
            if !["", "1.1", "1.2"].contains(version ?? "?") {
                report(
                    "unsupported HAR version \(Self.describe(versionNode.value)); Cassette reads HAR 1.1 and 1.2",
                    at: logPath.appending("version"), offset: versionNode.offset)
            }
        }
        if let creator = log.memberValue("creator"), let name = creator.memberValue("name")?.value.stringValue {
            let version: String
            version = creator.memberValue("version")?.value.stringValue ?? ""
            document.recordedWith = HARCassetteCodec.recordedWith(name: name, version: version)
            if let text = document.recordedWith, let problem = CassetteRules.recordedWithProblem(text) {
                report(problem, at: logPath.appending("creator"), offset: creator.offset)
            }
        }
        if let extras = log.memberValue("_cassette") {
            let path = logPath.appending("_cassette")
            if case .object(let members) = extras.value {
                for member in members {
                    if member.key == "metadata" {
                        if let metadata = readMetadata(member.value, at: path.appending("metadata")) { document.metadata = metadata }
                    } else if member.key == "recordedWith", let text = member.value.value.stringValue {
                        document.recordedWith = text
                        if let problem = CassetteRules.recordedWithProblem(text) {
                            report(problem, at: path.appending("recordedWith"), offset: member.value.offset)
                        }
                    } else {
                        report(
                            member.key == "recordedWith"
                                ? "expected recordedWith to be a string, found \(Self.describe(member.value.value))"
                                : "unknown field \(CassetteRules.quoted(member.key)) in Cassette's fields of the log; expected recordedWith or metadata",
                            at: path.appending(member.key), offset: member.keyOffset)
                    }
                }
            } else {
                report(
                    "expected Cassette's object of extra fields, found \(Self.describe(extras.value))", at: path,
                    offset: extras.offset)
            }
        }
        guard let entriesNode = required("entries", in: log, at: logPath, expecting: "an array of entries"),
            let entries = readArray(entriesNode, at: logPath.appending("entries"), expected: "an array of entries")
        else { return document }
        for (i, entry) in entries.enumerated() {
            if let interaction = readEntry(entry, at: logPath.appending("entries").appending(i)) {
                document.interactions.append(interaction)
            }
        }
        return document
    }

    // MARK: Entry

    mutating func readEntry(_ node: JSONNode, at path: JSONPath) -> Interaction? {
        guard isObject(node, at: path, expected: "an entry object") else { return nil }
        let problemsBefore = problems.count
        let extras = readExtras(node.memberValue("_cassette"), at: path.appending("_cassette"))

        // Required by HAR, but an interaction does without: a hand-written entry may leave it out.
        let recordedAt =
            extras.undated
            ? nil
            : node.memberValue("startedDateTime").flatMap {
                readTimestamp($0, at: path.appending("startedDateTime"), expected: "an ISO 8601 time (a string)")
            }
        let request = requiredObject("request", in: node, at: path, expecting: "the request object")
            .flatMap { readRequest($0, at: path.appending("request")) }
        var response = requiredObject("response", in: node, at: path, expecting: "the response object")
            .flatMap { readResponse($0, at: path.appending("response")) }

        var challenges: [Interaction.Challenge]? = []
        if let challengesNode = node.memberValue("_challenges") {
            challenges = readChallenges(challengesNode, at: path.appending("_challenges")) { reader, node, path in
                switch reader.readResponse(node, at: path) {
                case .some(.some(let response)): return response
                case .some(nil):
                    reader.report("a challenge is a 401 or 407 response, found 0", at: path.appending("status"), offset: node.offset)
                    return nil
                case nil: return nil
                }
            }
        }
        var error = extras.error
        if case .some(nil) = response {
            // Status 0: the request got no response, the way browsers export a failed request.
            error = error ?? Interaction.TransportError(code: Self.browserErrorCode(node.memberValue("_error")))
        }
        if let url = extras.responseURL {
            if case .some(.some(var found)) = response {
                found.url = url
                response = found
            } else {
                report(
                    "responseURL needs a response with a status", at: path.appending("_cassette").appending("responseURL"),
                    offset: node.offset)
            }
        }
        let finalResponse = response.flatMap { $0 }
        if let afterBytes = error?.afterBytes,
            let problem = CassetteRules.afterBytesProblem(afterBytes, bodySize: finalResponse?.body.data.count)
        {
            report(problem, at: path.appending("_cassette").appending("error").appending("afterBytes"), offset: node.offset)
        }

        var timing: Interaction.Timing?
        if !extras.untimed, let timingsNode = node.memberValue("timings") {
            timing = readTimings(timingsNode, at: path.appending("timings"))
            if let exact = extras.timing, let derived = timing,
                abs(exact.firstByte - derived.firstByte) < 0.001, abs(exact.duration - derived.duration) < 0.001
            {
                timing = exact  // Cassette's own value, which milliseconds would have rounded
            }
        }
        if let stream = finalResponse?.stream {
            let chunksPath = path.appending("response").appending("content").appending("_chunks")
            let elements: [JSONNode]
            if case .array(let array)? = node.memberValue("response")?.memberValue("content")?.memberValue("_chunks")?.value {
                elements = array
            } else {
                elements = []
            }
            for problem in CassetteRules.streamProblems(stream, timing: timing) {
                let place = problem.chunk.map { chunksPath.appending($0) } ?? chunksPath
                let offset = problem.chunk.flatMap { $0 < elements.count ? elements[$0].offset : nil } ?? node.offset
                report(problem.message, at: problem.field.map { place.appending($0) } ?? place, offset: offset)
            }
        }
        var webSocket: Interaction.WebSocketConversation?
        if let messagesNode = node.memberValue("_webSocketMessages") {
            let messagesPath = path.appending("_webSocketMessages")
            let upgradedAt = (recordedAt?.timeIntervalSince1970 ?? 0) + (timing?.firstByte ?? 0)
            webSocket = readWebSocketMessages(messagesNode, upgradedAt: upgradedAt, at: messagesPath)
            if let conversation = webSocket {
                let elements: [JSONNode]
                if case .array(let array) = messagesNode.value { elements = array } else { elements = [] }
                for problem in CassetteRules.webSocketProblems(conversation, status: finalResponse?.status) {
                    let place = problem.index.map { messagesPath.appending($0) } ?? messagesPath
                    let offset = problem.index.flatMap { $0 < elements.count ? elements[$0].offset : nil } ?? messagesNode.offset
                    report(problem.message, at: place, offset: offset)
                }
            }
        }
        guard problems.count == problemsBefore, let request, let challenges else { return nil }
        return Interaction(
            recordedAt: recordedAt, request: request, challenges: challenges, response: finalResponse, error: error,
            timing: timing, latency: extras.latency, webSocket: webSocket, scenario: extras.scenario)
    }

    /// `_webSocketMessages` as Chrome exports them (and Cassette's `_at`, `_code`, `_encoding`).
    mutating func readWebSocketMessages(
        _ node: JSONNode, upgradedAt: Double, at path: JSONPath
    ) -> Interaction.WebSocketConversation? {
        guard let elements = readArray(node, at: path, expected: "an array of WebSocket messages") else { return nil }
        var messages: [Interaction.WebSocketMessage] = []
        for (index, element) in elements.enumerated() {
            let messagePath = path.appending(index)
            guard isObject(element, at: messagePath, expected: "a WebSocket message object"),
                let typeNode = required("type", in: element, at: messagePath, expecting: "\"send\" or \"receive\""),
                let type = readString(typeNode, at: messagePath.appending("type"), expected: "\"send\" or \"receive\" (a string)"),
                let opcodeNode = required(
                    "opcode", in: element, at: messagePath, expecting: "an opcode: 1 text, 2 binary, 8 close, 9 ping, 10 pong"),
                let opcode = readInteger(opcodeNode, at: messagePath.appending("opcode"), expected: "an opcode")
            else { return nil }
            guard type == "send" || type == "receive" else {
                report(
                    "expected \"send\" or \"receive\", found \(CassetteRules.quoted(type))", at: messagePath.appending("type"),
                    offset: typeNode.offset)
                return nil
            }
            guard let kind = HARWebSocketMessages.kind(ofOpcode: opcode) else {
                report(
                    "unknown opcode \(opcode): expected 1 text, 2 binary, 8 close, 9 ping or 10 pong", at: messagePath.appending("opcode"),
                    offset: opcodeNode.offset)
                return nil
            }
            var at: Double
            if let exact = element.memberValue("_at") {
                guard let value = readSeconds(exact, at: messagePath.appending("_at")) else { return nil }
                at = value
            } else {
                guard
                    let timeNode = required("time", in: element, at: messagePath, expecting: "the time it was sent, in seconds since 1970"),
                    case .number(let literal) = timeNode.value, let time = Double(literal), time.isFinite
                else { return nil }
                at = max(0, ((time - upgradedAt) * 1000).rounded() / 1000)
            }
            let text = element.memberValue("data").flatMap { $0.value.stringValue } ?? ""
            var data = Data(text.utf8)
            let base64 = kind == .binary || element.memberValue("_encoding")?.value.stringValue == "base64"
            if base64 {
                guard let decoded = Data(base64Encoded: text) else {
                    report(
                        "expected the message's data in base64", at: messagePath.appending("data"),
                        offset: element.memberValue("data")?.offset ?? element.offset)
                    return nil
                }
                data = decoded
            }
            var code: Int?
            if let codeNode = element.memberValue("_code") {
                guard let value = readInteger(codeNode, at: messagePath.appending("_code"), expected: "a close code") else { return nil }
                code = value
            }
            messages.append(
                Interaction.WebSocketMessage(from: type == "send" ? .client : .server, at: at, kind: kind, data: data, code: code))
        }
        return Interaction.WebSocketConversation(messages: messages)
    }

    // MARK: Request and response

    mutating func readRequest(_ node: JSONNode, at path: JSONPath) -> Interaction.Request? {
        let method = required("method", in: node, at: path, expecting: "an HTTP method")
            .flatMap {
                readChecked($0, at: path.appending("method"), expected: "an HTTP method (a string)", rule: CassetteRules.methodProblem)
            }
        let url = required("url", in: node, at: path, expecting: "an absolute URL")
            .flatMap { readChecked($0, at: path.appending("url"), expected: "an absolute URL (a string)", rule: CassetteRules.urlProblem) }
        let headers = readHeaders(node.memberValue("headers"), at: path.appending("headers"))
        var body = Interaction.Body.empty
        if let postData = node.memberValue("postData") {
            body = readPostData(postData, contentType: headers?["Content-Type"], at: path.appending("postData")) ?? .empty
        }
        guard let method, let url, let headers else { return nil }
        return Interaction.Request(method: method, url: url, headers: headers, body: body)
    }

    /// The response; `.some(nil)` for status 0 (no response); nil when it cannot be read.
    mutating func readResponse(_ node: JSONNode, at path: JSONPath) -> Interaction.Response?? {
        guard let statusNode = required("status", in: node, at: path, expecting: "an HTTP status"),
            let status = readInteger(statusNode, at: path.appending("status"), expected: "an HTTP status")
        else { return nil }
        if status == 0 { return .some(nil) }
        if let problem = CassetteRules.statusProblem(status) {
            report(problem, at: path.appending("status"), offset: statusNode.offset)
            return nil
        }
        guard let headers = readHeaders(node.memberValue("headers"), at: path.appending("headers")) else { return nil }
        var body = Interaction.Body.empty
        if let content = node.memberValue("content") {
            guard let read = readContent(content, contentType: headers["Content-Type"], at: path.appending("content")) else { return nil }
            body = read
            if let chunksNode = content.memberValue("_chunks") {
                guard let stream = readChunks(chunksNode, body: body.data, at: path.appending("content").appending("_chunks")) else {
                    return nil
                }
                return .some(Interaction.Response(status: status, headers: headers, stream: stream))
            }
        }
        return .some(Interaction.Response(status: status, headers: headers, body: body))
    }

    /// Cassette's extension `"_chunks": [{ "at": SECONDS, "size": BYTES }]`: the body of a
    /// streamed response cut into the chunks it arrived in.
    mutating func readChunks(_ node: JSONNode, body: Data, at path: JSONPath) -> Interaction.StreamedBody? {
        guard let elements = readArray(node, at: path, expected: "an array of { \"at\", \"size\" } objects") else { return nil }
        var pieces: [(at: TimeInterval, size: Int)] = []
        for (i, element) in elements.enumerated() {
            let elementPath = path.appending(i)
            guard isObject(element, at: elementPath, expected: "a { \"at\", \"size\" } object"),
                let atNode = required("at", in: element, at: elementPath, expecting: "seconds from the start of the request"),
                let at = readSeconds(atNode, at: elementPath.appending("at")),
                let sizeNode = required("size", in: element, at: elementPath, expecting: "the chunk's size in bytes"),
                let size = readInteger(sizeNode, at: elementPath.appending("size"), expected: "the chunk's size in bytes")
            else { return nil }
            guard size > 0 else {
                report("a chunk holds at least one byte, found size \(size)", at: elementPath.appending("size"), offset: sizeNode.offset)
                return nil
            }
            pieces.append((at, size))
        }
        guard let stream = Interaction.StreamedBody(cutting: body, into: pieces) else {
            report(
                "the chunks hold \(pieces.reduce(0) { $0 + $1.size }) bytes but the response body holds \(body.count); their sizes add up to the body",
                at: path, offset: node.offset)
            return nil
        }
        return stream
    }

    /// `[{ "name": …, "value": … }]`, leaving out HTTP/2 pseudo-headers (`:authority`), which
    /// are not headers a URLSession caller sees.
    mutating func readHeaders(_ node: JSONNode?, at path: JSONPath) -> Interaction.Headers? {
        guard let node else { return Interaction.Headers() }
        guard let elements = readArray(node, at: path, expected: "an array of { \"name\", \"value\" } objects") else { return nil }
        var headers = Interaction.Headers()
        var valid = true
        for (i, element) in elements.enumerated() {
            let elementPath = path.appending(i)
            guard isObject(element, at: elementPath, expected: "a { \"name\", \"value\" } object"),
                let nameNode = required("name", in: element, at: elementPath, expecting: "the header name"),
                let name = readString(nameNode, at: elementPath.appending("name"), expected: "the header name (a string)"),
                let valueNode = required("value", in: element, at: elementPath, expecting: "the header value"),
                let value = readString(valueNode, at: elementPath.appending("value"), expected: "the header value (a string)")
            else {
                valid = false
                continue
            }
            if name.hasPrefix(":") { continue }
            if let problem = CassetteRules.headerNameProblem(name) {
                report(problem, at: elementPath.appending("name"), offset: nameNode.offset)
                valid = false
            } else if let problem = CassetteRules.headerValueProblem(name: name, value: value) {
                report(problem, at: elementPath.appending("value"), offset: valueNode.offset)
                valid = false
            } else {
                headers.add(name, value)
            }
        }
        return valid ? headers : nil
    }

    mutating func readPostData(_ node: JSONNode, contentType: String?, at path: JSONPath) -> Interaction.Body? {
        guard isObject(node, at: path, expected: "a postData object") else { return nil }
        let multipart = Multipart.isFormData(contentType: contentType)
        if let textNode = node.memberValue("text") {
            let encoding = node.memberValue("_encoding") ?? node.memberValue("encoding")
            let body = readText(textNode, encoding: encoding, contentType: contentType, at: path)
            // Cassette writes a multipart body's parts as params too, for reading: an edit to one
            // that is not made to the other must not be lost without a word.
            if multipart, let body, let paramsNode = node.memberValue("params"),
                let written = try? Multipart.parse(body.data, contentType: contentType),
                let parts = readMultipartParams(paramsNode, at: path.appending("params")),
                Multipart(boundary: written.boundary, parts: parts).serialized() != body.data
            {
                report(
                    "\"params\" and \"text\" disagree about this multipart body; edit one of them and delete the other",
                    at: path.appending("params"), offset: paramsNode.offset)
                return nil
            }
            return body
        }
        guard let paramsNode = node.memberValue("params") else { return .empty }
        if multipart {
            // Only the parts: rebuilt with the boundary of the media type.
            guard let boundary = contentType.flatMap(Multipart.boundary(inContentType:)) else {
                report(
                    "a multipart body given only as \"params\" needs a boundary in \"mimeType\" (multipart/form-data; boundary=…)",
                    at: path.appending("mimeType"), offset: node.offset)
                return nil
            }
            guard let parts = readMultipartParams(paramsNode, at: path.appending("params")) else { return nil }
            return Interaction.Body(read: Multipart(boundary: boundary, parts: parts).serialized(), contentType: contentType)
        }
        // Some tools give only the form fields: rebuild the urlencoded body.
        guard let params = readArray(paramsNode, at: path.appending("params"), expected: "an array of { \"name\", \"value\" } objects")
        else {
            return nil
        }
        var fields: [String] = []
        for (i, param) in params.enumerated() {
            let paramPath = path.appending("params").appending(i)
            guard let nameNode = required("name", in: param, at: paramPath, expecting: "the field name"),
                let name = readString(nameNode, at: paramPath.appending("name"), expected: "the field name (a string)")
            else { return nil }
            var value = ""
            if let valueNode = param.memberValue("value") {
                guard let text = readString(valueNode, at: paramPath.appending("value"), expected: "the field value (a string)") else {
                    return nil
                }
                value = text
            }
            fields.append(Self.formEncoded(name) + "=" + Self.formEncoded(value))
        }
        return Interaction.Body(read: Data(fields.joined(separator: "&").utf8), contentType: contentType)
    }

    /// HAR's `params` of a multipart body: `name`, `value`, and optionally `fileName` and
    /// `contentType`, one per part.
    mutating func readMultipartParams(_ node: JSONNode, at path: JSONPath) -> [Multipart.Part]? {
        guard let params = readArray(node, at: path, expected: "an array of { \"name\", \"value\" } objects") else { return nil }
        var parts: [Multipart.Part] = []
        for (i, param) in params.enumerated() {
            let paramPath = path.appending(i)
            guard let nameNode = required("name", in: param, at: paramPath, expecting: "the part's name"),
                let name = readString(nameNode, at: paramPath.appending("name"), expected: "the part's name (a string)")
            else { return nil }
            func optional(_ key: String, _ expected: String) -> String?? {
                guard let value = param.memberValue(key) else { return .some(nil) }
                guard let text = readString(value, at: paramPath.appending(key), expected: expected + " (a string)") else { return nil }
                return .some(text)
            }
            guard let value = optional("value", "the part's text"), let fileName = optional("fileName", "the file name"),
                let partType = optional("contentType", "the part's media type")
            else { return nil }
            for (key, text) in [("name", name), ("fileName", fileName ?? "")] {
                if let problem = CassetteRules.multipartParameterProblem(text) {
                    report(problem, at: paramPath.appending(key), offset: param.offset)
                    return nil
                }
            }
            parts.append(Multipart.Part(name: name, filename: fileName, contentType: partType, body: Data((value ?? "").utf8)))
        }
        return parts
    }

    mutating func readContent(_ node: JSONNode, contentType: String?, at path: JSONPath) -> Interaction.Body? {
        guard isObject(node, at: path, expected: "a content object") else { return nil }
        // A tool that did not keep the body leaves "text" out; the body is then empty.
        guard let textNode = node.memberValue("text") else { return .empty }
        return readText(textNode, encoding: node.memberValue("encoding"), contentType: contentType, at: path)
    }

    /// `text`, base64-decoded when `encoding` is "base64".
    mutating func readText(_ textNode: JSONNode, encoding: JSONNode?, contentType: String?, at path: JSONPath) -> Interaction.Body? {
        if case .longString(let long) = textNode.value, encoding.flatMap({ $0.value.stringValue }) == "base64" || encoding == nil {
            // Read from the file's bytes: a copy of a long body as a String would double it.
            guard encoding != nil else { return Interaction.Body(read: long.copiedBytes, contentType: contentType) }
            if let data = Base64.decode(long.bytes, allowingWhitespace: true) { return Interaction.Body(unchecked: data, form: .base64) }
        }
        guard let text = readString(textNode, at: path.appending("text"), expected: "the body as text (a string)") else { return nil }
        guard let encoding else { return Interaction.Body(read: Data(text.utf8), contentType: contentType) }
        guard encoding.value.stringValue == "base64" else {
            report(
                "expected the encoding \"base64\" (or no encoding for text), found \(Self.describe(encoding.value))",
                at: path.appending("encoding"), offset: encoding.offset)
            return nil
        }
        // Some tools wrap base64 in lines: white space is skipped.
        guard let data = Base64.decode(text.utf8, allowingWhitespace: true) else {
            let compact = String(decoding: text.utf8.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }, as: UTF8.self)
            report(JSONCassetteReader.base64Problem(compact), at: path.appending("text"), offset: textNode.offset)
            return nil
        }
        return Interaction.Body(unchecked: data, form: .base64)
    }

    /// First byte: `blocked + dns + connect + send + wait`, those that are not -1 (`ssl` is part
    /// of `connect`); duration: that `+ receive`.
    mutating func readTimings(_ node: JSONNode, at path: JSONPath) -> Interaction.Timing? {
        guard isObject(node, at: path, expected: "a timings object") else { return nil }
        var beforeFirstByte = 0.0
        var receive = 0.0
        for key in ["blocked", "dns", "connect", "send", "wait", "receive"] {
            guard let valueNode = node.memberValue(key) else { continue }
            guard case .number(let literal) = valueNode.value, let ms = Double(literal), ms.isFinite else {
                report(
                    "expected a number of milliseconds (or -1 for not applicable), found \(Self.describe(valueNode.value))",
                    at: path.appending(key), offset: valueNode.offset)
                return nil
            }
            if ms == -1 { continue }  // HAR's "not applicable"
            guard ms >= 0 else {
                report(
                    "expected a number of milliseconds, zero or more, or -1 for not applicable, found \(literal)",
                    at: path.appending(key), offset: valueNode.offset)
                return nil
            }
            if key == "receive" { receive = ms } else { beforeFirstByte += ms }
        }
        let timing = HARCassetteCodec.timing(beforeFirstByte: beforeFirstByte, receive: receive)
        if let problem = CassetteRules.timingProblem(timing) {
            report(problem, at: path, offset: node.offset)
            return nil
        }
        return timing
    }

    // MARK: Values

    /// The member `key` of the object `node`, itself an object.
    mutating func requiredObject(_ key: String, in node: JSONNode, at path: JSONPath, expecting: String) -> JSONNode? {
        guard isObject(node, at: path, expected: "an object"), let value = required(key, in: node, at: path, expecting: expecting),
            isObject(value, at: path.appending(key), expected: expecting)
        else { return nil }
        return value
    }
}
