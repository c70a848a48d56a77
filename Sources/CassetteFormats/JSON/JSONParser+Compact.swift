/// The compact form of an object or array, copied from the bytes the parser reads instead of
/// being built as a tree and written again: white space outside strings dropped, every other byte
/// kept. It is ``JSONWriter/compact(_:)``'s output for the same value, because only what the
/// writer writes the same way is taken — strings whose escapes are the writer's own (`\"`, `\\`,
/// `\b`, `\f`, `\n`, `\r`, `\t`, and `\u00xx` in lower case for the other control characters),
/// numbers and literals as written (the writer keeps them as written too).
///
/// ``compact()`` checks the value as ``parseValue(named:)`` would (the same grammar, UTF-8,
/// nesting limit) and its objects for duplicate keys, and gives up, consuming nothing, on
/// anything else: an invalid value (the tree's parse then reports it, with its message), a
/// duplicate key (the reader reports it, with its path), a key that is not ASCII (the tree
/// compares keys as `String`s, which are equal when canonically equivalent: `"K"` and the Kelvin
/// sign), an object of more than ``compactedKeys`` keys, or an escape the writer writes otherwise
/// (`\/`, `\u00e9`: the writer compacts the tree).
extension JSONParser {
    /// The compact bytes of the object or array at `index`, which is then just past it; nil, with
    /// `index` and `depth` as they were, when it is to be parsed as a tree.
    mutating func compact() -> [UInt8]? {
        let start = index
        let startDepth = depth
        guard let first = peek(), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        var out: [UInt8] = []
        var keys: [Range<Int>] = []
        guard compactValue(into: &out, keys: &keys) else {
            index = start
            depth = startDepth
            return nil
        }
        // A long body read from a mapped file: its pages are not needed again.
        if let release, index - start >= Self.releaseStep { release(start..<index) }
        return out
    }

    private mutating func compactValue(into out: inout [UInt8], keys: inout [Range<Int>]) -> Bool {
        guard let first = peek() else { return false }
        let start = index
        switch first {
        case UInt8(ascii: "{"): return compactObject(into: &out, keys: &keys)
        case UInt8(ascii: "["): return compactArray(into: &out, keys: &keys)
        case UInt8(ascii: "\""): return compactString(into: &out, asciiOnly: false)
        case UInt8(ascii: "t"): guard (try? expectLiteral("true")) != nil else { return false }
        case UInt8(ascii: "f"): guard (try? expectLiteral("false")) != nil else { return false }
        case UInt8(ascii: "n"): guard (try? expectLiteral("null")) != nil else { return false }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): guard (try? scanNumber()) != nil else { return false }
        default: return false
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        return true
    }

    /// `{`, members, `}`; `keys` holds the key ranges of the objects being read, this one's last.
    private mutating func compactObject(into out: inout [UInt8], keys: inout [Range<Int>]) -> Bool {
        guard enter() else { return false }
        out.append(UInt8(ascii: "{"))
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { return leave(UInt8(ascii: "}"), into: &out) }
        let own = keys.count
        defer { keys.removeSubrange(own...) }
        while true {
            skipWhitespace()
            let keyStart = index
            guard peek() == UInt8(ascii: "\""), compactString(into: &out, asciiOnly: true) else { return false }
            let key = keyStart..<index
            // Past a few dozen keys the tree's check, which hashes them, costs less than comparing each pair.
            guard keys.count - own < Self.compactedKeys, !repeats(key, among: keys[own...]) else { return false }
            keys.append(key)
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { return false }
            index += 1
            out.append(UInt8(ascii: ":"))
            skipWhitespace()
            guard compactValue(into: &out, keys: &keys) else { return false }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                out.append(UInt8(ascii: ","))
            case UInt8(ascii: "}"):
                return leave(UInt8(ascii: "}"), into: &out)
            default:
                return false
            }
        }
    }

    private mutating func compactArray(into out: inout [UInt8], keys: inout [Range<Int>]) -> Bool {
        guard enter() else { return false }
        out.append(UInt8(ascii: "["))
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { return leave(UInt8(ascii: "]"), into: &out) }
        while true {
            skipWhitespace()
            guard compactValue(into: &out, keys: &keys) else { return false }
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
                out.append(UInt8(ascii: ","))
            case UInt8(ascii: "]"):
                return leave(UInt8(ascii: "]"), into: &out)
            default:
                return false
            }
        }
    }

    /// The most keys an object of a compacted value has; one with more is parsed as a tree.
    static let compactedKeys = 32

    /// Past the `{` or `[` at `index`, one level deeper; false beyond the parser's nesting limit.
    private mutating func enter() -> Bool {
        depth += 1
        index += 1
        return depth <= Self.maximumDepth
    }

    /// Past the closing `byte` at `index`, one level up.
    private mutating func leave(_ byte: UInt8, into out: inout [UInt8]) -> Bool {
        index += 1
        depth -= 1
        out.append(byte)
        return true
    }

    /// The string at `index`, quotes included, copied as it is when it is valid and every escape
    /// in it is the writer's; `asciiOnly` (a key) also refuses any byte above 0x7F.
    private mutating func compactString(into out: inout [UInt8], asciiOnly: Bool) -> Bool {
        let open = index
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[open..<index]))
                return true
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { return false }
                switch bytes[index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "b"), UInt8(ascii: "f"), UInt8(ascii: "n"),
                    UInt8(ascii: "r"), UInt8(ascii: "t"):
                    index += 2
                case UInt8(ascii: "u"):
                    guard index + 5 < bytes.count, isWrittenEscape(at: index + 2) else { return false }
                    index += 6
                default:
                    return false
                }
            case 0..<0x20:
                return false
            case 0x20..<0x80:
                index += 1
            default:
                guard !asciiOnly, let length = UTF8Validation.sequenceLength(in: bytes, at: index) else { return false }
                index += length
            }
        }
        return false
    }

    /// Whether the four hex digits at `offset` are `00xx` in lower case, `xx` a control character
    /// that has no short escape: the writer's `\u` form.
    private func isWrittenEscape(at offset: Int) -> Bool {
        guard bytes[offset] == UInt8(ascii: "0"), bytes[offset + 1] == UInt8(ascii: "0") else { return false }
        func value(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            default: return nil
            }
        }
        guard let high = value(bytes[offset + 2]), let low = value(bytes[offset + 3]) else { return false }
        let code = high << 4 | low
        return code < 0x20 && ![0x08, 0x09, 0x0A, 0x0C, 0x0D].contains(code)
    }

    /// Whether the key at `key` (quotes included, ASCII, escapes the writer's: equal bytes are
    /// equal keys) is one of `earlier`.
    private func repeats(_ key: Range<Int>, among earlier: ArraySlice<Range<Int>>) -> Bool {
        earlier.contains { $0.count == key.count && bytes[$0].elementsEqual(bytes[key]) }
    }
}
