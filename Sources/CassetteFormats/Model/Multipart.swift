import Foundation

/// A `multipart/form-data` body (RFC 7578) cut into its parts: what matching compares (the
/// boundary aside) and what a JSON cassette writes part by part.
///
/// ```swift
/// let body = Data("--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nHello\r\n--XyZ--\r\n".utf8)
/// let multipart = try Multipart.parse(body, contentType: "multipart/form-data; boundary=XyZ")
/// multipart.parts[0].name         // "title"
/// multipart.parts[0].body         // "Hello"
/// multipart.serialized() == body  // true: this body is in the canonical layout
/// ```
///
/// Parsing is lenient, as matching needs (a preamble, an epilogue, bare `\n` line ends and
/// white space after a delimiter are accepted); ``serialized()`` writes the canonical layout
/// every common client sends (CRLF line ends, `Content-Disposition` then `Content-Type` then the
/// other fields, a CRLF after the closing delimiter). A body is stored as parts only when it is
/// exactly that layout, so its bytes never change.
package struct Multipart: Sendable, Hashable {
    /// One part: its header fields and its bytes.
    package struct Part: Sendable, Hashable {
        /// The form field's name, from `Content-Disposition: form-data; name="…"`.
        package var name: String?
        /// The file name, from `Content-Disposition`'s `filename="…"`.
        package var filename: String?
        /// The part's `Content-Type`.
        package var contentType: String?
        /// Header fields other than a canonical `Content-Disposition` and `Content-Type`, in order.
        package var otherHeaders: Interaction.Headers
        /// The part's bytes.
        package var body: Data

        /// A part from its parts.
        package init(
            name: String?, filename: String? = nil, contentType: String? = nil, otherHeaders: Interaction.Headers = Interaction.Headers(),
            body: Data
        ) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.otherHeaders = otherHeaders
            self.body = body
        }
    }

    /// Why a body is not multipart.
    package struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, for a person.
        package var description: String

        /// An error saying `description`.
        package init(description: String) {
            self.description = description
        }
    }

    /// The boundary, without the leading `--`.
    package var boundary: String
    /// The parts, in order.
    package var parts: [Part]

    /// A multipart body from its parts.
    package init(boundary: String, parts: [Part]) {
        self.boundary = boundary
        self.parts = parts
    }

    /// Whether `contentType` is `multipart/form-data` (any case, any parameters).
    package static func isFormData(contentType: String?) -> Bool {
        contentType.map { Interaction.Body.mediaType(of: $0) == "multipart/form-data" } ?? false
    }

    /// The `boundary` parameter of a `Content-Type`, unquoted; nil when it has none.
    package static func boundary(inContentType contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// `contentType` without its boundary: what two multipart requests have in common.
    package static func withoutBoundary(_ contentType: String) -> String {
        contentType.split(separator: ";", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("boundary=") }
            .joined(separator: ";")
    }

    /// Parses `data` as multipart, with the boundary of `contentType` (or, when there is none, the
    /// one the body opens with).
    ///
    /// - Throws: ``ParseError`` saying what is missing or where the body goes wrong.
    package static func parse(_ data: Data, contentType: String?) throws(ParseError) -> Multipart {
        let bytes = [UInt8](data)
        let boundary: String
        if let declared = contentType.flatMap(Self.boundary(inContentType:)) {
            boundary = declared
        } else if let opening = openingBoundary(of: bytes) {
            boundary = opening
        } else {
            throw ParseError(description: "no boundary: the Content-Type has no boundary parameter and the body does not open with \"--\"")
        }
        let delimiter = Array("--\(boundary)".utf8)
        guard var at = find(delimiter, in: bytes, from: 0, atLineStart: true) else {
            throw ParseError(description: "the boundary \"\(boundary)\" never appears in the body")
        }
        var parts: [Part] = []
        while true {
            at += delimiter.count
            if bytes[at...].starts(with: [0x2D, 0x2D]) { break }  // "--": the closing delimiter
            guard let lineEnd = endOfLine(bytes, from: at, allowingOnly: [0x20, 0x09]) else {
                throw ParseError(description: "part \(parts.count + 1): the delimiter line has text after the boundary")
            }
            // Headers, up to an empty line.
            var headers = Interaction.Headers()
            var line = lineEnd
            while true {
                guard let end = bytes[line...].firstIndex(of: 0x0A) else {
                    throw ParseError(description: "part \(parts.count + 1): its header fields never end (no empty line)")
                }
                var content = bytes[line..<end]
                if content.last == 0x0D { content = content.dropLast() }
                line = end + 1
                if content.isEmpty { break }
                guard let colon = content.firstIndex(of: UInt8(ascii: ":")), colon > content.startIndex else {
                    throw ParseError(
                        description:
                            "part \(parts.count + 1): \"\(String(decoding: content.prefix(40), as: UTF8.self))\" is not a header field")
                }
                let name = String(decoding: content[..<colon], as: UTF8.self)
                let value = String(decoding: content[(colon + 1)...], as: UTF8.self).trimmingCharacters(in: .whitespaces)
                headers.add(name, value)
            }
            guard let next = find(delimiter, in: bytes, from: line, atLineStart: true) else {
                throw ParseError(description: "part \(parts.count + 1) is not closed: no \"--\(boundary)\" after it")
            }
            var bodyEnd = next
            if bodyEnd > line, bytes[bodyEnd - 1] == 0x0A { bodyEnd -= 1 }
            if bodyEnd > line, bytes[bodyEnd - 1] == 0x0D { bodyEnd -= 1 }
            parts.append(Part(headers: headers, body: Data(bytes[line..<max(line, bodyEnd)])))
            at = next
        }
        return Multipart(boundary: boundary, parts: parts)
    }

    /// The body in the canonical layout: each part as `--BOUNDARY`, its header fields, an empty
    /// line and its bytes, CRLF line ends; then `--BOUNDARY--` and a CRLF.
    package func serialized() -> Data {
        var out = Data()
        let crlf = Data([0x0D, 0x0A])
        for part in parts {
            out.append(Data("--\(boundary)".utf8) + crlf)
            for (name, value) in part.headerFields { out.append(Data("\(name): \(value)".utf8) + crlf) }
            out.append(crlf)
            out.append(part.body)
            out.append(crlf)
        }
        out.append(Data("--\(boundary)--".utf8) + crlf)
        return out
    }

    /// `data` as parts, when it parses and is exactly in the canonical layout: the only case where
    /// writing it as parts gives back the same bytes.
    package static func canonical(_ data: Data, contentType: String?) -> Multipart? {
        guard let parsed = try? parse(data, contentType: contentType), !parsed.parts.isEmpty,
            !parsed.boundary.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
        else { return nil }
        return parsed.serialized() == data ? parsed : nil
    }

    // MARK: Bytes

    /// The boundary a body opens with: `--BOUNDARY` on its first line.
    private static func openingBoundary(of bytes: [UInt8]) -> String? {
        guard bytes.starts(with: [0x2D, 0x2D]), let end = bytes.firstIndex(of: 0x0A) else { return nil }
        var line = bytes[2..<end]
        if line.last == 0x0D { line = line.dropLast() }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    /// The first `pattern` at or after `start` that begins a line (the body's start, or after `\n`).
    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int, atLineStart: Bool) -> Int? {
        guard let first = pattern.first, pattern.count <= bytes.count else { return nil }
        var i = start
        let last = bytes.count - pattern.count
        while i <= last {
            guard let hit = bytes[i...last].firstIndex(of: first) else { return nil }
            if hit == 0 || bytes[hit - 1] == 0x0A, bytes[hit..<(hit + pattern.count)].elementsEqual(pattern) { return hit }
            i = hit + 1
        }
        return nil
    }

    /// Where the line starting at `start` ends (after its `\n`), when it holds only `allowed` bytes
    /// (and a `\r`).
    private static func endOfLine(_ bytes: [UInt8], from start: Int, allowingOnly allowed: Set<UInt8>) -> Int? {
        var i = start
        while i < bytes.count {
            switch bytes[i] {
            case 0x0A: return i + 1
            case 0x0D where i + 1 < bytes.count && bytes[i + 1] == 0x0A: return i + 2
            case let byte where allowed.contains(byte): i += 1
            default: return nil
            }
        }
        return nil
    }
}

extension Multipart.Part {
    /// A part from its header fields. When they open with a `Content-Disposition` of the form
    /// `form-data; name="…"[; filename="…"]` (then, optionally, one `Content-Type`), those become
    /// ``name``, ``filename`` and ``contentType`` and the rest ``otherHeaders``: the canonical
    /// layout. Otherwise every field stays in ``otherHeaders`` as written, and ``name``,
    /// ``filename`` and ``contentType`` are read from them for matching.
    init(headers: Interaction.Headers, body: Data) {
        var fields = headers.map { (name: $0.name, value: $0.value) }
        if let first = fields.first, first.name == "Content-Disposition", let parsed = Self.disposition(first.value),
            headers.values(for: "Content-Disposition").count == 1
        {
            fields.removeFirst()
            var contentType: String?
            if let next = fields.first, next.name == "Content-Type", headers.values(for: "Content-Type").count == 1 {
                contentType = next.value
                fields.removeFirst()
            }
            self.init(
                name: parsed.name, filename: parsed.filename, contentType: contentType, otherHeaders: Interaction.Headers(fields),
                body: body)
        } else {
            self.init(name: nil, otherHeaders: headers, body: body)
            adoptFieldsFromHeaders()
        }
    }

    /// Whether ``otherHeaders`` holds the part's `Content-Disposition` itself (a part not in the
    /// canonical layout), so that ``name``, ``filename`` and ``contentType`` are only read from it.
    package var keepsHeadersAsWritten: Bool {
        otherHeaders.contains("Content-Disposition")
    }

    /// Sets ``name``, ``filename`` and ``contentType`` from ``otherHeaders`` when they hold a
    /// `Content-Disposition`.
    mutating func adoptFieldsFromHeaders() {
        guard keepsHeadersAsWritten else { return }
        let disposition = otherHeaders.values(for: "Content-Disposition").first ?? ""
        name = Self.parameter("name", in: disposition)
        filename = Self.parameter("filename", in: disposition)
        contentType = otherHeaders["Content-Type"]
    }

    /// The header fields as written, in order.
    var headerFields: [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if !keepsHeadersAsWritten, let name {
            var disposition = "form-data; name=\"\(name)\""
            if let filename { disposition += "; filename=\"\(filename)\"" }
            fields.append(("Content-Disposition", disposition))
            if let contentType { fields.append(("Content-Type", contentType)) }
        }
        for pair in otherHeaders { fields.append((pair.name, pair.value)) }
        return fields
    }

    /// `form-data; name="a"` or `form-data; name="a"; filename="b"` exactly, with no quote, `;`,
    /// backslash or control character in the values.
    private static func disposition(_ value: String) -> (name: String, filename: String?)? {
        let prefix = "form-data; name=\""
        guard value.hasPrefix(prefix), value.hasSuffix("\"") else { return nil }
        let inner = value.dropFirst(prefix.count).dropLast()
        let pieces = inner.components(separatedBy: "\"; filename=\"")
        guard pieces.count <= 2, pieces.allSatisfy(isPlain) else { return nil }
        return (pieces[0], pieces.count == 2 ? pieces[1] : nil)
    }

    private static func isPlain(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0 == "\"" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F }
    }

    /// A parameter of a header value (`name="x"` or `name=x`), for matching only.
    private static func parameter(_ key: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == key else { continue }
            var text = pair[1].trimmingCharacters(in: .whitespaces)
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            return text
        }
        return nil
    }
}
