import Foundation

/// Strict UTF-8 validation (no overlong forms, no surrogates, nothing above U+10FFFF).
///
/// Written here because `String(validating:as:)` needs macOS 15 / iOS 18, and Foundation's
/// `String(data:encoding:)` may drop a byte order mark, which would change a body's bytes.
package enum UTF8Validation {
    /// The length of the valid UTF-8 sequence starting at `index`, or nil when it is invalid.
    @inline(__always)
    package static func sequenceLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let b0 = bytes[index]
        if b0 < 0x80 { return 1 }
        let length: Int
        var lowerBound: UInt8 = 0x80
        var upperBound: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lowerBound = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upperBound = 0x9F  // no UTF-16 surrogates
        case 0xF0:
            length = 4
            lowerBound = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upperBound = 0x8F
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        let b1 = bytes[index + 1]
        guard b1 >= lowerBound, b1 <= upperBound else { return nil }
        for i in 2..<max(2, length) where bytes[index + i] & 0xC0 != 0x80 { return nil }
        return length
    }

    /// Whether all of `bytes` is valid UTF-8.
    package static func isValid(_ bytes: some ContiguousBytes) -> Bool {
        bytes.withUnsafeBytes { raw in
            let buffer = raw.bindMemory(to: UInt8.self)
            var i = 0
            while i < buffer.count {
                guard let length = sequenceLength(in: buffer, at: i) else { return false }
                i += length
            }
            return true
        }
    }
}
