import Foundation

/// A JSON syntax error at a byte offset of the source.
package struct JSONSyntaxError: Error, Sendable, Equatable {
    /// Byte offset where the problem was found.
    package var offset: Int
    /// What was expected and what was found, for a person.
    package var message: String
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes that keeps offsets and number literals.
///
/// Strict means: no comments, no trailing commas, no single quotes, no `NaN`, no control
/// characters inside strings, no invalid UTF-8, no unpaired surrogate escapes. A leading UTF-8
/// byte order mark is skipped. Nesting deeper than ``maximumDepth`` is an error rather than a
/// stack overflow, so no input can crash the process.
package struct JSONParser {
    /// The deepest nesting accepted. A cassette needs about six levels plus its JSON bodies.
    package static let maximumDepth = 256

    /// Parses a whole document. Anything but white space after the value is an error.
    ///
    /// - Parameter longStrings: strings of at least this many bytes without escapes are kept as
    ///   ``JSONValue/longString(_:)``, slices of `data`, instead of being copied into a `String`
    ///   (a cassette's base64 bodies); nil copies every string.
    /// - Parameter release: told which bytes of `data` (offsets from its start) a long string
    ///   scanned and no longer needs until it is read (see ``JSONLongString/release``).
    package static func parse(
        _ data: Data, keepingStringsLongerThan longStrings: Int? = nil,
        release: (@Sendable (Range<Int>) -> Void)? = nil
    ) throws(JSONSyntaxError) -> JSONNode {
        try parse(data, keepingStringsLongerThan: longStrings, release: release, compactingBodies: false).root
    }

    /// ``parse(_:keepingStringsLongerThan:release:)``, and with `compactingBodies` ``parseCassette(_:keepingStringsLongerThan:release:)``.
    static func parse(
        _ data: Data, keepingStringsLongerThan longStrings: Int?, release: (@Sendable (Range<Int>) -> Void)?,
        compactingBodies: Bool
    ) throws(JSONSyntaxError) -> CassetteTree {
        let result: Result<CassetteTree, JSONSyntaxError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var parser = JSONParser(
                bytes: bytes, source: longStrings == nil ? nil : data, longStrings: longStrings ?? .max, release: release)
            parser.compactsBodies = compactingBodies
            return Result { () throws(JSONSyntaxError) in
                let root = try parser.parseDocument()
                return CassetteTree(root: root, compactBodies: parser.compactBodies)
            }
        }
        return try result.get()
    }

    /// Where the value that starts at byte `offset` of `data` ends: the offset just after its
    /// last byte. For replacing one value of a file and keeping every other byte as written.
    package static func end(ofValueAt offset: Int, in data: Data) throws(JSONSyntaxError) -> Int {
        let result: Result<Int, JSONSyntaxError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self), source: nil, longStrings: .max, release: nil)
            parser.index = offset
            return Result { () throws(JSONSyntaxError) in
                _ = try parser.parseValue()
                return parser.index
            }
        }
        return try result.get()
    }

    let bytes: UnsafeBufferPointer<UInt8>
    /// The bytes as `Data`, for slices of long strings; nil when every string is copied.
    let source: Data?
    let longStrings: Int
    let release: (@Sendable (Range<Int>) -> Void)?
    var index = 0
    var depth = 0
    /// Whether a cassette's `"json"` bodies are kept as compact bytes (``parseCassette``).
    private var compactsBodies = false
    /// Whether the root member being parsed is `interactions`.
    private var inInteractions = false
    /// The compacted bodies, by offset.
    var compactBodies: [Int: Data] = [:]

    private init(bytes: UnsafeBufferPointer<UInt8>, source: Data?, longStrings: Int, release: (@Sendable (Range<Int>) -> Void)?) {
        self.bytes = bytes
        self.source = source
        self.longStrings = longStrings
        self.release = release
    }

    // MARK: Document

    private mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            throw JSONSyntaxError(offset: 0, message: "the file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8")
        }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            index = 3
        }
        skipWhitespace()
        if index == bytes.count {
            throw JSONSyntaxError(offset: index, message: "the file is empty; expected a JSON object")
        }
        let node = try parseValue()
        skipWhitespace()
        if index < bytes.count {
            throw error("unexpected \(describeByte(at: index)) after the end of the JSON document")
        }
        return node
    }

    // MARK: Values

    /// The value at `index`; `name` is the key it is the value of, if any.
    private mutating func parseValue(named name: String? = nil) throws(JSONSyntaxError) -> JSONNode {
        guard index < bytes.count else {
            throw error("unexpected end of file; expected a value")
        }
        let start = index
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONNode(try parseObject(named: name), offset: start)
        case UInt8(ascii: "["): return JSONNode(try parseArray(), offset: start)
        case UInt8(ascii: "\""): return JSONNode(try parseStringValue(), offset: start)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return JSONNode(.bool(true), offset: start)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return JSONNode(.bool(false), offset: start)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return JSONNode(.null, offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(.number(try parseNumber()), offset: start)
        default:
            throw error("expected a value, found \(describeWord(at: index))")
        }
    }

    private mutating func parseObject(named name: String?) throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        index += 1  // {
        var members: [JSONMember] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                if peek() == UInt8(ascii: "}") {
                    throw error("expected a key in double quotes, found '}' (JSON does not allow a comma before '}')")
                }
                throw error("expected a key in double quotes, found \(describeByte(at: index))")
            }
            let keyOffset = index
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else {
                throw error("expected ':' after the key \"\(key)\", found \(describeByte(at: index))")
            }
            index += 1
            skipWhitespace()
            if depth == 1 { inInteractions = key == "interactions" }
            let value: JSONNode
            if compactsBodies, depth == 5, inInteractions, name == "body", key == "json", let compacted = compactedValue() {
                value = compacted
            } else {
                value = try parseValue(named: key)
            }
            members.append(JSONMember(key: key, keyOffset: keyOffset, value: value))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(members)
            default:
                throw error("expected ',' or '}' after the value of \"\(key)\", found \(describeByte(at: index))")
            }
        }
    }

    private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
        try enterContainer()
        index += 1  // [
        var elements: [JSONNode] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                throw error("expected a value, found ']' (JSON does not allow a comma before ']')")
            }
            elements.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default:
                throw error("expected ',' or ']' after an array element, found \(describeByte(at: index))")
            }
        }
    }

    private mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("JSON nested deeper than \(Self.maximumDepth) levels")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { expected in
            guard bytes.count - start >= count else { return false }
            for i in 0..<count where bytes[start + i] != expected[i] { return false }
            return true
        }
        guard matches else {
            throw error("expected a value, found \(describeWord(at: start))")
        }
        index += count
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONSyntaxError) -> String {
        let start = index
        try scanNumber()
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    /// Moves past the number at `index`, checking its grammar.
    mutating func scanNumber() throws(JSONSyntaxError) {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else {
            throw JSONSyntaxError(offset: start, message: "invalid number \(describeWord(at: start)): expected a digit after '-'")
        }
        index += 1
        if first == UInt8(ascii: "0"), let next = peek(), isDigit(next) {
            throw JSONSyntaxError(
                offset: start, message: "invalid number \(describeWord(at: start)): JSON numbers cannot have leading zeros")
        }
        while let b = peek(), isDigit(b) { index += 1 }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let b = peek(), isDigit(b) else {
                throw JSONSyntaxError(offset: start, message: "invalid number \(describeWord(at: start)): expected a digit after '.'")
            }
            while let b = peek(), isDigit(b) { index += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let b = peek(), isDigit(b) else {
                throw JSONSyntaxError(offset: start, message: "invalid number \(describeWord(at: start)): expected a digit in the exponent")
            }
            while let b = peek(), isDigit(b) { index += 1 }
        }
    }

    // MARK: Helpers

    @inline(__always)
    func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    func hex(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, message: message)
    }
}
