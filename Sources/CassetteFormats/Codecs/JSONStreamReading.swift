import Foundation

/// Reading a response's `"stream"` (``Interaction/StreamedBody``): `{ "events": [ … ] }` or
/// `{ "chunks": [ … ] }`, each element `{ "at": SECONDS, … }` holding one server-sent event's
/// fields (events only) or a body form (`text`, `json`, `base64`); or `{ "envelopes": [ … ] }`,
/// each element an envelope with its `"at"` (JSONRPCBodies.swift).
extension JSONCassetteReader {
    private static let eventFields = ["event", "id", "retry", "comment", "data"]
    private static let chunkForms = ["text", "json", "base64"]

    mutating func readStream(_ node: JSONNode, at path: JSONPath) -> Interaction.StreamedBody? {
        guard
            let fields = members(
                of: node, at: path, expected: "a stream like { \"events\": [ … ] } or { \"chunks\": [ … ] }",
                allowed: ["events", "chunks", "envelopes"])
        else { return nil }
        guard fields.count == 1, let (key, listNode) = fields.first else {
            if fields.isEmpty, case .object(let written) = node.value, written.isEmpty {
                report(
                    "expected \"events\" (server-sent events) or \"chunks\" in a stream, found an empty object", at: path,
                    offset: node.offset)
            } else if fields.count > 1 {
                report("a stream is written as \"events\", \"chunks\" or \"envelopes\", one of them", at: path, offset: node.offset)
            }
            return nil
        }
        let listPath = path.appending(key)
        if key == "envelopes" { return readEnvelopesStream(listNode, at: listPath) }
        guard let elements = readArray(listNode, at: listPath, expected: "an array of \(key)") else { return nil }
        var chunks: [Interaction.StreamedBody.Chunk] = []
        var valid = true
        for (i, element) in elements.enumerated() {
            if let chunk = readChunk(element, allowsEvents: key == "events", at: listPath.appending(i)) {
                chunks.append(chunk)
            } else {
                valid = false
            }
        }
        return valid ? Interaction.StreamedBody(chunks: chunks) : nil
    }

    private mutating func readChunk(_ node: JSONNode, allowsEvents: Bool, at path: JSONPath) -> Interaction.StreamedBody.Chunk? {
        let expected =
            allowsEvents
            ? "an event like { \"at\": 0.2, \"data\": \"…\" } or a chunk like { \"at\": 0.2, \"text\": \"…\" }"
            : "a chunk like { \"at\": 0.2, \"text\": \"…\" }"
        guard
            let fields = members(
                of: node, at: path, expected: expected, allowed: (allowsEvents ? Self.eventFields : []) + Self.chunkForms + ["at"],
                hints: allowsEvents
                    ? [:]
                    : Dictionary(
                        uniqueKeysWithValues: Self.eventFields.map {
                            (
                                $0,
                                "\"\($0)\" is a field of a server-sent event: events are read from \"events\" (a stream whose "
                                    + "Content-Type is text/event-stream); a chunk holds \"text\", \"json\" or \"base64\""
                            )
                        }))
        else { return nil }
        guard let atNode = fields["at"] else {
            report(
                "missing required field \"at\" (the seconds from the start of the request to the chunk's arrival)", at: path,
                offset: node.offset)
            return nil
        }
        let at = readSeconds(atNode, at: path.appending("at"))
        guard case .object(let written) = node.value else { return nil }
        let forms = written.filter { Self.chunkForms.contains($0.key) }
        let eventMembers = written.filter { Self.eventFields.contains($0.key) }
        if !forms.isEmpty {
            guard eventMembers.isEmpty else {
                report(
                    "a chunk holds either an event's fields or its bytes (\"text\", \"json\" or \"base64\"), not both", at: path,
                    offset: node.offset)
                return nil
            }
            let body = readBody(JSONNode(.object(forms), offset: node.offset), at: path)
            guard let at, let body else { return nil }
            return Interaction.StreamedBody.Chunk(at: at, data: body.data)
        }
        guard !eventMembers.isEmpty else {
            // An unknown key was reported by members(of:), with the name it was probably meant to be.
            guard fields.count == written.count else { return nil }
            report(
                "expected the fields of an event (\"data\", \"event\", \"id\", \"retry\", \"comment\") or a chunk's bytes (\"text\", "
                    + "\"json\" or \"base64\") beside \"at\"", at: path, offset: node.offset)
            return nil
        }
        guard let event = readEvent(eventMembers, at: path), let at else { return nil }
        return Interaction.StreamedBody.Chunk(at: at, event: event)
    }

    private mutating func readEvent(_ members: [JSONMember], at path: JSONPath) -> ServerSentEvent? {
        var fields: [ServerSentEvent.Field] = []
        var valid = true
        for member in members {
            let memberPath = path.appending(member.key)
            let value = member.value
            switch member.key {
            case "retry":
                if let milliseconds = readInteger(value, at: memberPath, expected: "milliseconds") {
                    fields.append(.retry(milliseconds))
                } else {
                    valid = false
                }
            case "data":
                switch value.value {
                case .string, .longString:
                    fields.append(.data(value.value.stringValue ?? ""))
                case .object, .array:
                    if let duplicate = value.value.firstDuplicateKey() {
                        report(
                            "duplicate key \(CassetteRules.quoted(duplicate.key)) in an event's JSON data",
                            at: JSONPath(memberPath.components + duplicate.path.components), offset: duplicate.offset)
                        valid = false
                    } else {
                        fields.append(.data(String(decoding: JSONWriter.compact(value.value), as: UTF8.self)))
                    }
                default:
                    report(
                        "expected an event's data as a string, or as a JSON object or array, found \(Self.describe(value.value))",
                        at: memberPath, offset: value.offset)
                    valid = false
                }
            default:
                guard let text = readString(value, at: memberPath, expected: "a string") else {
                    valid = false
                    continue
                }
                switch member.key {
                case "event": fields.append(.event(text))
                case "id": fields.append(.id(text))
                default: fields.append(.comment(text))
                }
            }
        }
        guard valid else { return nil }
        let event = ServerSentEvent(fields: fields)
        if let problem = event.firstProblem {
            let offending = problem.field.flatMap { field in members.first { $0.key == field } }
            report(
                problem.message, at: offending.map { path.appending($0.key) } ?? path,
                offset: offending?.value.offset ?? members[0].keyOffset)
            return nil
        }
        return event
    }

    /// Reports the stream's ordering and timing problems (``CassetteRules/streamProblems(_:timing:)``)
    /// at the chunks that have them.
    mutating func checkStream(_ stream: Interaction.StreamedBody, timing: Interaction.Timing?, node: JSONNode, at path: JSONPath) {
        guard case .object(let written) = node.value, let list = written.first else { return }
        let elements: [JSONNode]
        if case .array(let array) = list.value.value { elements = array } else { elements = [] }
        for problem in CassetteRules.streamProblems(stream, timing: timing) {
            guard let index = problem.chunk, index < elements.count else {
                report(problem.message, at: path, offset: node.offset)
                continue
            }
            var chunkPath = path.appending(list.key).appending(index)
            var offset = elements[index].offset
            if let field = problem.field, let fieldNode = elements[index].memberValue(field) {
                chunkPath = chunkPath.appending(field)
                offset = fieldNode.offset
            }
            report(problem.message, at: chunkPath, offset: offset)
        }
    }
}
