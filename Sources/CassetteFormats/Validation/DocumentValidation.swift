import Foundation

extension CassetteDocument {
    /// Everything that would stop this document from being written and read back, with the
    /// JSON path of each value: a `recordedWith` with a line break, an interaction with neither response nor error, a status outside
    /// 100–599, a relative URL, a method or header name that is not an HTTP token, a header value
    /// with a line break, a negative or inconsistent timing or latency, a streamed body whose chunks
    /// go back in time or come before the response head, an `afterBytes` beyond
    /// the body, a `recordedAt` outside the years 0000–9999, a WebSocket conversation that breaks
    /// RFC 6455's rules or follows a response other than `101`.
    ///
    /// Empty when the document is valid. Codecs call this before writing.
    package func problems() -> [CassetteFormatError.Problem] {
        var problems: [CassetteFormatError.Problem] = []
        func check(_ problem: String?, _ path: JSONPath) {
            if let problem { problems.append(.init(path: path, message: problem)) }
        }
        func checkHeaders(_ headers: Interaction.Headers, _ path: JSONPath) {
            for field in headers.fields {
                check(CassetteRules.headerNameProblem(field.name), path.appending(field.name))
                for value in field.values {
                    check(CassetteRules.headerValueProblem(name: field.name, value: value), path.appending(field.name))
                }
            }
        }
        if let recordedWith {
            check(CassetteRules.recordedWithProblem(recordedWith), .root.appending("recordedWith"))
        }
        for key in metadata.keys.sorted() {
            check(CassetteRules.metadataKeyProblem(key) ?? metadata[key]?.problem, .root.appending("metadata").appending(key))
        }
        for (i, interaction) in interactions.enumerated() {
            let path = JSONPath([.key("interactions"), .index(i)])
            if let recordedAt = interaction.recordedAt, Timestamp.format(recordedAt) == nil {
                check("recordedAt must fall in the years 0000 to 9999, found \(recordedAt)", path.appending("recordedAt"))
            }
            let request = path.appending("request")
            check(CassetteRules.methodProblem(interaction.request.method), request.appending("method"))
            check(CassetteRules.urlProblem(interaction.request.url), request.appending("url"))
            checkHeaders(interaction.request.headers, request.appending("headers"))
            for (index, challenge) in interaction.challenges.enumerated() {
                let place = path.appending("challenges").appending(index)
                check(CassetteRules.challengeMethodProblem(challenge.method), place.appending("method"))
                if let realm = challenge.realm { check(CassetteRules.challengeRealmProblem(realm), place.appending("realm")) }
                if let problem = CassetteRules.challengeResponseProblem(challenge.response) {
                    check(problem.message, place.appending("response").appending(problem.field))
                }
                checkHeaders(challenge.response.headers, place.appending("response").appending("headers"))
            }
            if let response = interaction.response {
                check(CassetteRules.statusProblem(response.status), path.appending("response").appending("status"))
                if let url = response.url { check(CassetteRules.urlProblem(url), path.appending("response").appending("url")) }
                checkHeaders(response.headers, path.appending("response").appending("headers"))
            }
            if interaction.response == nil, interaction.error == nil {
                check("expected a \"response\", an \"error\", or both", path)
            }
            if let afterBytes = interaction.error?.afterBytes {
                check(
                    CassetteRules.afterBytesProblem(afterBytes, bodySize: interaction.response?.body.data.count),
                    path.appending("error").appending("afterBytes"))
            }
            if let timing = interaction.timing {
                check(CassetteRules.timingProblem(timing), path.appending("timing"))
            }
            if let response = interaction.response, let stream = response.stream {
                let streamPath = path.appending("response").appending("stream")
                let list = streamPath.appending(stream.listName(contentType: response.headers["Content-Type"]))
                for problem in CassetteRules.streamProblems(stream, timing: interaction.timing) {
                    let chunkPath = problem.chunk.map { list.appending($0) } ?? streamPath
                    check(problem.message, problem.field.map { chunkPath.appending($0) } ?? chunkPath)
                }
            }
            if let problem = interaction.latency?.problem {
                check(problem, path.appending("latency"))
            }
            if let scenario = interaction.scenario {
                check(CassetteRules.scenarioProblem(scenario), path.appending("scenario"))
            }
            if let conversation = interaction.webSocket {
                let messages = path.appending("webSocket").appending("messages")
                for problem in CassetteRules.webSocketProblems(conversation, status: interaction.response?.status) {
                    let messagePath = problem.index.map { messages.appending($0) } ?? path.appending("webSocket")
                    check(problem.message, problem.field.map { messagePath.appending($0) } ?? messagePath)
                }
            }
        }
        return problems
    }
}

extension CassetteDocument {
    /// What is valid but probably not meant, with the JSON path of each value: today, a response
    /// whose `Content-Length` its body does not keep (a body edited by hand). A replay keeps that
    /// promise as the wire would (``Interaction/Response/declaredBodyLength(answering:)``), so `cassette lint`
    /// warns about it; nothing here stops a cassette from being read or written.
    package func warnings() -> [CassetteFormatError.Problem] {
        var warnings: [CassetteFormatError.Problem] = []
        for (i, interaction) in interactions.enumerated() {
            guard interaction.error == nil, let response = interaction.response,
                let declared = response.declaredBodyLength(answering: interaction.request.method)
            else {
                continue
            }
            let size = response.body.data.count
            guard declared != size else { continue }
            let replay =
                declared > size
                ? "a replay delivers the \(size) bytes, then fails with networkConnectionLost"
                : "a replay delivers the first \(declared) bytes"
            let name = response.headers.field(named: "Content-Length")?.name ?? "Content-Length"
            warnings.append(
                .init(
                    path: JSONPath([.key("interactions"), .index(i), .key("response"), .key("headers"), .key(name)]),
                    message: "Content-Length is \(declared) but the body holds \(size) bytes: \(replay), as live. "
                        + "If the body was edited, set Content-Length to \(size) or remove it."))
        }
        return warnings + rpcWarnings()
    }

    /// ``warnings()`` with the line and column of each in `data`, the file this document was read
    /// from in `format`: where the header's value is written. A warning whose place cannot be
    /// found keeps its path alone.
    package func warnings(locatedIn data: Data, format: CassetteFormat) -> [CassetteFormatError.Problem] {
        let warnings = warnings()
        guard !warnings.isEmpty else { return warnings }
        if format == .httpMessages {
            let places = HTTPMessageCassetteCodec.placesOfHeaders(in: data)
            return warnings.map { warning in
                var located = warning
                if let path = warning.path, let place = places[path] { (located.line, located.column) = place }
                return located
            }
        }
        guard let root = try? JSONParser.parse(data) else { return warnings }
        var positions = SourcePositions(data)
        return warnings.map { warning in
            guard let path = warning.path, let node = root.node(at: format == .har ? Self.harPath(of: path, in: root) : path)
            else { return warning }
            var located = warning
            (located.line, located.column) = positions.position(of: node.offset)
            return located
        }
    }

    /// Where HAR keeps what `path` names in a cassette: `interactions[i].response.headers[NAME]` is
    /// `log.entries[i].response.headers[k].value`, `k` the first header named NAME.
    private static func harPath(of path: JSONPath, in root: JSONNode) -> JSONPath {
        let steps = path.components
        guard steps.count == 5, steps[0] == .key("interactions"), steps[2] == .key("response"), steps[3] == .key("headers"),
            case .index(let i) = steps[1], case .key(let name) = steps[4],
            let headers = root.node(at: [.key("log"), .key("entries"), .index(i), .key("response"), .key("headers")]),
            case .array(let fields) = headers.value,
            let k = fields.firstIndex(where: { $0.memberValue("name")?.value.stringValue?.lowercased() == name.lowercased() })
        else { return path }
        return [.key("log"), .key("entries"), .index(i), .key("response"), .key("headers"), .index(k), .key("value")]
    }
}
