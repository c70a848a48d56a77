/// The compact form of a JSON object or array, copied from the bytes it was parsed from rather
/// than written again from its tree: white space outside strings dropped, everything else kept —
/// which is ``JSONWriter/compact(_:)``'s output exactly when every escape in its strings is the one
/// the writer writes (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, and `\u00xx` in lower case for the
/// other control characters). Numbers and literals are written as they were read either way.
///
/// A cassette's `"json"` body is read this way: its bytes are a copy of the file's, with no tree
/// walked to write them (the reader still checks the tree for duplicate keys).
package enum JSONCompactCopy {
    /// The compact bytes of the object or array starting at `start` in `source`, which the parser
    /// read without error; nil when the value is a scalar, or a string in it has an escape the
    /// writer writes otherwise (`\/`, `\u00e9`, `\u000A`), for the writer to compact from the tree.
    package static func copy(_ source: UnsafeRawBufferPointer, from start: Int) -> [UInt8]? {
        guard start >= 0, start < source.count, source[start] == UInt8(ascii: "{") || source[start] == UInt8(ascii: "[") else {
            return nil
        }
        var out: [UInt8] = []
        var depth = 0
        var index = start
        var runStart = start
        /// Copies the bytes since the last cut, up to `index`.
        func flush(upTo end: Int) {
            if end > runStart { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: source[runStart..<end])) }
        }
        while index < source.count {
            let byte = source[index]
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                flush(upTo: index)
                index += 1
                runStart = index
            case UInt8(ascii: "\""):
                guard let end = stringEnd(source, from: index + 1) else { return nil }
                index = end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                index += 1
                if depth == 0 {
                    flush(upTo: index)
                    return out
                }
            default:
                index += 1
            }
        }
        return nil  // not reachable for a value the parser read: it ends
    }

    /// The offset just past the closing quote of the string whose content starts at `start`; nil
    /// when an escape in it is not the one the writer writes.
    private static func stringEnd(_ source: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index < source.count {
            switch source[index] {
            case UInt8(ascii: "\""):
                return index + 1
            case UInt8(ascii: "\\"):
                guard index + 1 < source.count else { return nil }
                switch source[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 5 < source.count, isWrittenEscape(source, at: index + 2) else { return nil }
                    index += 6
                default:
                    return nil
                }
            default:
                index += 1
            }
        }
        return nil
    }

    /// Whether the four hex digits at `offset` are `00xx` in lower case, `xx` a control character
    /// that has no short escape: the writer's `\u` form.
    private static func isWrittenEscape(_ source: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard source[offset] == UInt8(ascii: "0"), source[offset + 1] == UInt8(ascii: "0") else { return false }
        func value(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            default: return nil
            }
        }
        guard let high = value(source[offset + 2]), let low = value(source[offset + 3]) else { return false }
        let code = high << 4 | low
        return code < 0x20 && ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(code)
    }
}
