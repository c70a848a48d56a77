import Foundation

/// Reads and writes JSON cassettes, format version 1.
///
/// ```swift
/// let data = try Data(contentsOf: url)
/// let document = try JSONCassetteCodec.decode(data, file: url.path)
/// let bytes = try JSONCassetteCodec.encode(document)   // same document → same bytes
/// ```
///
/// Reading is strict, because cassettes are edited by hand and a typo must not pass unnoticed:
/// unknown fields, duplicate keys, wrong types and out-of-range values are errors, each reported
/// with its JSON path, line and column (``CassetteFormatError``). Writing is deterministic and
/// meant for review: two-space indentation, a fixed key order, optional fields omitted, short
/// objects on one line, multi-line text bodies as an array of lines, and a trailing newline.
package enum JSONCassetteCodec {
    /// From how many bytes a string of a cassette is read from the file's bytes when needed.
    package static let longString = 64 * 1024

    /// The format versions this codec reads.
    package static let supportedVersions = [CassetteDocument.formatVersion]

    /// Decodes a cassette.
    ///
    /// - Parameters:
    ///   - data: the file's bytes (UTF-8; a byte order mark is skipped).
    ///   - file: the file's name or path, used only in error messages.
    /// - Throws: ``CassetteFormatError`` listing every problem found: one for a syntax error,
    ///   or every invalid value in a well-formed document.
    package static func decode(_ data: Data, file: String? = nil) throws(CassetteFormatError) -> CassetteDocument {
        try decode(data, file: file, release: nil)
    }

    /// ``decode(_:file:)``, telling `release` which bytes of `data` it no longer needs (see
    /// ``JSONLongString/release``): a large cassette mapped from its file then never holds the
    /// file and its decoded bodies in memory at once.
    package static func decode(
        _ data: Data, file: String?, release: (@Sendable (Range<Int>) -> Void)?
    ) throws(CassetteFormatError) -> CassetteDocument {
        try decode(data, file: file, release: release, deferring: nil).document
    }

    /// ``decode(_:file:)`` with the `text` and `base64` bodies of `minimum` bytes of file or more
    /// left in `data` as placeholders (see ``DeferredBodies``), for comparing a stored cassette
    /// with a new recording. A deferred base64 body is not checked: it is only compared.
    package static func decode(
        _ data: Data, file: String?, release: (@Sendable (Range<Int>) -> Void)?,
        deferringBodiesFrom minimum: Int
    ) throws(CassetteFormatError) -> (document: CassetteDocument, deferred: DeferredBodies) {
        let read = try decode(data, file: file, release: release, deferring: DeferredBodies(minimum: minimum))
        return (read.document, read.deferred ?? DeferredBodies(minimum: minimum))
    }

    private static func decode(
        _ data: Data, file: String?, release: (@Sendable (Range<Int>) -> Void)?,
        deferring: DeferredBodies?
    ) throws(CassetteFormatError) -> (document: CassetteDocument, deferred: DeferredBodies?) {
        let tree = try parse(data, file: file) { () throws(JSONSyntaxError) in
            try JSONParser.parseCassette(data, keepingStringsLongerThan: longString, release: release)
        }
        var reader = JSONCassetteReader()
        reader.deferred = deferring
        reader.compactBodies = tree.compactBodies
        let document = reader.readDocument(tree.root)
        if let document, reader.problems.isEmpty { return (document, reader.deferred) }
        guard !reader.problems.isEmpty else {  // not reachable: the reader reports why it returns nil
            throw CassetteFormatError(file: file, problems: [.init(path: .root, message: "the cassette could not be read")])
        }
        throw error(reader.problems, in: data, file: file)
    }

    /// ``decode(_:file:)`` with every `"json"` body built as a tree and written compact from it, as
    /// before bodies were read as compact bytes (``JSONParser/parseCassette(_:keepingStringsLongerThan:release:)``):
    /// for checking that the two read the same document or fail with the same error (tests, fuzzing).
    package static func decodeFromTrees(_ data: Data, file: String? = nil) throws(CassetteFormatError) -> CassetteDocument {
        let root = try parse(data, file: file)
        var reader = JSONCassetteReader()
        if let document = reader.readDocument(root), reader.problems.isEmpty { return document }
        throw error(reader.problems, in: data, file: file)
    }

    /// `data` parsed as JSON; a syntax error becomes a ``CassetteFormatError`` with its line and
    /// column. Shared by the codecs whose files are JSON. Strings of ``longString`` bytes or more
    /// stay in `data` until read (``JSONValue/longString(_:)``): a 100 MB body is then decoded
    /// from the file's bytes, not from a copy of them.
    package static func parse(
        _ data: Data, file: String?, release: (@Sendable (Range<Int>) -> Void)? = nil
    ) throws(CassetteFormatError) -> JSONNode {
        try parse(data, file: file) { () throws(JSONSyntaxError) in
            try JSONParser.parse(data, keepingStringsLongerThan: longString, release: release)
        }
    }

    /// What `parsing` gives, its syntax error a ``CassetteFormatError`` with its line and column in `data`.
    private static func parse<Parsed>(
        _ data: Data, file: String?, _ parsing: () throws(JSONSyntaxError) -> Parsed
    ) throws(CassetteFormatError) -> Parsed {
        do {
            return try parsing()
        } catch {
            var positions = SourcePositions(data)
            let position = positions.position(of: error.offset)
            throw CassetteFormatError(
                file: file,
                problems: [
                    .init(path: nil, line: position.line, column: position.column, message: error.message)
                ])
        }
    }

    /// A reader's problems, found at byte offsets of `data`, as an error in document order (a
    /// missing field is found after the unknown field that was meant to be it).
    package static func error(
        _ found: [(path: JSONPath, offset: Int, message: String)], in data: Data, file: String?
    ) -> CassetteFormatError {
        var positions = SourcePositions(data)
        let ordered = found.enumerated().sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }.map(\.element)
        return CassetteFormatError(
            file: file,
            problems: ordered.map { problem in
                let position = positions.position(of: problem.offset)
                return .init(path: problem.path, line: position.line, column: position.column, message: problem.message)
            })
    }

    /// Encodes a cassette as pretty-printed, deterministic JSON ending in a newline.
    ///
    /// - Throws: ``CassetteFormatError`` when a value could not be read back (a status of 0, a
    ///   relative URL, a negative duration…), so no file is ever written that this codec rejects.
    package static func encode(_ document: CassetteDocument, names: ProtobufSchema? = nil) throws(CassetteFormatError) -> Data {
        Data(try encodedBytes(document, names: names))
    }

    /// ``encode(_:)``'s bytes, before they are copied into a `Data`: saving writes these directly,
    /// which for a cassette of hundreds of megabytes saves a copy of it in memory.
    package static func encodedBytes(_ document: CassetteDocument, names: ProtobufSchema? = nil) throws(CassetteFormatError) -> [UInt8] {
        printer.print(try tree(for: document, names: names))
    }

    /// ``encode(_:)``'s bytes handed to `sink` in pieces of about `pieceSize` bytes as they are
    /// written, so that saving a cassette with large bodies never holds its text whole. Nothing
    /// reaches `sink` when the document cannot be written.
    package static func encode(
        _ document: CassetteDocument, inPiecesOf pieceSize: Int, names: ProtobufSchema? = nil,
        to sink: @escaping (ArraySlice<UInt8>) -> Void
    ) throws(CassetteFormatError) {
        printer.print(try tree(for: document, names: names), inPiecesOf: pieceSize, to: sink)
    }

    /// `interaction` as ``encode(_:)`` writes it in a cassette's `interactions` (two levels deep,
    /// starting at its `{`, without a line end), for replacing one interaction of a file in place.
    ///
    /// - Throws: ``CassetteFormatError`` when it could not be read back, as ``encode(_:)`` does.
    package static func encodedInteraction(_ interaction: Interaction, names: ProtobufSchema? = nil) throws(CassetteFormatError) -> [UInt8]
    {
        let problems = CassetteDocument(interactions: [interaction]).problems()
        guard problems.isEmpty else { throw CassetteFormatError(file: nil, problems: problems) }
        return printer.print(tree(for: interaction, names: names), depth: 2)
    }

    /// Root, interaction list and interactions always span lines; anything deeper is inlined when it fits.
    private static var printer: JSONPrettyPrinter { JSONPrettyPrinter(lineWidth: 100, multilineDepth: 3) }

    private static func tree(for document: CassetteDocument, names: ProtobufSchema?) throws(CassetteFormatError) -> JSONValue {
        let problems = document.problems()
        guard problems.isEmpty else { throw CassetteFormatError(file: nil, problems: problems) }
        var root: [JSONMember] = []
        if let schema = document.schema { root.append(member("$schema", .string(schema))) }
        root.append(member("version", .number(String(CassetteDocument.formatVersion))))
        if let recordedWith = document.recordedWith { root.append(member("recordedWith", .string(recordedWith))) }
        if !document.metadata.isEmpty { root.append(member("metadata", MetadataValue.object(document.metadata).json)) }
        root.append(member("interactions", .array(document.interactions.map { JSONNode(tree(for: $0, names: names)) })))
        return .object(root)
    }

    // MARK: Writing

    /// - Parameter names: names the fields of Connect and gRPC-Web messages, when it has the method.
    private static func tree(for interaction: Interaction, names: ProtobufSchema?) -> JSONValue {
        var members: [JSONMember] = []
        let method = names.flatMap { schema in schema.method(forURL: interaction.request.url).map { (schema, $0) } }
        if let recordedAt = interaction.recordedAt, let text = Timestamp.format(recordedAt) {
            members.append(member("recordedAt", .string(text)))
        }
        let request = interaction.request
        var requestMembers = [member("method", .string(request.method)), member("url", .string(request.url))]
        appendMessage(
            headers: request.headers, body: request.body, names: method.map { MessageNames(schema: $0.0, message: $0.1.input) },
            to: &requestMembers)
        members.append(member("request", .object(requestMembers)))
        if !interaction.challenges.isEmpty {
            members.append(member("challenges", .array(interaction.challenges.map { JSONNode(tree(for: $0)) })))
        }
        if let response = interaction.response {
            members.append(member("response", tree(for: response, names: method.map { MessageNames(schema: $0.0, message: $0.1.output) })))
        }
        if let error = interaction.error {
            let code: JSONValue = error.code.name.map { .string($0) } ?? .number(String(error.code.rawValue))
            var errorMembers = [member("code", code)]
            if let afterBytes = error.afterBytes { errorMembers.append(member("afterBytes", .number(String(afterBytes)))) }
            members.append(member("error", .object(errorMembers)))
        }
        if let timing = interaction.timing {
            members.append(member("timing", .object(seconds(firstByte: timing.firstByte, duration: timing.duration))))
        }
        if let latency = interaction.latency {
            members.append(member("latency", tree(for: latency)))
        }
        if let scenario = interaction.scenario {
            members.append(member("scenario", .string(scenario)))
        }
        if let conversation = interaction.webSocket {
            members.append(
                member("webSocket", .object([member("messages", .array(conversation.messages.map { JSONNode(tree(for: $0)) }))])))
        }
        return .object(members)
    }

    private static func tree(for response: Interaction.Response, names: MessageNames? = nil) -> JSONValue {
        var members = [member("status", .number(String(response.status)))]
        if let url = response.url { members.append(member("url", .string(url))) }
        if let stream = response.stream {
            appendMessage(headers: response.headers, body: .empty, names: nil, to: &members)
            members.append(member("stream", tree(for: stream, contentType: response.headers["Content-Type"], names: names)))
        } else {
            appendMessage(headers: response.headers, body: response.body, names: names, to: &members)
        }
        return .object(members)
    }

    /// A challenge: what the delegate was asked, its answer, and the challenged response.
    private static func tree(for challenge: Interaction.Challenge) -> JSONValue {
        var members = [member("method", .string(challenge.method))]
        if let realm = challenge.realm { members.append(member("realm", .string(realm))) }
        members.append(member("answer", .string(challenge.answer.rawValue)))
        members.append(member("response", tree(for: challenge.response)))
        return .object(members)
    }

    /// One WebSocket message: a close's reason as text, any other payload in the most readable
    /// form that keeps its bytes (compact JSON inline, text, base64).
    private static func tree(for message: Interaction.WebSocketMessage) -> JSONValue {
        var members = [
            member("from", .string(message.from.rawValue)), member("at", .number(formatSeconds(message.at))),
            member("kind", .string(message.kind.rawValue)),
        ]
        if let code = message.code { members.append(member("code", .number(String(code)))) }
        if message.kind == .close, let reason = message.text {
            if !reason.isEmpty { members.append(member("reason", .string(reason))) }
        } else if !message.data.isEmpty, case .object(let form) = tree(for: Interaction.Body(message.data)) {
            members += form
        }
        return .object(members)
    }

    private static func tree(for latency: Latency) -> JSONValue {
        switch latency.kind {
        case .instant:
            return .string("instant")
        case .recorded:
            return .string("recorded")
        case .scaled(let factor):
            return .object([member("scaled", .number(formatSeconds(factor)))])
        case .fixed(let firstByte, let duration):
            return .object(seconds(firstByte: firstByte, duration: duration))
        case .downloadSpeed(let speed, let firstByte):
            let speedValue: JSONValue = speed.name.map { .string($0) } ?? .number(formatSeconds(speed.bytesPerSecond))
            var members = [member("bytesPerSecond", speedValue)]
            if firstByte != 0 { members.append(member("firstByte", .number(formatSeconds(firstByte)))) }
            return .object(members)
        }
    }

    private static func seconds(firstByte: TimeInterval, duration: TimeInterval) -> [JSONMember] {
        [member("firstByte", .number(formatSeconds(firstByte))), member("duration", .number(formatSeconds(duration)))]
    }

    private static func appendMessage(
        headers: Interaction.Headers, body: Interaction.Body, names: MessageNames?, to members: inout [JSONMember]
    ) {
        if !headers.isEmpty {
            members.append(member("headers", tree(for: headers)))
        }
        if !body.isEmpty {
            members.append(member("body", tree(for: body, names: names)))
        }
    }

    private static func tree(for headers: Interaction.Headers) -> JSONValue {
        .object(
            headers.fields.map { field in
                member(field.name, field.values.count == 1 ? .string(field.values[0]) : .array(field.values.map { JSONNode(.string($0)) }))
            })
    }

    private static func tree(for body: Interaction.Body, names: MessageNames? = nil) -> JSONValue {
        switch body.form {
        case .multipart:
            guard let multipart = Multipart.canonical(body.data, contentType: nil) else {
                // Not reachable: a body only has the multipart form when its bytes are canonical.
                return tree(for: Interaction.Body(body.data))
            }
            return .object([
                member(
                    "multipart",
                    .object([
                        member("boundary", .string(multipart.boundary)),
                        member("parts", .array(multipart.parts.map { JSONNode(tree(for: $0)) })),
                    ]))
            ])
        case .json:
            if let node = try? JSONParser.parse(body.data) {
                return .object([member("json", node.value)])
            }
            // Not reachable: a body only has the json form when its bytes parse.
            return tree(for: Interaction.Body(body.data))
        case .text:
            if let text = body.text {
                return .object([member("text", textTree(text))])
            }
            return tree(for: Interaction.Body(unchecked: body.data, form: .base64))
        case .base64:
            return .object([member("base64", .base64(body.data))])
        case .protobuf:
            // Always: a body only has the protobuf form when its bytes read as a message.
            return protobufTree(body.data, names: names) ?? tree(for: Interaction.Body(unchecked: body.data, form: .base64))
        case .envelopes:
            return envelopesTree(body.data, names: names)
        }
    }

    /// `{ "events": [ … ] }` for a `text/event-stream` body, `{ "envelopes": [ … ] }` for a Connect
    /// stream or gRPC-Web body cut at its envelopes (``envelopesStreamTree(_:)``), `{ "chunks": [ … ] }`
    /// for any other: each chunk `{ "at": SECONDS, …fields of its event }`, or `{ "at": SECONDS,
    /// "text" | "json" | "base64": … }` when its bytes are not exactly one event.
    private static func tree(for stream: Interaction.StreamedBody, contentType: String?, names: MessageNames?) -> JSONValue {
        if stream.listName(contentType: contentType) == "envelopes" { return envelopesStreamTree(stream, names: names) }
        let isEventStream = Interaction.StreamedBody.isEventStream(contentType: contentType)
        let chunks = stream.chunks.map { chunk -> JSONNode in
            var members = [member("at", .number(formatSeconds(chunk.at)))]
            if isEventStream, let event = chunk.event {
                members += event.fields.map(tree(for:))
            } else if case .object(let form) = tree(for: Interaction.Body(chunk.data)) {
                members += form
            }
            return JSONNode(.object(members))
        }
        return .object([member(isEventStream ? "events" : "chunks", .array(chunks))])
    }

    /// One field of an event; `data` that is a compact JSON object or array is written inline.
    private static func tree(for field: ServerSentEvent.Field) -> JSONMember {
        switch field {
        case .event(let text), .id(let text), .comment(let text):
            return member(field.name, .string(text))
        case .retry(let milliseconds):
            return member("retry", .number(String(milliseconds)))
        case .data(let text):
            let bytes = Data(text.utf8)
            if bytes.first == UInt8(ascii: "{") || bytes.first == UInt8(ascii: "["), Interaction.Body.isCompactJSON(bytes),
                let node = try? JSONParser.parse(bytes)
            {
                return member("data", node.value)
            }
            return member("data", .string(text))
        }
    }

    /// `{ "name": …, "filename": …, "contentType": …, "headers": {…}, "text" | "json" | "base64": … }`:
    /// the fields a part has, then its body in the form its own content type calls for.
    private static func tree(for part: Multipart.Part) -> JSONValue {
        var members: [JSONMember] = []
        if !part.keepsHeadersAsWritten {
            if let name = part.name { members.append(member("name", .string(name))) }
            if let filename = part.filename { members.append(member("filename", .string(filename))) }
            if let contentType = part.contentType { members.append(member("contentType", .string(contentType))) }
        }
        if !part.otherHeaders.isEmpty { members.append(member("headers", tree(for: part.otherHeaders))) }
        // The best form, chosen once; a part is written as text, JSON or base64, never in a structured form of its own.
        var form = Interaction.Body(part.body, contentType: part.contentType).form
        if ![.text, .json, .base64].contains(form) { form = Interaction.Body.isWritableAsText(part.body) ? .text : .base64 }
        if case .object(let written) = tree(for: Interaction.Body(unchecked: part.body, form: form)) { members += written }
        return .object(members)
    }

    /// One string, or an array of lines (each keeping its "\n") when the text has several:
    /// a one-line change in a body is then a one-line change in the diff.
    private static func textTree(_ text: String) -> JSONValue {
        let utf8 = text.utf8
        guard let firstNewline = utf8.firstIndex(of: 0x0A), utf8.index(after: firstNewline) != utf8.endIndex else {
            return .string(text)
        }
        var lines: [JSONNode] = []
        var start = utf8.startIndex
        while start != utf8.endIndex {
            let end = utf8[start...].firstIndex(of: 0x0A).map { utf8.index(after: $0) } ?? utf8.endIndex
            lines.append(JSONNode(.string(String(text[start..<end]))))
            start = end
        }
        return .array(lines)
    }

    /// Seconds as the shortest text that reads back as the same `Double`; whole numbers without ".0".
    package static func formatSeconds(_ seconds: Double) -> String {
        if seconds == seconds.rounded(), abs(seconds) < 1e15 { return String(Int64(seconds)) }
        return seconds.description
    }

    private static func member(_ key: String, _ value: JSONValue) -> JSONMember {
        JSONMember(key: key, value: JSONNode(value))
    }
}

/// Maps byte offsets of a source to 1-based lines and columns (columns in Unicode scalars).
package struct SourcePositions {
    private let data: Data
    private var offset = 0
    private var line = 1
    private var column = 1

    package init(_ data: Data) {
        self.data = data
    }

    /// Line and column (both from 1; columns count Unicode scalars) of byte `target`. Walks on
    /// from the previous answer, so asking in increasing order costs one pass over the data in
    /// all: thousands of problems on one minified line are found in linear time.
    package mutating func position(of target: Int) -> (line: Int, column: Int) {
        let target = max(0, min(target, data.count))
        if target < offset {
            (offset, line, column) = (0, 1, 1)
        }
        data.withUnsafeBytes { bytes in
            for i in offset..<target {
                let b = bytes[i]
                if b == 0x0A {
                    line += 1
                    column = 1
                } else if b & 0xC0 != 0x80 {
                    column += 1
                }
            }
        }
        offset = target
        return (line, column)
    }
}
