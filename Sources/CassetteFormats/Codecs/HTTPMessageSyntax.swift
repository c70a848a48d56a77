/// The line shapes of the HTTP-message cassette format (`docs/HTTPMessageFormat.md`), shared
/// by its reader and writer so that what one writes the other reads the same way.
///
/// Lines are byte slices without their `\n`; a trailing `\r` (a file saved with CRLF, or `curl -i`
/// output pasted in) is ignored by every predicate here.
enum HTTPMessageSyntax {
    /// The keys a separator line (`### key=value …`) may carry, in the order the writer writes them.
    enum Field: String, CaseIterable {
        case recordedAt, firstByte, duration, error, afterBytes, latency, responseURL, requestBody, responseBody, stream, webSocket
    }

    /// `webSocket=empty`: a WebSocket conversation in which no message was sent (one with messages
    /// needs no field: its `>>>` and `<<<` lines follow the `101`).
    static let emptyConversation = "empty"

    /// The only body marker: `requestBody=base64`, `responseBody=base64`.
    static let base64Marker = "base64"

    /// The format version the writer writes as `# version: 1` and the reader accepts.
    static let formatVersion = 1

    /// `###`, alone or followed by a space or tab: the line that starts an interaction.
    static func isSeparator(_ line: ArraySlice<UInt8>) -> Bool {
        let line = withoutCarriageReturn(line)
        guard line.count >= 3, line.prefix(3).allSatisfy({ $0 == hash }) else { return false }
        guard line.count > 3 else { return true }
        let next = line[line.startIndex + 3]
        return next == space || next == tab
    }

    /// `>>> 0.012 text` (the client sends) or `<<< 0.015 text` (the server sends): the line that
    /// starts a WebSocket message after a `101` response.
    static func isWebSocketLine(_ line: ArraySlice<UInt8>) -> Bool {
        let line = withoutCarriageReturn(line)
        guard line.count >= 4 else { return false }
        let marker = line.prefix(3)
        return (marker.allSatisfy { $0 == UInt8(ascii: ">") } || marker.allSatisfy { $0 == UInt8(ascii: "<") })
            && line[line.startIndex + 3] == space
    }

    /// `HTTP/1.1 200 OK`, `HTTP/2 404`, `HTTP/1.0 503 Service Unavailable`: the line that starts a
    /// response. Its status is the three digits.
    static func status(ofStatusLine line: ArraySlice<UInt8>) -> Int? {
        // Every body line is asked; most answer at the first byte, without a copy.
        guard line.first == UInt8(ascii: "H") else { return nil }
        let b = Array(withoutCarriageReturn(line))
        let prefix = Array("HTTP/".utf8)
        guard b.count >= prefix.count + 5, Array(b[0..<prefix.count]) == prefix else { return nil }
        var i = prefix.count
        guard isDigit(b[i]) else { return nil }
        i += 1
        if i < b.count, b[i] == UInt8(ascii: ".") {
            guard i + 1 < b.count, isDigit(b[i + 1]) else { return nil }
            i += 2
        }
        guard i + 4 <= b.count, b[i] == space, isDigit(b[i + 1]), isDigit(b[i + 2]), isDigit(b[i + 3]) else { return nil }
        guard i + 4 == b.count || b[i + 4] == space else { return nil }
        return Int(b[i + 1] - 0x30) * 100 + Int(b[i + 2] - 0x30) * 10 + Int(b[i + 3] - 0x30)
    }

    static func isStatusLine(_ line: ArraySlice<UInt8>) -> Bool {
        status(ofStatusLine: line) != nil
    }

    /// Empty, or only a `\r`.
    static func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        withoutCarriageReturn(line).isEmpty
    }

    /// `# …` that is not a separator: a comment.
    static func isComment(_ line: ArraySlice<UInt8>) -> Bool {
        line.first == hash && !isSeparator(line)
    }

    static func withoutCarriageReturn(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        line.last == carriageReturn ? line.dropLast() : line
    }

    /// Where each line of `bytes` starts and ends (its `\n` excluded). A final line without `\n`
    /// counts; the empty "line" after a final `\n` does not.
    static func lines(of bytes: [UInt8]) -> [Range<Int>] {
        var lines: [Range<Int>] = []
        var start = 0
        for i in bytes.indices where bytes[i] == newline {
            lines.append(start..<i)
            start = i + 1
        }
        if start < bytes.count { lines.append(start..<bytes.count) }
        return lines
    }

    static let hash = UInt8(ascii: "#")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// The body length `Content-Length` promises (no `Content-Encoding`; for a response, a status
    /// with a body, answering a request other than `HEAD`), or nil. The reader never cuts a text
    /// body below it (a `curl -i` paste keeps its last line break).
    static func declaredLength(_ headers: Interaction.Headers, status: Int?, answering method: String? = nil) -> Int? {
        if let status {
            return Interaction.Response(status: status, headers: headers).declaredBodyLength(answering: method)
        }
        guard !headers.contains("Content-Encoding"), let text = headers["Content-Length"], text.utf8.count <= 18,
            text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else { return nil }
        return Int(text)
    }
}
