import Foundation

/// Reads and writes cassettes as raw HTTP messages (`.http` files): each interaction a request
/// and a response as they travel on the wire, after a `###` line carrying what the wire does not
/// (when it was recorded, its timing, a transport error). `docs/HTTPMessageFormat.md` is the
/// reference; in short:
///
/// ```http
/// # version: 1
///
/// ### recordedAt=2026-11-20T10:15:30.123Z firstByte=0.084 duration=0.112
/// GET https://api.example.com/users/42 HTTP/1.1
/// Accept: application/json
///
/// HTTP/1.1 200 OK
/// Content-Type: application/json
///
/// {"id":42,"name":"Ada"}
///
/// ### error=timedOut
/// GET https://api.example.com/slow HTTP/1.1
///
/// ```
///
/// Made for hand editing: a body ends where the next message or `###` line begins, so it can be
/// changed without touching `Content-Length`; a response pasted from `curl -i` reads as it is
/// (CRLF line ends, `HTTP/2 200`, an interim `100 Continue`); a body that is not text, or that
/// holds a line this format would take for a boundary, is written as base64 and marked
/// `requestBody=base64` / `responseBody=base64` on the `###` line.
///
/// Lossless: reading back what was written gives the same interactions, bytes of bodies,
/// headers (spelling, order, repeats and spaces in values), timing, latency and errors.
package enum HTTPMessageCassetteCodec {
    /// The format versions this codec reads (`# version: 1`; a file without the line is version 1).
    package static let supportedVersions = [HTTPMessageSyntax.formatVersion]

    /// Decodes a cassette.
    ///
    /// - Parameters:
    ///   - data: the file's bytes (UTF-8; a byte order mark is skipped).
    ///   - file: the file's name or path, used only in error messages.
    /// - Throws: ``CassetteFormatError`` listing every problem, each with its line and column and
    ///   the place in the cassette it belongs to (`interactions[2].response.headers`).
    package static func decode(_ data: Data, file: String? = nil) throws(CassetteFormatError) -> CassetteDocument {
        var reader = HTTPMessageReader(data)
        let document = reader.readDocument()
        guard reader.problems.isEmpty else { throw CassetteFormatError(file: file, problems: reader.problems) }
        return document
    }

    /// The line and column of each header field's value in an HTTP-message cassette, by its place
    /// (`interactions[0].response.headers["Content-Length"]`).
    static func placesOfHeaders(in data: Data) -> [JSONPath: (line: Int, column: Int)] {
        var reader = HTTPMessageReader(data)
        reader.placesOfHeaders = [:]
        _ = reader.readDocument()
        return reader.placesOfHeaders ?? [:]
    }

    /// Decodes a file that holds one HTTP response and nothing else, such as the output of
    /// `curl -i URL`: status line, header fields, a blank line, and the body, which is every byte
    /// after the blank line (no line breaks are taken off it; `Content-Length` plays no part).
    /// CRLF line ends and an interim `100 Continue` are accepted.
    ///
    /// - Throws: ``CassetteFormatError`` with the line and column of each problem.
    package static func decodeResponse(_ data: Data, file: String? = nil) throws(CassetteFormatError) -> Interaction.Response {
        var reader = HTTPMessageReader(data)
        let response = reader.readLoneResponse()
        guard reader.problems.isEmpty, let response else { throw CassetteFormatError(file: file, problems: reader.problems) }
        return response
    }

    /// Encodes a cassette as HTTP messages, ending in a newline. The same document always gives
    /// the same bytes.
    ///
    /// - Throws: ``CassetteFormatError`` when a value could not be read back (see
    ///   ``CassetteDocument/problems()``).
    package static func encode(_ document: CassetteDocument) throws(CassetteFormatError) -> Data {
        Data(try encodedBytes(document))
    }

    /// ``encode(_:)``'s bytes, before they are copied into a `Data` (see `JSONCassetteCodec.encodedBytes`).
    package static func encodedBytes(_ document: CassetteDocument) throws(CassetteFormatError) -> [UInt8] {
        let problems = document.problems()
        guard problems.isEmpty else { throw CassetteFormatError(file: nil, problems: problems) }
        var out: [UInt8] = []
        out += Array("# version: \(HTTPMessageSyntax.formatVersion)\n".utf8)
        if let recordedWith = document.recordedWith { out += Array("# recordedWith: \(recordedWith)\n".utf8) }
        if !document.metadata.isEmpty {
            out +=
                Array("# metadata: ".utf8) + JSONWriter.compact(MetadataValue.object(document.metadata).json) + [HTTPMessageSyntax.newline]
        }
        // Every interaction ends with a blank line (the end of a head, or after a body), which
        // also sets it apart from the next one.
        out.append(HTTPMessageSyntax.newline)
        for interaction in document.interactions {
            write(interaction, to: &out)
        }
        return out
    }

    // MARK: Writing

    private static func write(_ interaction: Interaction, to out: inout [UInt8]) {
        let request = interaction.request
        let response = interaction.response
        let requestBase64 =
            !request.body.isEmpty
            && (!isWritableRaw(request.body.data, endsAtStatusLines: true)
                || readsLonger(request.body, declared: HTTPMessageSyntax.declaredLength(request.headers, status: nil)))
        let responseBase64 =
            response.map {
                !$0.body.isEmpty
                    && (!isWritableRaw($0.body.data, endsAtStatusLines: (100...199).contains($0.status))
                        || readsLonger(
                            $0.body, declared: HTTPMessageSyntax.declaredLength($0.headers, status: $0.status, answering: request.method)))
            } ?? false

        var fields: [String] = []
        typealias Field = HTTPMessageSyntax.Field
        func add(_ field: Field, _ value: String) { fields.append("\(field.rawValue)=\(value)") }
        if let recordedAt = interaction.recordedAt, let text = Timestamp.format(recordedAt) { add(.recordedAt, text) }
        if let timing = interaction.timing {
            add(.firstByte, JSONCassetteCodec.formatSeconds(timing.firstByte))
            add(.duration, JSONCassetteCodec.formatSeconds(timing.duration))
        }
        if let error = interaction.error {
            add(.error, error.code.name ?? String(error.code.rawValue))
            if let afterBytes = error.afterBytes { add(.afterBytes, String(afterBytes)) }
        }
        if let latency = interaction.latency { add(.latency, latency.description) }
        if let url = response?.url { add(.responseURL, url) }
        if let stream = response?.stream {
            add(.stream, stream.chunks.map { "\(JSONCassetteCodec.formatSeconds($0.at)):\($0.data.count)" }.joined(separator: ","))
        }
        if interaction.webSocket?.messages.isEmpty == true { add(.webSocket, HTTPMessageSyntax.emptyConversation) }
        if requestBase64 { add(.requestBody, HTTPMessageSyntax.base64Marker) }
        if responseBase64 { add(.responseBody, HTTPMessageSyntax.base64Marker) }
        out += Array((["###"] + fields).joined(separator: " ").utf8)
        out.append(HTTPMessageSyntax.newline)
        if let scenario = interaction.scenario { line("# scenario: \(scenario)", to: &out) }
        // Each challenge: a comment saying what was asked and answered, and its response before the final one.
        let challengeBase64 = interaction.challenges.map { isBase64(challengeBody: $0.response, answering: request.method) }
        for (challenge, base64) in zip(interaction.challenges, challengeBase64) {
            var words = "# challenge: \(challenge.answer.rawValue) \(challenge.method)"
            if let realm = challenge.realm { words += " " + String(decoding: JSONWriter.compact(.string(realm)), as: UTF8.self) }
            line(words + (base64 ? " " + HTTPMessageSyntax.base64Marker : ""), to: &out)
        }

        line("\(request.method) \(request.url) HTTP/1.1", to: &out)
        write(request.headers, body: request.body, base64: requestBase64, to: &out)
        for (challenge, base64) in zip(interaction.challenges, challengeBase64) {
            write(challenge.response, base64: base64, to: &out)
        }
        if let response { write(response, base64: responseBase64, to: &out) }
        for message in interaction.webSocket?.messages ?? [] {
            write(message, to: &out)
        }
    }

    /// The status line, header lines and body of a response.
    private static func write(_ response: Interaction.Response, base64: Bool, to out: inout [UInt8]) {
        let reason = ReasonPhrase.of(response.status)
        line("HTTP/1.1 \(response.status)" + (reason.isEmpty ? "" : " \(reason)"), to: &out)
        write(response.headers, body: response.body, base64: base64, to: &out)
    }

    /// Whether a challenged response's body is written as base64: a response follows it, so its
    /// body ends at a status line.
    private static func isBase64(challengeBody response: Interaction.Response, answering method: String) -> Bool {
        !response.body.isEmpty
            && (!isWritableRaw(response.body.data, endsAtStatusLines: true)
                || readsLonger(
                    response.body, declared: HTTPMessageSyntax.declaredLength(response.headers, status: response.status, answering: method)))
    }

    /// `>>> AT KIND [CODE] [base64]` (the client sends; `<<<` the server), then the payload as a
    /// body is written: raw text when it reads back the same, else base64.
    private static func write(_ message: Interaction.WebSocketMessage, to out: inout [UInt8]) {
        let base64 = !message.data.isEmpty && !isWritableRaw(message.data, endsAtStatusLines: false)
        var words = [message.from == .client ? ">>>" : "<<<", JSONCassetteCodec.formatSeconds(message.at), message.kind.rawValue]
        if let code = message.code { words.append(String(code)) }
        if base64 { words.append(HTTPMessageSyntax.base64Marker) }
        line(words.joined(separator: " "), to: &out)
        write(body: message.data, base64: base64, to: &out)
    }

    /// Whether the reader would keep one of the writer's two closing line breaks in a text body:
    /// it never cuts below `Content-Length`, so a body one or two bytes shorter than promised (cut
    /// short on the wire) is written in base64 instead.
    private static func readsLonger(_ body: Interaction.Body, declared: Int?) -> Bool {
        guard let declared else { return false }
        return declared > body.data.count && declared <= body.data.count + 2
    }

    /// Header lines, the blank line, and the body followed by a blank line when there is one.
    private static func write(_ headers: Interaction.Headers, body: Interaction.Body, base64: Bool, to out: inout [UInt8]) {
        for (name, value) in headers { line("\(name): \(value)", to: &out) }
        out.append(HTTPMessageSyntax.newline)
        write(body: body.data, base64: base64, to: &out)
    }

    /// A body (or a WebSocket message's payload), when there is one: raw, or base64 in lines of
    /// 76, then a blank line.
    private static func write(body data: Data, base64: Bool, to out: inout [UInt8]) {
        guard !data.isEmpty else { return }
        if base64 {
            let encoded = Array(data.base64EncodedString().utf8)
            for start in stride(from: 0, to: encoded.count, by: 76) {
                out += encoded[start..<min(start + 76, encoded.count)]
                out.append(HTTPMessageSyntax.newline)
            }
        } else {
            out += data
            out.append(HTTPMessageSyntax.newline)
        }
        // The reader takes up to two line breaks off the end of a body: this one and the one above.
        out.append(HTTPMessageSyntax.newline)
    }

    private static func line(_ text: String, to out: inout [UInt8]) {
        out += Array(text.utf8)
        out.append(HTTPMessageSyntax.newline)
    }

    /// Whether `data` can be written as it is and read back as the same bytes: text (see
    /// ``Interaction/Body``), not ending in `\r` (the reader takes `\r\n` off the end), and with no
    /// line the reader would take for the end of the body: a `###` line, a WebSocket message line
    /// (`>>> `, `<<< `), or, where a response may follow, a status line.
    static func isWritableRaw(_ data: Data, endsAtStatusLines: Bool) -> Bool {
        guard Interaction.Body.isWritableAsText(data), data.last != HTTPMessageSyntax.carriageReturn else { return false }
        let bytes = Array(data)
        for range in HTTPMessageSyntax.lines(of: bytes) {
            let line = bytes[range]
            if HTTPMessageSyntax.isSeparator(line) || HTTPMessageSyntax.isWebSocketLine(line) { return false }
            if endsAtStatusLines, HTTPMessageSyntax.isStatusLine(line) { return false }
        }
        return true
    }
}
