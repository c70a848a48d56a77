import Foundation

/// How the parser words what it found where it expected something else: a byte, a word, a
/// control character in a string, a byte that is not UTF-8.
extension JSONParser {
    func controlCharacterError(_ b: UInt8) -> JSONSyntaxError {
        let message: String
        switch b {
        case 0x0A: message = "a line break inside a string: close the string with '\"' before it, or write it as \\n"
        case 0x0D: message = "a carriage return inside a string: write it as \\r"
        case 0x09: message = "a tab inside a string: write it as \\t"
        default:
            let code = "00" + hex(UInt16(b)).suffix(2)
            message = "the control character U+\(code) inside a string: write it as \\u\(code)"
        }
        return JSONSyntaxError(offset: index, message: message)
    }

    func invalidUTF8(at offset: Int) -> JSONSyntaxError {
        JSONSyntaxError(
            offset: offset,
            message: "invalid UTF-8 byte 0x\(String(bytes[offset], radix: 16, uppercase: true)); cassettes must be saved as UTF-8")
    }

    func printable(_ b: UInt8) -> String {
        (0x21..<0x7F).contains(b) ? String(UnicodeScalar(b)) : "0x" + String(b, radix: 16, uppercase: true)
    }

    /// `'x'`, `end of file`, or `byte 0xFF` for the byte at `offset`.
    func describeByte(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of file" }
        let b = bytes[offset]
        if (0x21..<0x7F).contains(b) { return "'\(UnicodeScalar(b))'" }
        if b == 0x20 { return "a space" }
        if b >= 0x80 { return "a non-ASCII character" }
        return "byte 0x\(String(b, radix: 16, uppercase: true))"
    }

    /// The bare word at `offset` (`'nul'`, `'True'`, `'01'`), for messages about literals and numbers.
    func describeWord(at offset: Int) -> String {
        var end = offset
        while end < bytes.count, end - offset < 24 {
            let b = bytes[end]
            let isWordByte =
                (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
                || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
            if !isWordByte { break }
            end += 1
        }
        if end == offset { return describeByte(at: offset) }
        return "'" + String(decoding: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self) + "'"
    }
}
