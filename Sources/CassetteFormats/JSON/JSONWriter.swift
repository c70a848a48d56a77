/// Writes ``JSONValue`` trees as bytes: compact, or pretty-printed for review.
///
/// Both forms are deterministic: members stay in the order they are given, number literals are
/// written as they are stored, and strings are escaped one way only (see ``appendString(_:to:)``).
package enum JSONWriter {
    /// Appends `string` as a JSON string literal.
    ///
    /// Escapes `"` and `\`, writes `\b \f \n \r \t` for those controls and `\u00XX` for the other
    /// C0 controls, and writes everything else, non-ASCII included, as raw UTF-8. `/` is not escaped.
    package static func appendString(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            for i in 0..<utf8.count {
                let b = utf8[i]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                runStart = i + 1
                out.append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                default:
                    let hexDigit = { (n: UInt8) -> UInt8 in n < 10 ? 0x30 + n : 0x57 + n }  // 0-9, a-f
                    out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigit(b >> 4), hexDigit(b & 0xF)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The compact form: no white space at all, e.g. `{"id":42,"tags":["a","b"]}`.
    package static func compact(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        appendCompact(value, to: &out)
        return out
    }

    /// Appends the compact form of `value` to `out`.
    package static func appendCompact(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let literal): out.append(contentsOf: literal.utf8)
        case .string(let s): appendString(s, to: &out)
        case .longString(let long): appendString(long.string, to: &out)
        case .base64(let data):
            out.append(UInt8(ascii: "\""))
            data.withUnsafeBytes { Base64.encode($0, to: &out) }
            out.append(UInt8(ascii: "\""))
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                appendCompact(element.value, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                appendString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                appendCompact(member.value.value, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}

/// Pretty-prints a JSON tree the way cassette files are written.
///
/// Two-space indentation, `"key": value`, one member or element per line, and a trailing newline.
/// A container that fits on the rest of its line within ``lineWidth`` columns is written inline
/// (`{ "Accept": "text/html" }`, `["a=1", "b=2"]`), unless it sits shallower than
/// ``multilineDepth``: the cassette keeps its root, its interaction list and each interaction on
/// separate lines however short they are, so diffs stay line by line.
package struct JSONPrettyPrinter {
    /// Longest line, in Unicode scalars, that an inline container may produce.
    package var lineWidth = 100
    /// Containers nested less deeply than this are always written one member per line.
    package var multilineDepth = 0

    /// Where the document goes a piece at a time, and how large a piece grows first; nil: the
    /// document is kept whole.
    private var sink: ((ArraySlice<UInt8>) -> Void)?
    private var pieceSize = Int.max

    package init(lineWidth: Int = 100, multilineDepth: Int = 0) {
        self.lineWidth = lineWidth
        self.multilineDepth = multilineDepth
    }

    /// The document, ending with a newline.
    package func print(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, depth: 0, column: 0, to: &out)
        out.append(UInt8(ascii: "\n"))
        return out
    }

    /// `value` as it is printed `depth` levels deep in a document, at a line's indentation for
    /// that depth, without a line end: for replacing one value of a printed file.
    package func print(_ value: JSONValue, depth: Int) -> [UInt8] {
        var out: [UInt8] = []
        write(value, depth: depth, column: 2 * depth, to: &out)
        return out
    }

    /// The same bytes as ``print(_:)``, handed to `sink` in pieces of about `pieceSize` bytes as
    /// they are written: a document with large bodies (``JSONValue/base64(_:)``) is never held whole.
    package func print(_ value: JSONValue, inPiecesOf pieceSize: Int, to sink: @escaping (ArraySlice<UInt8>) -> Void) {
        var printer = self
        printer.sink = sink
        printer.pieceSize = max(1, pieceSize)
        var out: [UInt8] = []
        out.reserveCapacity(min(pieceSize, 1 << 24) + 4096)
        printer.write(value, depth: 0, column: 0, to: &out)
        out.append(UInt8(ascii: "\n"))
        sink(out[...])
    }

    /// Hands what was written to the sink once a piece is full.
    private func flushIfFull(_ out: inout [UInt8]) {
        guard let sink, out.count >= pieceSize else { return }
        sink(out[...])
        out.removeAll(keepingCapacity: true)
    }

    private func write(_ value: JSONValue, depth: Int, column: Int, to out: inout [UInt8]) {
        switch value {
        case .array(let elements) where !elements.isEmpty:
            if depth >= multilineDepth, inlineWidth(of: value, limit: lineWidth - column) != nil {
                appendInline(value, to: &out)
                return
            }
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                newline(indent: depth + 1, to: &out)
                write(element.value, depth: depth + 1, column: 2 * (depth + 1), to: &out)
                if i < elements.count - 1 { out.append(UInt8(ascii: ",")) }
                flushIfFull(&out)
            }
            newline(indent: depth, to: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let members) where !members.isEmpty:
            if depth >= multilineDepth, inlineWidth(of: value, limit: lineWidth - column) != nil {
                appendInline(value, to: &out)
                return
            }
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                newline(indent: depth + 1, to: &out)
                let before = out.count
                JSONWriter.appendString(member.key, to: &out)
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                let keyWidth = scalarCount(out[before...])
                write(member.value.value, depth: depth + 1, column: 2 * (depth + 1) + keyWidth, to: &out)
                if i < members.count - 1 { out.append(UInt8(ascii: ",")) }
                flushIfFull(&out)
            }
            newline(indent: depth, to: &out)
            out.append(UInt8(ascii: "}"))
        case .base64(let data) where sink != nil:
            // Encoded a piece at a time: three bytes of body are four of text.
            out.append(UInt8(ascii: "\""))
            let step = max(3, pieceSize / 4 * 3)
            data.withUnsafeBytes { bytes in
                for start in stride(from: 0, to: bytes.count, by: step) {
                    Base64.encode(UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + step, bytes.count)]), to: &out)
                    flushIfFull(&out)
                }
            }
            out.append(UInt8(ascii: "\""))
        default:
            appendInline(value, to: &out)
        }
    }

    /// Inline form: `{ "a": 1, "b": [1, 2] }`; empty containers are `{}` and `[]`.
    private func appendInline(_ value: JSONValue, to out: inout [UInt8]) {
        switch value {
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
                appendInline(element.value, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                out.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
                return
            }
            out.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: " ")])
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(contentsOf: [UInt8(ascii: ","), UInt8(ascii: " ")]) }
                JSONWriter.appendString(member.key, to: &out)
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
                appendInline(member.value.value, to: &out)
            }
            out.append(contentsOf: [UInt8(ascii: " "), UInt8(ascii: "}")])
        default:
            JSONWriter.appendCompact(value, to: &out)
        }
    }

    /// The width of the inline form of `value`, or nil as soon as it exceeds `limit`.
    /// Stops early, so checking a huge container costs no more than `limit` characters.
    private func inlineWidth(of value: JSONValue, limit: Int) -> Int? {
        var remaining = limit
        func take(_ n: Int) -> Bool {
            remaining -= n
            return remaining >= 0
        }
        func measure(_ value: JSONValue) -> Bool {
            switch value {
            case .null: return take(4)
            case .bool(let b): return take(b ? 4 : 5)
            case .number(let literal): return take(literal.utf8.count)
            case .string(let s): return take(2) && measureString(s)
            case .longString(let long): return take(2 + long.bytes.count)
            case .base64(let data): return take(2 + (data.count + 2) / 3 * 4)
            case .array(let elements):
                guard take(2 + max(0, elements.count - 1) * 2) else { return false }
                for element in elements where !measure(element.value) { return false }
                return true
            case .object(let members):
                guard take(members.isEmpty ? 2 : 4 + (members.count - 1) * 2) else { return false }
                for member in members {
                    guard take(4), measureString(member.key), measure(member.value.value) else { return false }
                }
                return true
            }
        }
        func measureString(_ s: String) -> Bool {
            for scalar in s.unicodeScalars {
                let width: Int
                switch scalar.value {
                case 0x22, 0x5C, 0x08, 0x0C, 0x0A, 0x0D, 0x09: width = 2
                case 0..<0x20: width = 6
                default: width = 1
                }
                guard take(width) else { return false }
            }
            return true
        }
        return measure(value) ? limit - remaining : nil
    }

    private func scalarCount(_ bytes: ArraySlice<UInt8>) -> Int {
        // Continuation bytes (10xxxxxx) do not start a scalar.
        bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }

    private func newline(indent: Int, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * indent))
    }
}
