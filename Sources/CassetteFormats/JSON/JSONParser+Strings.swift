import Foundation

/// Strings: a value (kept as a slice of the source when long and plain, for a cassette's base64
/// bodies), a key, and the escapes of either, decoded into one buffer.
extension JSONParser {
    /// A string value: a ``JSONValue/longString(_:)`` when it is long enough and has no escapes.
    mutating func parseStringValue() throws(JSONSyntaxError) -> JSONValue {
        guard let source else { return .string(try parseString()) }
        let open = index
        let contentStart = index + 1
        index = contentStart
        // One validating pass to the closing quote; a string with an escape is parsed again below.
        var released = contentStart
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let end = index
                index += 1
                guard end - contentStart >= longStrings else {
                    return .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<end]), as: UTF8.self))
                }
                release?(released..<end)
                return .longString(
                    JSONLongString(
                        bytes: source[(source.startIndex + contentStart)..<(source.startIndex + end)],
                        offset: contentStart, release: release))
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw controlCharacterError(b) }
            if b < 0x80 { index += 1 } else { index += try utf8SequenceLength() }
            // Scanned bytes of a long string are not needed again until it is read.
            if let release, index - released >= Self.releaseStep {
                release(released..<index)
                released = index
            }
        }
        index = open
        return .string(try parseString())
    }

    /// How far a long string is scanned before the scanned part is released.
    static let releaseStep = 1 << 20

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let open = index
        index += 1  // "
        let contentStart = index
        // Fast path: no escapes. Scan to the closing quote, validating UTF-8 on the way.
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw controlCharacterError(b) }
            if b < 0x80 { index += 1 } else { index += try utf8SequenceLength() }
        }
        guard index < bytes.count else {
            throw JSONSyntaxError(offset: open, message: "unterminated string: no closing '\"' before the end of the file")
        }
        return try decodeEscapedString(open: open, contentStart: contentStart)
    }

    /// The rest of the string opened at `open`, from its first escape at `index`: decoded into
    /// one buffer as long as the string is written, since no escape decodes to more bytes than
    /// it is written with (`\n` to one, `\u00e9` to two, a surrogate pair's twelve to four).
    private mutating func decodeEscapedString(open: Int, contentStart: Int) throws(JSONSyntaxError) -> String {
        // Where the string ends: its first quote that no backslash escapes (the file's end if none).
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
        end = min(end, bytes.count)
        var failure: JSONSyntaxError?
        let text = String(unsafeUninitializedCapacity: end - contentStart) { buffer in
            do throws(JSONSyntaxError) {
                return try decodeEscapes(into: buffer, from: contentStart, to: end, open: open)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        return text
    }

    /// Copies the string's bytes from `contentStart` into `buffer`, its escapes decoded from
    /// `index` on, and moves past its closing quote at `end`; the bytes written.
    private mutating func decodeEscapes(
        into buffer: UnsafeMutableBufferPointer<UInt8>, from contentStart: Int, to end: Int, open: Int
    ) throws(JSONSyntaxError) -> Int {
        guard let out = buffer.baseAddress, let source = bytes.baseAddress else { return 0 }
        var count = index - contentStart
        out.initialize(from: source + contentStart, count: count)
        // Each step writes no more bytes than it reads, and reads stop at `end`: the buffer holds them.
        // Plain bytes are found with a local index (writes through `out` would make the compiler
        // read `index` again after each one) and copied a run at a time.
        var next = index
        while next < end {
            var run = next
            while run < end, source[run] >= 0x20, source[run] < 0x80, source[run] != UInt8(ascii: "\\") { run += 1 }
            if run > next {
                // Checked like every write here (ASan cannot see past a String's spare capacity).
                guard count + (run - next) <= buffer.count else { throw overrun() }
                (out + count).initialize(from: source + next, count: run - next)
                count += run - next
                next = run
                if next == end { break }
            }
            let b = source[next]
            index = next
            if b == UInt8(ascii: "\\") {
                count += try decodeEscape(into: out + count, room: buffer.count - count)
            } else if b < 0x20 {
                throw controlCharacterError(b)
            } else {
                let length = try utf8SequenceLength()
                guard count + length <= buffer.count else { throw overrun() }
                (out + count).initialize(from: source + index, count: length)
                count += length
                index += length
            }
            next = index
        }
        index = next
        guard index < bytes.count else {
            throw JSONSyntaxError(offset: open, message: "unterminated string: no closing '\"' before the end of the file")
        }
        index += 1  // "
        return count
    }

    /// Decodes the escape at `index` into `out`, which has `room` bytes, and moves past it; the bytes written.
    private mutating func decodeEscape(into out: UnsafeMutablePointer<UInt8>, room: Int) throws(JSONSyntaxError) -> Int {
        let escapeStart = index
        index += 1  // backslash
        guard let c = peek() else {
            throw JSONSyntaxError(offset: escapeStart, message: "unterminated string: the file ends inside an escape")
        }
        index += 1
        let short: UInt8
        switch c {
        case UInt8(ascii: "\""): short = 0x22
        case UInt8(ascii: "\\"): short = 0x5C
        case UInt8(ascii: "/"): short = 0x2F
        case UInt8(ascii: "b"): short = 0x08
        case UInt8(ascii: "f"): short = 0x0C
        case UInt8(ascii: "n"): short = 0x0A
        case UInt8(ascii: "r"): short = 0x0D
        case UInt8(ascii: "t"): short = 0x09
        case UInt8(ascii: "u"):
            let unit = try parseHex4(escapeStart: escapeStart)
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw JSONSyntaxError(offset: escapeStart, message: "invalid escape: \\u\(hex(unit)) is an unpaired surrogate")
                }
                let lowStart = index
                index += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw JSONSyntaxError(offset: escapeStart, message: "invalid escape: \\u\(hex(unit)) is an unpaired surrogate")
                }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw JSONSyntaxError(offset: escapeStart, message: "invalid escape: \\u\(hex(unit)) is an unpaired surrogate")
            }
            guard let scalar = Unicode.Scalar(scalarValue), let encoded = UTF8.encode(scalar) else {
                throw JSONSyntaxError(offset: escapeStart, message: "invalid escape: not a Unicode scalar")
            }
            guard encoded.count <= room else { throw overrun() }
            for (offset, byte) in encoded.enumerated() { out[offset] = byte }
            return encoded.count
        default:
            throw JSONSyntaxError(
                offset: escapeStart,
                message: "invalid escape \\\(printable(c)) in a string; JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
        }
        guard room >= 1 else { throw overrun() }
        out.pointee = short
        return 1
    }

    /// What the string decoder says if its buffer were too small, which its bound rules out.
    private func overrun() -> JSONSyntaxError {
        JSONSyntaxError(offset: index, message: "a string decoded to more bytes than it is written with (a bug in Cassette's JSON parser)")
    }

    private mutating func parseHex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let c = peek(), let digit = hexValue(c) else {
                throw JSONSyntaxError(offset: escapeStart, message: "invalid escape: \\u must be followed by four hexadecimal digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// Validates the UTF-8 sequence starting at `index` (a byte ≥ 0x80) and returns its length.
    private func utf8SequenceLength() throws(JSONSyntaxError) -> Int {
        guard let length = UTF8Validation.sequenceLength(in: bytes, at: index) else { throw invalidUTF8(at: index) }
        return length
    }
}
