import Foundation

// Connect and gRPC-Web bodies in a JSON cassette, message by message (Interaction.Body's
// `protobuf` and `envelopes` forms), written and read back to the same bytes:
//
//     "body": { "proto": [ { "field": 1, "varint": 150 }, { "field": 2, "text": "ada" } ] }
//
//     "body": { "envelopes": [
//         { "proto": [ { "field": 1, "message": [ { "field": 1, "varint": 7 } ] } ] },
//         { "json": { "id": 7 } },
//         { "flags": 1, "base64": "H4sIAAAA…" },
//         { "trailers": [ "grpc-status: 0", "grpc-message: " ] },
//         { "endStream": { "error": { "code": "unavailable" } } },
//         { "cut": "AAAAAA==" }
//     ] }
//
// A protobuf field is its number and one value: `varint`, `fixed64`, `fixed32` (numbers),
// `text`, `message` (fields) or `base64`; with a FileDescriptorSet beside the cassette
// (ProtobufSchema), also its `name`, which is shown and never read back. An envelope is its
// payload as `proto`, `json`, `text` or `base64`, with `flags` when they are not 0; `trailers`
// (flags 0x80, gRPC-Web) and `endStream` (flags 0x02, Connect) name the last message; `cut` holds
// the bytes of a stream cut in the middle of an envelope, last.

extension JSONCassetteCodec {
    /// The schema that names a body's fields and the message the body holds (a method's input
    /// for a request, its output for a response): see ``ProtobufSchema``.
    struct MessageNames {
        let schema: ProtobufSchema
        let message: String
    }

    /// `{ "proto": [ … ] }`, or nil when `data` is not a canonical protobuf message.
    static func protobufTree(_ data: Data, names: MessageNames?) -> JSONValue? {
        ProtobufWire.decode(data).map { .object([member("proto", tree(for: $0, names: names, depth: 0))]) }
    }

    /// `{ "envelopes": [ … ] }`.
    static func envelopesTree(_ data: Data, names: MessageNames?) -> JSONValue {
        let framed = RPCEnvelope.split(data)
        var elements = framed.envelopes.map { JSONNode(tree(for: $0, names: names)) }
        if !framed.rest.isEmpty { elements.append(JSONNode(.object([member("cut", .base64(framed.rest))]))) }
        return .object([member("envelopes", .array(elements))])
    }

    /// `{ "envelopes": [ { "at": 0.1, … } ] }` for a stream whose chunks are each one envelope,
    /// the last perhaps cut short (``Interaction/StreamedBody/isCutAtEnvelopes``).
    static func envelopesStreamTree(_ stream: Interaction.StreamedBody, names: MessageNames?) -> JSONValue {
        let elements = stream.chunks.map { chunk -> JSONNode in
            let framed = RPCEnvelope.split(chunk.data)
            let at = member("at", .number(formatSeconds(chunk.at)))
            guard let envelope = framed.envelopes.first, case .object(let members) = tree(for: envelope, names: names) else {
                return JSONNode(.object([at, member("cut", .base64(framed.rest))]))
            }
            return JSONNode(.object([at] + members))
        }
        return .object([member("envelopes", .array(elements))])
    }

    private static func tree(for envelope: RPCEnvelope, names: MessageNames?) -> JSONValue {
        let payload: JSONMember
        switch envelope.content {
        case .trailers(let lines): return .object([member("trailers", .array(lines.map { JSONNode(.string($0)) }))])
        case .endStream(let value): return .object([member("endStream", value)])
        case .json(let value): payload = member("json", value)
        case .proto(let fields): payload = member("proto", tree(for: fields, names: names, depth: 0))
        case .text(let text): payload = member("text", .string(text))
        case .bytes(let data): payload = member("base64", .base64(data))
        }
        return .object(envelope.flags == 0 ? [payload] : [member("flags", .number(String(envelope.flags))), payload])
    }

    /// Each field `{ "field": N, VALUE }`, with `"name"` after the number where `names` declares
    /// it; a length-delimited value is shown as the schema says it is — a
    /// message's fields, or a string's or bytes' text or base64 — when that reading holds the
    /// same bytes, else as the wire reads best.
    private static func tree(for fields: [ProtobufWire.Field], names: MessageNames?, depth: Int) -> JSONValue {
        let declared = names.flatMap { $0.schema.fields(of: $0.message) }
        return .array(
            fields.map { field in
                let named = declared?[field.number]
                let value: JSONMember
                switch field.value {
                case .varint(let number): value = member("varint", .number(String(number)))
                case .fixed64(let number): value = member("fixed64", .number(String(number)))
                case .fixed32(let number): value = member("fixed32", .number(String(number)))
                case .delimited(let delimited):
                    value = tree(for: delimited, declared: named?.kind, in: names?.schema, depth: depth)
                }
                var members = [member("field", .number(String(field.number)))]
                if let named { members.append(member("name", .string(named.name))) }
                return JSONNode(.object(members + [value]))
            })
    }

    private static func tree(
        for delimited: ProtobufWire.Delimited, declared kind: ProtobufSchema.Kind?, in schema: ProtobufSchema?, depth: Int
    ) -> JSONMember {
        // The reader takes messages nested less than ProtobufWire.maximumDepth deep.
        if case .message(let type)? = kind, let schema, depth + 1 < ProtobufWire.maximumDepth {
            let inner: [ProtobufWire.Field]?
            if case .message(let fields) = delimited { inner = fields } else { inner = ProtobufWire.decode(delimited.data) }
            if let inner {
                return member("message", tree(for: inner, names: MessageNames(schema: schema, message: type), depth: depth + 1))
            }
        }
        switch delimited {
        case .text(let text): return member("text", .string(text))
        case .message(let inner):
            // A string, bytes or packed numbers whose bytes happen to read as fields: shown as bytes.
            if let kind, kind == .text || kind == .bytes || kind == .scalar { return member("base64", .base64(delimited.data)) }
            return member("message", tree(for: inner, names: nil, depth: depth + 1))
        case .bytes(let data): return member("base64", .base64(data))
        }
    }

    private static func member(_ key: String, _ value: JSONValue) -> JSONMember {
        JSONMember(key: key, value: JSONNode(value))
    }
}

/// gRPC-Web's trailers frame: HTTP/1 header lines, each ended by CRLF.
package enum RPCTrailerLines {
    /// The lines of `payload` without their CRLFs, or nil when it is not such lines (joined back
    /// by ``payload(of:)`` to the same bytes).
    package static func lines(of payload: Data) -> [String]? {
        guard payload.count >= 2, payload.suffix(2).elementsEqual([0x0D, 0x0A]), Interaction.Body.isWritableAsText(payload) else {
            return nil
        }
        // Cut at each CR LF, by bytes: to a String, "\r\n" is one character.
        var lines: [String] = []
        var start = payload.startIndex
        var index = payload.startIndex
        let end = payload.endIndex - 2
        while index <= end {
            if payload[index] == 0x0D, payload[index + 1] == 0x0A {
                lines.append(String(decoding: payload[start..<index], as: UTF8.self))
                index += 2
                start = index
            } else if payload[index] == 0x0D || payload[index] == 0x0A {
                return nil  // a lone CR or LF: not a line of its own
            } else {
                index += 1
            }
        }
        return lines
    }

    /// The payload of `lines`: each followed by CRLF.
    package static func payload(of lines: [String]) -> Data {
        Data(lines.map { $0 + "\r\n" }.joined().utf8)
    }
}

extension JSONCassetteReader {
    /// A body's `"proto"`: the fields, encoded.
    mutating func readProtobufBody(_ node: JSONNode, at path: JSONPath) -> Interaction.Body? {
        readFields(node, at: path, depth: 0).map { Interaction.Body(unchecked: ProtobufWire.encode($0), form: .protobuf) }
    }

    /// A body's `"envelopes"`: each framed, then the cut bytes.
    mutating func readEnvelopesBody(_ node: JSONNode, at path: JSONPath) -> Interaction.Body? {
        readEnvelopeElements(node, at: path, timed: false).map {
            Interaction.Body(unchecked: $0.reduce(into: Data()) { $0.append($1.bytes) }, form: .envelopes)
        }
    }

    /// A stream's `"envelopes"`: each with its `"at"`, one chunk each.
    mutating func readEnvelopesStream(_ node: JSONNode, at path: JSONPath) -> Interaction.StreamedBody? {
        readEnvelopeElements(node, at: path, timed: true).map {
            Interaction.StreamedBody(chunks: $0.map { Interaction.StreamedBody.Chunk(at: $0.at, data: $0.bytes) })
        }
    }

    /// The elements of an `"envelopes"` list: each envelope's bytes (framed), or the cut bytes
    /// last; with their `"at"` in a stream (0 in a body).
    private mutating func readEnvelopeElements(_ node: JSONNode, at path: JSONPath, timed: Bool) -> [(at: TimeInterval, bytes: Data)]? {
        guard let elements = readArray(node, at: path, expected: "an array of envelopes") else { return nil }
        var read: [(at: TimeInterval, bytes: Data)] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index)
            var at: TimeInterval = 0
            if timed {
                guard let atNode = element.memberValue("at") else {
                    report(
                        "missing required field \"at\" (the seconds from the start of the request to the envelope's arrival)",
                        at: elementPath, offset: element.offset)
                    valid = false
                    continue
                }
                guard let seconds = readSeconds(atNode, at: elementPath.appending("at")) else {
                    valid = false
                    continue
                }
                at = seconds
            }
            if let cut = element.memberValue("cut") {
                guard index == elements.count - 1, case .object(let members) = element.value, members.count == (timed ? 2 : 1) else {
                    report(
                        "\"cut\" stands alone, in the last envelope: the bytes of a stream cut short", at: elementPath,
                        offset: element.offset)
                    valid = false
                    continue
                }
                guard let bytes = readBase64(cut, at: elementPath.appending("cut")) else {
                    valid = false
                    continue
                }
                read.append((at, bytes))
            } else if let envelope = readEnvelope(element, at: elementPath, timed: timed) {
                read.append((at, envelope.framed))
            } else {
                valid = false
            }
        }
        return valid ? read : nil
    }

    private mutating func readEnvelope(_ node: JSONNode, at path: JSONPath, timed: Bool) -> RPCEnvelope? {
        let payloads = ["proto", "json", "text", "base64", "trailers", "endStream"]
        guard
            let fields = members(
                of: node, at: path, expected: "an envelope like { \"proto\": [ … ] } or { \"trailers\": [ … ] }",
                allowed: (timed ? ["at"] : []) + ["flags"] + payloads)
        else { return nil }
        guard let (key, value) = one(of: payloads, in: fields, of: node, at: path, saying: "an envelope holds one payload") else {
            return nil
        }
        var flags: UInt8 = 0
        if let written = fields["flags"] {
            guard ["trailers", "endStream"].contains(key) == false else {
                report("\"\(key)\" sets its own flags; remove \"flags\"", at: path.appending("flags"), offset: written.offset)
                return nil
            }
            guard let number = readInteger(written, at: path.appending("flags"), expected: "the flags byte"), (0...255).contains(number)
            else {
                if case .number = written.value {
                    report("the flags byte is 0 to 255", at: path.appending("flags"), offset: written.offset)
                }
                return nil
            }
            flags = UInt8(number)
        }
        let valuePath = path.appending(key)
        switch key {
        case "trailers":
            return readStrings(value, at: valuePath, expected: "the trailers, an array of header lines").map {
                RPCEnvelope(flags: RPCEnvelope.trailers, payload: RPCTrailerLines.payload(of: $0))
            }
        case "endStream", "json":
            guard let duplicate = value.value.firstDuplicateKey() else {
                return RPCEnvelope(flags: key == "json" ? flags : RPCEnvelope.endOfStream, payload: Data(JSONWriter.compact(value.value)))
            }
            report(
                "duplicate key \(CassetteRules.quoted(duplicate.key)) in a JSON message",
                at: JSONPath(valuePath.components + duplicate.path.components), offset: duplicate.offset)
            return nil
        case "proto":
            return readFields(value, at: valuePath, depth: 0).map { RPCEnvelope(flags: flags, payload: ProtobufWire.encode($0)) }
        case "text":
            return readString(value, at: valuePath, expected: "text, a string").map { RPCEnvelope(flags: flags, payload: Data($0.utf8)) }
        default:  // base64
            return readBase64(value, at: valuePath).map { RPCEnvelope(flags: flags, payload: $0) }
        }
    }

    /// `[ { "field": 1, "varint": 150 }, … ]`.
    private mutating func readFields(_ node: JSONNode, at path: JSONPath, depth: Int) -> [ProtobufWire.Field]? {
        guard let elements = readArray(node, at: path, expected: "an array of protobuf fields, like [ { \"field\": 1, \"varint\": 150 } ]")
        else { return nil }
        var fields: [ProtobufWire.Field] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            if let field = readField(element, at: path.appending(index), depth: depth) { fields.append(field) } else { valid = false }
        }
        return valid ? fields : nil
    }

    private mutating func readField(_ node: JSONNode, at path: JSONPath, depth: Int) -> ProtobufWire.Field? {
        let kinds = ["varint", "fixed64", "fixed32", "text", "message", "base64"]
        guard
            let fields = members(
                of: node, at: path, expected: "a protobuf field like { \"field\": 1, \"varint\": 150 }",
                allowed: ["field", "name"] + kinds)
        else { return nil }
        // The field's name, written from a FileDescriptorSet beside the cassette, is shown only:
        // the number says which field it is.
        if let name = fields["name"], readString(name, at: path.appending("name"), expected: "the field's name, a string") == nil {
            return nil
        }
        let number = required("field", in: fields, of: node, at: path, expecting: "the field's number, 1 to 536870911")
            .flatMap { readInteger($0, at: path.appending("field"), expected: "the field's number") }
        guard let (kind, value) = one(of: kinds, in: fields, of: node, at: path, saying: "a protobuf field holds one value"),
            let number
        else { return nil }
        guard (1...ProtobufWire.maximumFieldNumber).contains(number) else {
            report(
                "a field's number is 1 to 536870911, found \(number)", at: path.appending("field"),
                offset: fields["field"]?.offset ?? node.offset)
            return nil
        }
        let valuePath = path.appending(kind)
        func unsigned(_ maximum: UInt64) -> UInt64? {
            guard case .number(let literal) = value.value, let parsed = UInt64(literal), parsed <= maximum else {
                report(
                    "expected a whole number from 0 to \(maximum), found \(Self.describe(value.value))", at: valuePath, offset: value.offset
                )
                return nil
            }
            return parsed
        }
        switch kind {
        case "varint": return unsigned(.max).map { ProtobufWire.Field(number, .varint($0)) }
        case "fixed64": return unsigned(.max).map { ProtobufWire.Field(number, .fixed64($0)) }
        case "fixed32": return unsigned(UInt64(UInt32.max)).map { ProtobufWire.Field(number, .fixed32(UInt32($0))) }
        case "text":
            return readString(value, at: valuePath, expected: "text, a string").map { ProtobufWire.Field(number, .delimited(.text($0))) }
        case "message":
            guard depth + 1 < ProtobufWire.maximumDepth else {
                report(
                    "messages nest at most \(ProtobufWire.maximumDepth) deep; write a deeper one as \"base64\"", at: valuePath,
                    offset: value.offset)
                return nil
            }
            return readFields(value, at: valuePath, depth: depth + 1).map { ProtobufWire.Field(number, .delimited(.message($0))) }
        default:  // base64
            return readBase64(value, at: valuePath).map { ProtobufWire.Field(number, .delimited(.bytes($0))) }
        }
    }

    /// The one of `keys` that `fields` (of `node`) holds, with its value; nil, with "`rule`: KEYS;
    /// found …" reported, when it holds none or several — none that a misspelt key already
    /// explains is not reported again.
    private mutating func one(
        of keys: [String], in fields: JSONFields, of node: JSONNode, at path: JSONPath, saying rule: String
    ) -> (key: String, value: JSONNode)? {
        let written = keys.filter { fields[$0] != nil }
        if written.count == 1, let key = written.first, let value = fields[key] { return (key, value) }
        if written.isEmpty, keys.contains(where: { misspelt.contains(.init(objectOffset: node.offset, key: $0)) }) { return nil }
        let quoted = keys.map { "\"\($0)\"" }
        let list = quoted.dropLast().joined(separator: ", ") + " or " + (quoted.last ?? "")
        let found = written.isEmpty ? "none" : written.map { "\"\($0)\"" }.joined(separator: " and ")
        report("\(rule): \(list); found \(found)", at: path, offset: node.offset)
        return nil
    }

    /// The bytes of base64 text; nil, with the problem reported, for anything else.
    private mutating func readBase64(_ node: JSONNode, at path: JSONPath) -> Data? {
        guard let text = readString(node, at: path, expected: "base64 text, a string") else { return nil }
        guard let bytes = Base64.decode(text.utf8, allowingWhitespace: false) else {
            report(Self.base64Problem(text), at: path, offset: node.offset)
            return nil
        }
        return bytes
    }
}
