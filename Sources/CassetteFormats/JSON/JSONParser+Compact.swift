import Foundation

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
    /// A cassette's tree, and the compact bytes of each `"json"` body (`interactions[i].request`
    /// or `.response`, then `body.json`) that is an object or array, keyed by the offset of its
    /// first byte: such a body is checked as strictly as any value (and its keys for duplicates)
    /// but never built as a tree, which is most of what reading a cassette of JSON bodies costs.
    /// In the tree, its value is an empty object or array standing for those bytes: read it from
    /// ``CassetteTree/compactBodies`` (the JSON cassette reader does, and nothing else is given this
    /// tree). A body that is not valid, repeats a key, has a key that is not ASCII (Swift's
    /// `String` equality, which the duplicate check uses, is Unicode's canonical equivalence), an
    /// object of more than ``compactedKeys`` keys or a string escape the writer writes otherwise
    /// (`\/`, `\u00e9`) is parsed as a tree as before, so errors and the bytes read are the same
    /// either way.
    package static func parseCassette(
        _ data: Data, keepingStringsLongerThan longStrings: Int? = nil,
        release: (@Sendable (Range<Int>) -> Void)? = nil
    ) throws(JSONSyntaxError) -> CassetteTree {
        try parse(data, keepingStringsLongerThan: longStrings, release: release, compactingBodies: true)
    }

    /// What ``parseCassette(_:keepingStringsLongerThan:release:)`` gives.
    package struct CassetteTree {
        /// The tree, each compacted body an empty container at its offset.
        package var root: JSONNode
        /// The compact bytes of each compacted `"json"` body, by the offset of its value.
        package var compactBodies: [Int: Data]
    }

    /// The object or array at `index` as compact bytes (``compactBodies``) and its stand-in node;
    /// nil, with nothing consumed, when it is to be parsed as a tree (see ``compact()``).
    mutating func compactedValue() -> JSONNode? {
        let start = index
        guard let compact = compact() else { return nil }
        compactBodies[start] = compact
        return JSONNode(bytes[start] == UInt8(ascii: "{") ? .object([]) : .array([]), offset: start)
    }

    /// The compact bytes of the object or array at `index`, which is then just past it; nil, with
    /// `index` and `depth` as they were, when it is to be parsed as a tree.
    mutating func compact() -> Data? {
        let start = index
        let startDepth = depth
        guard let first = peek(), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else { return nil }
        var copy = Compaction(run: start, expected: bytes.count - start)
        let valid = compactValue(&copy)
        copy.flush(bytes, upTo: index)
        guard valid, let compact = copy.data() else {
            index = start
            depth = startDepth
            return nil
        }
        // A long body read from a mapped file: its pages are not needed again.
        if let release, index - start >= Self.releaseStep { release(start..<index) }
        return compact
    }

    /// What a compaction has copied, and from where it copies next: the bytes between white space
    /// are copied a run at a time, when white space ends one, into one buffer that becomes the
    /// body's `Data` without a copy (it was an array, then copied into `Data`: a large body's
    /// peak held both).
    struct Compaction: ~Copyable {
        /// Where the bytes not yet copied start.
        var run: Int
        /// The key ranges of the objects being read, the innermost's last.
        var keys: [Range<Int>] = []
        private var buffer: UnsafeMutablePointer<UInt8>?
        private var count = 0
        private var capacity = 0
        /// Whether memory ran out: the compaction then gives nothing and the tree's parse is tried.
        private var failed = false
        /// How the buffer grows: `realloc`, or in a test one that fails.
        private var reallocate: (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer?

        /// A compaction starting at `run`, of at most `expected` bytes (what is left of the file).
        init(
            run: Int, expected: Int,
            reallocate: @escaping (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer? = { realloc($0, $1) }
        ) {
            self.run = run
            self.reallocate = reallocate
            reserve(min(max(expected, 16), Self.firstCapacity))
        }

        deinit { free(buffer) }

        /// What the buffer holds first: a body of a few KB needs no second allocation.
        static let firstCapacity = 16_384

        mutating func flush(_ bytes: UnsafeBufferPointer<UInt8>, upTo end: Int) {
            let length = end - run
            guard length > 0, let source = bytes.baseAddress else { return }
            if count + length > capacity { reserve(max(capacity * 2, count + length)) }
            // Once memory ran out the buffer is too small: nothing more is copied into it.
            guard !failed, let buffer else { return }
            (buffer + count).initialize(from: source + run, count: length)
            count += length
        }

        private mutating func reserve(_ wanted: Int) {
            guard !failed else { return }
            guard let grown = reallocate(buffer, wanted) else {
                failed = true
                return
            }
            buffer = grown.assumingMemoryBound(to: UInt8.self)
            capacity = wanted
        }

        /// The bytes copied, as `Data` that owns the buffer (trimmed to them); nil when memory ran out.
        consuming func data() -> Data? {
            guard !failed, count > 0, let kept = buffer else { return nil }
            buffer = nil
            let trimmed = count < capacity ? realloc(kept, count)?.assumingMemoryBound(to: UInt8.self) ?? kept : kept
            return Data(bytesNoCopy: trimmed, count: count, deallocator: .free)
        }
    }

    /// Past white space at `index`, which the copy leaves out.
    private mutating func skipGap(_ copy: inout Compaction) {
        let gap = index
        skipWhitespace()
        guard index > gap else { return }
        copy.flush(bytes, upTo: gap)
        copy.run = index
    }

    private mutating func compactValue(_ copy: inout Compaction) -> Bool {
        guard let first = peek() else { return false }
        switch first {
        case UInt8(ascii: "{"): return compactObject(&copy)
        case UInt8(ascii: "["): return compactArray(&copy)
        case UInt8(ascii: "\""): return compactString(asciiOnly: false)
        case UInt8(ascii: "t"): return (try? expectLiteral("true")) != nil
        case UInt8(ascii: "f"): return (try? expectLiteral("false")) != nil
        case UInt8(ascii: "n"): return (try? expectLiteral("null")) != nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return (try? scanNumber()) != nil
        default: return false
        }
    }

    /// `{`, members, `}`, each key checked against the object's earlier ones.
    private mutating func compactObject(_ copy: inout Compaction) -> Bool {
        guard enter() else { return false }
        skipGap(&copy)
        if peek() == UInt8(ascii: "}") { return leave() }
        let own = copy.keys.count
        defer { copy.keys.removeSubrange(own...) }
        while true {
            skipGap(&copy)
            let keyStart = index
            guard peek() == UInt8(ascii: "\""), compactString(asciiOnly: true) else { return false }
            let key = keyStart..<index
            // Past a few dozen keys the tree's check, which hashes them, costs less than comparing each pair.
            guard copy.keys.count - own < Self.compactedKeys, !repeats(key, among: copy.keys[own...]) else { return false }
            copy.keys.append(key)
            skipGap(&copy)
            guard peek() == UInt8(ascii: ":") else { return false }
            index += 1
            skipGap(&copy)
            guard compactValue(&copy) else { return false }
            skipGap(&copy)
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): return leave()
            default: return false
            }
        }
    }

    private mutating func compactArray(_ copy: inout Compaction) -> Bool {
        guard enter() else { return false }
        skipGap(&copy)
        if peek() == UInt8(ascii: "]") { return leave() }
        while true {
            skipGap(&copy)
            guard compactValue(&copy) else { return false }
            skipGap(&copy)
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): return leave()
            default: return false
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

    /// Past the closing `}` or `]` at `index`, one level up.
    private mutating func leave() -> Bool {
        index += 1
        depth -= 1
        return true
    }

    /// Past the string at `index` when it is valid and every escape in it is the writer's;
    /// `asciiOnly` (a key) also refuses any byte above 0x7F.
    private mutating func compactString(asciiOnly: Bool) -> Bool {
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
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
