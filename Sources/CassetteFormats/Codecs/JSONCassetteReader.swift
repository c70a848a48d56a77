import Foundation

/// Turns a parsed JSON tree into a ``CassetteDocument``, collecting every problem with its path
/// and byte offset instead of stopping at the first one, so `cassette lint` can list them all.
struct JSONCassetteReader: JSONTreeReading {
    var problems: [(path: JSONPath, offset: Int, message: String)] = []
    /// Large `text` and `base64` bodies left in the file as placeholders, when set (see
    /// ``DeferredBodies``); nil reads every body.
    var deferred: DeferredBodies?
    var misspelt: Set<JSONMisspeltKey> = []
    /// The compact bytes of the `"json"` bodies the parser did not build as trees, by the offset
    /// of their value (``JSONParser/parseCassette(_:keepingStringsLongerThan:release:)``).
    var compactBodies: [Int: Data] = [:]

    // MARK: Document

    mutating func readDocument(_ root: JSONNode) -> CassetteDocument? {
        let path = JSONPath.root
        guard
            let fields = members(
                of: root, at: path, expected: "a cassette object ({ \"version\": 1, \"interactions\": [] })",
                allowed: ["$schema", "version", "recordedWith", "metadata", "interactions"])
        else { return nil }
        guard let versionNode = required("version", in: fields, of: root, at: path, expecting: "1") else { return nil }
        guard let version = readInteger(versionNode, at: path.appending("version"), expected: "the format version 1") else {
            return nil
        }
        guard JSONCassetteCodec.supportedVersions.contains(version) else {
            let supported = JSONCassetteCodec.supportedVersions.map(String.init).joined(separator: ", ")
            report(
                "unsupported format version \(version); this version of Cassette reads version \(supported). A newer Cassette may read it.",
                at: path.appending("version"), offset: versionNode.offset)
            return nil
        }
        let schema = fields["$schema"].flatMap {
            readString($0, at: path.appending("$schema"), expected: "the address of a JSON Schema, a string")
        }
        var recordedWith = fields["recordedWith"].flatMap { readString($0, at: path.appending("recordedWith"), expected: "a string") }
        if let text = recordedWith, let node = fields["recordedWith"], let problem = CassetteRules.recordedWithProblem(text) {
            report(problem, at: path.appending("recordedWith"), offset: node.offset)
            recordedWith = nil
        }
        guard let list = required("interactions", in: fields, of: root, at: path, expecting: "an array of interactions"),
            let elements = readArray(list, at: path.appending("interactions"), expected: "an array of interactions")
        else { return nil }
        var interactions: [Interaction] = []
        interactions.reserveCapacity(elements.count)
        for (i, element) in elements.enumerated() {
            if let interaction = readInteraction(element, at: path.appending("interactions").appending(i)) {
                interactions.append(interaction)
            }
        }
        if fields["$schema"] != nil, schema == nil { return nil }
        var document = CassetteDocument(schema: schema, recordedWith: recordedWith, interactions: interactions)
        if let node = fields["metadata"] {
            guard let metadata = readMetadata(node, at: path.appending("metadata")) else { return nil }
            document.metadata = metadata
        }
        return document
    }

    // MARK: Interaction

    mutating func readInteraction(_ node: JSONNode, at path: JSONPath) -> Interaction? {
        guard
            let fields = members(
                of: node, at: path, expected: "an interaction object",
                allowed: ["recordedAt", "request", "challenges", "response", "error", "timing", "latency", "scenario", "webSocket"])
        else { return nil }
        let recordedAt = fields["recordedAt"].flatMap { readTimestamp($0, at: path.appending("recordedAt")) }
        let request = required("request", in: fields, of: node, at: path, expecting: "an object with \"method\" and \"url\"")
            .flatMap { readRequest($0, at: path.appending("request")) }
        let challenges = readOptional(fields["challenges"], default: []) {
            $0.readChallenges($1, at: path.appending("challenges")) { $0.readResponse($1, at: $2) }
        }
        let response = fields["response"].flatMap { readResponse($0, at: path.appending("response")) }
        let error = fields["error"].flatMap { readError($0, at: path.appending("error")) }
        let timing = fields["timing"].flatMap { readTiming($0, at: path.appending("timing")) }
        let latency = fields["latency"].flatMap { readLatency($0, at: path.appending("latency")) }
        let scenario = fields["scenario"].flatMap {
            readChecked(
                $0, at: path.appending("scenario"), expected: "a line saying what it simulates", rule: CassetteRules.scenarioProblem)
        }
        var webSocket: Interaction.WebSocketConversation?
        if let webSocketNode = fields["webSocket"] {
            webSocket = readWebSocket(webSocketNode, at: path.appending("webSocket"))
            if let conversation = webSocket, fields["response"] == nil || response != nil {
                checkWebSocket(conversation, status: response?.status, node: webSocketNode, at: path.appending("webSocket"))
            }
        }
        if let stream = response?.stream, let streamNode = fields["response"]?.memberValue("stream") {
            checkStream(stream, timing: timing, node: streamNode, at: path.appending("response").appending("stream"))
        }
        if let afterBytes = error?.afterBytes, let errorNode = fields["error"], fields["response"] == nil || response != nil,
            let problem = CassetteRules.afterBytesProblem(
                afterBytes, bodySize: response.map { deferred?.size(of: $0.body) ?? $0.body.data.count })
        {
            let node = errorNode.memberValue("afterBytes") ?? errorNode
            report(problem, at: path.appending("error").appending("afterBytes"), offset: node.offset)
        }
        if fields["response"] == nil, fields["error"] == nil,
            !misspelt.contains(.init(objectOffset: node.offset, key: "response")),
            !misspelt.contains(.init(objectOffset: node.offset, key: "error"))
        {
            report("expected a \"response\", an \"error\", or both", at: path, offset: node.offset)
        }
        guard let request, let challenges else { return nil }
        if fields["webSocket"] != nil, webSocket == nil { return nil }
        return Interaction(
            recordedAt: recordedAt, request: request, challenges: challenges, response: response, error: error, timing: timing,
            latency: latency,
            webSocket: webSocket, scenario: scenario)
    }

    mutating func readRequest(_ node: JSONNode, at path: JSONPath) -> Interaction.Request? {
        guard let fields = members(of: node, at: path, expected: "a request object", allowed: ["method", "url", "headers", "body"]) else {
            return nil
        }
        let method = required("method", in: fields, of: node, at: path, expecting: "an HTTP method like \"GET\"")
            .flatMap {
                readChecked($0, at: path.appending("method"), expected: "an HTTP method like \"GET\"", rule: CassetteRules.methodProblem)
            }
        let url = required("url", in: fields, of: node, at: path, expecting: "an absolute URL")
            .flatMap { readChecked($0, at: path.appending("url"), expected: "an absolute URL", rule: CassetteRules.urlProblem) }
        let headers = readOptional(fields["headers"], default: Interaction.Headers()) { $0.readHeaders($1, at: path.appending("headers")) }
        let body = readOptional(fields["body"], default: Interaction.Body.empty) { $0.readBody($1, at: path.appending("body")) }
        guard let method, let url, let headers, let body else { return nil }
        return Interaction.Request(method: method, url: url, headers: headers, body: body)
    }

    mutating func readResponse(_ node: JSONNode, at path: JSONPath) -> Interaction.Response? {
        guard
            let fields = members(
                of: node, at: path, expected: "a response object", allowed: ["status", "url", "headers", "body", "stream"])
        else {
            return nil
        }
        var status: Int?
        if let statusNode = required("status", in: fields, of: node, at: path, expecting: "an HTTP status like 200"),
            let value = readInteger(statusNode, at: path.appending("status"), expected: "an HTTP status like 200")
        {
            if let problem = CassetteRules.statusProblem(value) {
                report(problem, at: path.appending("status"), offset: statusNode.offset)
            } else {
                status = value
            }
        }
        // `url` is optional; a present but invalid one fails the whole response.
        var url: String?
        var urlIsValid = true
        if let urlNode = fields["url"] {
            url = readChecked(urlNode, at: path.appending("url"), expected: "an absolute URL", rule: CassetteRules.urlProblem)
            urlIsValid = url != nil
        }
        let headers = readOptional(fields["headers"], default: Interaction.Headers()) { $0.readHeaders($1, at: path.appending("headers")) }
        let body = readOptional(fields["body"], default: Interaction.Body.empty) { $0.readBody($1, at: path.appending("body")) }
        var stream: Interaction.StreamedBody?
        if let streamNode = fields["stream"] {
            if let bodyNode = fields["body"] {
                report(
                    "a response has a \"body\" or a \"stream\", not both: remove one", at: path.appending("body"), offset: bodyNode.offset)
                return nil
            }
            guard let read = readStream(streamNode, at: path.appending("stream")) else { return nil }
            stream = read
        }
        guard let status, urlIsValid, let headers, let body else { return nil }
        if let stream { return Interaction.Response(status: status, url: url, headers: headers, stream: stream) }
        return Interaction.Response(status: status, url: url, headers: headers, body: body)
    }

    mutating func readError(_ node: JSONNode, at path: JSONPath) -> Interaction.TransportError? {
        guard
            let fields = members(
                of: node, at: path, expected: "an error object like { \"code\": \"timedOut\" }", allowed: ["code", "afterBytes"]),
            let codeNode = required("code", in: fields, of: node, at: path, expecting: "a URLError.Code name like \"timedOut\"")
        else { return nil }
        var afterBytes: Int?
        if let afterBytesNode = fields["afterBytes"] {
            guard let count = readInteger(afterBytesNode, at: path.appending("afterBytes"), expected: "a number of bytes") else {
                return nil
            }
            afterBytes = count
        }
        return readErrorCode(codeNode, at: path.appending("code")).map { Interaction.TransportError(code: $0, afterBytes: afterBytes) }
    }

    mutating func readErrorCode(_ codeNode: JSONNode, at codePath: JSONPath) -> Interaction.TransportError.Code? {
        switch codeNode.value {
        case .string, .longString:
            let name = codeNode.value.stringValue ?? ""
            if let code = Interaction.TransportError.Code(name: name) {
                return code
            }
            report(CassetteRules.unknownErrorCodeProblem(name), at: codePath, offset: codeNode.offset)
            return nil
        case .number:
            return readInteger(codeNode, at: codePath, expected: "a URLError.Code name or number")
                .map { Interaction.TransportError.Code(rawValue: $0) }
        default:
            report(
                "expected a URLError.Code name like \"timedOut\" or a number like -1001, found \(Self.describe(codeNode.value))",
                at: codePath, offset: codeNode.offset)
            return nil
        }
    }

    mutating func readTiming(_ node: JSONNode, at path: JSONPath) -> Interaction.Timing? {
        guard
            let fields = members(
                of: node, at: path, expected: "a timing object like { \"firstByte\": 0.1, \"duration\": 0.2 }",
                allowed: ["firstByte", "duration"])
        else { return nil }
        guard let timing = readFirstByteAndDuration(fields, of: node, at: path) else { return nil }
        if let problem = CassetteRules.timingProblem(timing) {
            report(problem, at: path, offset: node.offset)
            return nil
        }
        return timing
    }

    // MARK: Headers and bodies

    mutating func readHeaders(_ node: JSONNode, at path: JSONPath) -> Interaction.Headers? {
        guard case .object(let fields) = node.value else {
            report(
                "expected an object of header fields like { \"Accept\": \"text/html\" }, found \(Self.describe(node.value))",
                at: path, offset: node.offset)
            return nil
        }
        var headers = Interaction.Headers()
        var valid = true
        for field in fields {
            let fieldPath = path.appending(field.key)
            if let problem = CassetteRules.headerNameProblem(field.key) {
                report(problem, at: fieldPath, offset: field.keyOffset)
                valid = false
                continue
            }
            if let earlier = headers.field(named: field.key) {
                let message =
                    earlier.name == field.key
                    ? "duplicate key \(CassetteRules.quoted(field.key)); write repeated values as an array: [\"a\", \"b\"]"
                    : "header \(CassetteRules.quoted(field.key)) repeats \(CassetteRules.quoted(earlier.name)) (names ignore case); write repeated values as one array"
                report(message, at: fieldPath, offset: field.keyOffset)
                valid = false
                continue
            }
            let values: [JSONNode]
            var isArray = false
            switch field.value.value {
            case .string, .longString: values = [field.value]
            case .array(let elements) where !elements.isEmpty:
                values = elements
                isArray = true
            default:
                report(
                    "expected a header value (a string) or an array of values, found \(Self.describe(field.value.value))",
                    at: fieldPath, offset: field.value.offset)
                valid = false
                continue
            }
            for (i, valueNode) in values.enumerated() {
                let valuePath = isArray ? fieldPath.appending(i) : fieldPath
                guard let value = valueNode.value.stringValue else {
                    report(
                        "expected a header value (a string), found \(Self.describe(valueNode.value))", at: valuePath,
                        offset: valueNode.offset)
                    valid = false
                    continue
                }
                if let problem = CassetteRules.headerValueProblem(name: field.key, value: value) {
                    report(problem, at: valuePath, offset: valueNode.offset)
                    valid = false
                    continue
                }
                headers.add(field.key, value)
            }
        }
        return valid ? headers : nil
    }

    mutating func readBody(_ node: JSONNode, at path: JSONPath) -> Interaction.Body? {
        if case .string(let text) = node.value {
            return Interaction.Body(unchecked: Data(text.utf8), form: .text)
        }
        if case .longString(let long) = node.value {
            return deferred?.placeholder(for: long, form: .text) ?? Interaction.Body(unchecked: long.copiedBytes, form: .text)
        }
        guard
            let fields = members(
                of: node, at: path, expected: "a body like { \"text\": \"…\" }, { \"json\": … } or { \"base64\": \"…\" }",
                allowed: ["text", "json", "base64", "multipart", "proto", "envelopes"],
                hints: ["file": "body files (\"file\") are not supported yet; inline the body as \"text\", \"json\" or \"base64\""])
        else { return nil }
        guard case .object(let written) = node.value, !written.isEmpty else {
            report("expected one of \"text\", \"json\" or \"base64\" in a body, found an empty object", at: path, offset: node.offset)
            return nil
        }
        // An unknown key was reported by members(of:); a body with two forms is ambiguous.
        guard fields.count == written.count, let form = written.first else { return nil }
        guard fields.count == 1 else {
            let names = written.map { "\"\($0.key)\"" }.joined(separator: " and ")
            report("a body is written in exactly one form; found \(names)", at: path, offset: node.offset)
            return nil
        }
        let formPath = path.appending(form.key)
        let value = form.value
        switch form.key {
        case "text":
            switch value.value {
            case .string(let text):
                return Interaction.Body(unchecked: Data(text.utf8), form: .text)
            case .longString(let long):
                return deferred?.placeholder(for: long, form: .text) ?? Interaction.Body(unchecked: long.copiedBytes, form: .text)
            case .array(let lines):
                var data = Data()
                for (i, line) in lines.enumerated() {
                    guard let text = line.value.stringValue else {
                        report(
                            "expected a line of text (a string), found \(Self.describe(line.value))", at: formPath.appending(i),
                            offset: line.offset)
                        return nil
                    }
                    data.append(contentsOf: text.utf8)
                }
                return Interaction.Body(unchecked: data, form: .text)
            default:
                report(
                    "expected text (a string, or an array of lines), found \(Self.describe(value.value))", at: formPath,
                    offset: value.offset)
                return nil
            }
        case "multipart":
            return readMultipart(value, at: formPath)
        case "proto":
            return readProtobufBody(value, at: formPath)
        case "envelopes":
            return readEnvelopesBody(value, at: formPath)
        case "json":
            if let compact = compactBodies[value.offset] { return Interaction.Body(unchecked: compact, form: .json) }
            if let duplicate = value.value.firstDuplicateKey() {
                report(
                    "duplicate key \(CassetteRules.quoted(duplicate.key)) in a JSON body",
                    at: JSONPath(formPath.components + duplicate.path.components), offset: duplicate.offset)
                return nil
            }
            return Interaction.Body(unchecked: Data(JSONWriter.compact(value.value)), form: .json)
        default:  // base64
            let decoded: Data?
            switch value.value {
            case .string(let encoded): decoded = Base64.decode(encoded.utf8, allowingWhitespace: false)
            // Decoded from the file's bytes: a copy of a long base64 text as a String would double it.
            case .longString(let long):
                if let placeholder = deferred?.placeholder(for: long, form: .base64) { return placeholder }
                decoded = long.base64Decoded
            default:
                report("expected base64 text (a string), found \(Self.describe(value.value))", at: formPath, offset: value.offset)
                return nil
            }
            guard let data = decoded else {
                report(Self.base64Problem(value.value.stringValue ?? ""), at: formPath, offset: value.offset)
                return nil
            }
            return Interaction.Body(unchecked: data, form: .base64)
        }
    }

    /// `{ "boundary": "…", "parts": [ { "name": …, "filename": …, "contentType": …, "headers": {…},
    /// "text" | "json" | "base64": … } ] }`, serialized as ``Multipart/serialized()`` writes it.
    mutating func readMultipart(_ node: JSONNode, at path: JSONPath) -> Interaction.Body? {
        guard
            let fields = members(
                of: node, at: path, expected: "a multipart body like { \"boundary\": \"…\", \"parts\": [ … ] }",
                allowed: ["boundary", "parts"])
        else { return nil }
        let boundary = required("boundary", in: fields, of: node, at: path, expecting: "the boundary, a string")
            .flatMap {
                readChecked(
                    $0, at: path.appending("boundary"), expected: "the boundary, a string", rule: CassetteRules.multipartBoundaryProblem)
            }
        let partNodes = required("parts", in: fields, of: node, at: path, expecting: "an array of parts")
            .flatMap { readArray($0, at: path.appending("parts"), expected: "an array of parts") }
        guard let boundary, let partNodes else { return nil }
        var parts: [Multipart.Part] = []
        var valid = true
        for (i, partNode) in partNodes.enumerated() {
            if let part = readPart(partNode, at: path.appending("parts").appending(i)) { parts.append(part) } else { valid = false }
        }
        guard valid else { return nil }
        if parts.isEmpty {
            report("a multipart body needs at least one part", at: path.appending("parts"), offset: node.offset)
            return nil
        }
        return Interaction.Body(unchecked: Multipart(boundary: boundary, parts: parts).serialized(), form: .multipart)
    }

    mutating func readPart(_ node: JSONNode, at path: JSONPath) -> Multipart.Part? {
        let forms = ["text", "json", "base64"]
        guard
            let fields = members(
                of: node, at: path, expected: "a part like { \"name\": \"title\", \"text\": \"…\" }",
                allowed: ["name", "filename", "contentType", "headers"] + forms)
        else { return nil }
        var valid = true
        func parameter(_ key: String) -> String? {
            guard let value = fields[key] else { return nil }
            guard
                let text = readChecked(value, at: path.appending(key), expected: "a string", rule: CassetteRules.multipartParameterProblem)
            else {
                valid = false
                return nil
            }
            return text
        }
        let name = parameter("name")
        let filename = parameter("filename")
        let contentType = fields["contentType"].flatMap { node -> String? in
            let text = readChecked(node, at: path.appending("contentType"), expected: "a media type, a string") {
                CassetteRules.headerValueProblem(name: "Content-Type", value: $0)
            }
            if text == nil { valid = false }
            return text
        }
        let headers = readOptional(fields["headers"], default: Interaction.Headers()) { $0.readHeaders($1, at: path.appending("headers")) }
        if headers == nil { valid = false }
        let written = forms.filter { fields[$0] != nil }
        var body = Data()
        if written.count > 1 {
            report(
                "a part's body is written in exactly one form; found " + written.map { "\"\($0)\"" }.joined(separator: " and "), at: path,
                offset: node.offset)
            valid = false
        } else if let form = written.first, let formNode = fields[form] {
            let single = JSONNode(.object([JSONMember(key: form, value: formNode)]), offset: node.offset)
            // A part is read whole, never left in the file: a placeholder's bytes would become its body.
            let deferring = deferred
            deferred = nil
            if let read = readBody(single, at: path) { body = read.data } else { valid = false }
            deferred = deferring
        }
        guard valid, let headers else { return nil }
        var part = Multipart.Part(name: name, filename: filename, contentType: contentType, otherHeaders: headers, body: body)
        if part.keepsHeadersAsWritten {
            if name != nil || filename != nil || contentType != nil {
                report(
                    "this part's \"headers\" hold its Content-Disposition, so \"name\", \"filename\" and \"contentType\" cannot be given too; "
                        + "write them in one place", at: path, offset: node.offset)
                return nil
            }
            part.adoptFieldsFromHeaders()
        } else if name == nil, filename != nil || contentType != nil {
            report(
                "a part with a \"filename\" or \"contentType\" needs a \"name\" (its Content-Disposition is written from them)",
                at: path, offset: node.offset)
            return nil
        }
        return part
    }

    static func base64Problem(_ text: String) -> String {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".unicodeScalars)
        for (i, scalar) in text.unicodeScalars.enumerated() where !alphabet.contains(scalar) {
            let shown = scalar.properties.isWhitespace ? "white space" : "'\(scalar)'"
            return "invalid base64: \(shown) at character \(i + 1); expected A–Z, a–z, 0–9, '+', '/' and '=' padding, on one line"
        }
        if text.utf8.count % 4 != 0 {
            return "invalid base64: its length (\(text.utf8.count)) is not a multiple of 4; is '=' padding missing?"
        }
        return "invalid base64: '=' padding may only end the text"
    }

    /// `read(node)` when the field is present, `defaultValue` when it is absent, nil when it is invalid.
    mutating func readOptional<T>(
        _ node: JSONNode?, default defaultValue: T, _ read: (inout JSONCassetteReader, JSONNode) -> T?
    ) -> T? {
        guard let node else { return defaultValue }
        return read(&self, node)
    }
}
