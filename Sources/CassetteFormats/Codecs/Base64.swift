import Foundation

/// Standard base64 (RFC 4648, with `=` padding) decoding straight from bytes, optionally skipping
/// white space, into one buffer: no intermediate string or filtered copy, which for bodies of
/// tens of megabytes is most of the time and memory a codec spends.
package enum Base64 {
    private static let invalid: UInt8 = 0xFF
    private static let skip: UInt8 = 0xFE

    private static let table: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        for byte in [0x20, 0x09, 0x0A, 0x0D] as [UInt8] { table[Int(byte)] = skip }
        return table
    }()

    /// The bytes `text` encodes, or nil when it is not base64: a byte outside the alphabet (or
    /// white space when `allowingWhitespace` is false), a length that is not a multiple of 4, or
    /// `=` anywhere but the last one or two places.
    package static func decode(_ text: some Collection<UInt8>, allowingWhitespace: Bool) -> Data? {
        let decoded: Data?? = text.withContiguousStorageIfAvailable { decode($0, allowingWhitespace: allowingWhitespace) }
        if let decoded { return decoded }
        return Array(text).withUnsafeBufferPointer { decode($0, allowingWhitespace: allowingWhitespace) }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends `bytes` in standard base64 with `=` padding, on one line, to `out`: what
    /// `Data.base64EncodedString()` gives, without the string.
    package static func encode(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        let count = bytes.count
        let start = out.count
        // An array made whole, not appended element by element (which a debug build does one call at a time).
        out.append(contentsOf: [UInt8](repeating: UInt8(ascii: "="), count: (count + 2) / 3 * 4))
        guard let first = bytes.baseAddress else { return }
        // Typed pointers, whose subscripts are inlined even in a debug build (a test run saves
        // bodies of many megabytes through here).
        let input = first.assumingMemoryBound(to: UInt8.self)
        alphabet.withUnsafeBufferPointer { table in
            out.withUnsafeMutableBufferPointer { buffer in
                guard let alphabet = table.baseAddress, let base = buffer.baseAddress else { return }
                var o = base + start
                var i = 0
                while i + 3 <= count {
                    let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    o[0] = alphabet[Int(n >> 18 & 63)]
                    o[1] = alphabet[Int(n >> 12 & 63)]
                    o[2] = alphabet[Int(n >> 6 & 63)]
                    o[3] = alphabet[Int(n & 63)]
                    o += 4
                    i += 3
                }
                guard i < count else { return }
                // The last one or two bytes; the "=" already there pads the rest.
                let n = UInt32(input[i]) << 16 | (i + 1 < count ? UInt32(input[i + 1]) << 8 : 0)
                o[0] = alphabet[Int(n >> 18 & 63)]
                o[1] = alphabet[Int(n >> 12 & 63)]
                if i + 1 < count { o[2] = alphabet[Int(n >> 6 & 63)] }
            }
        }
    }

    /// The bytes `text` encodes (base64 without white space, as a JSON cassette writes it), decoded
    /// `chunk` bytes of text at a time, calling `decoded` with the range of `text` (from its start)
    /// done after each: the caller may let go of those bytes of its source.
    package static func decode(_ text: Data, inChunksOf chunk: Int, decoded: (Range<Int>) -> Void) -> Data? {
        let chunk = max(4, chunk / 4 * 4)
        var output = Data(count: text.count / 4 * 3 + 3)
        let written = text.withUnsafeBytes { raw -> Int? in
            let input = raw.bindMemory(to: UInt8.self)
            return output.withUnsafeMutableBytes { out -> Int? in
                guard let out = out.bindMemory(to: UInt8.self).baseAddress else { return input.isEmpty ? 0 : nil }
                return table.withUnsafeBufferPointer { table -> Int? in
                    var total = 0
                    for start in stride(from: 0, to: input.count, by: chunk) {
                        let end = min(start + chunk, input.count)
                        guard
                            let count = decode(
                                UnsafeBufferPointer(rebasing: input[start..<end]), into: out + total, table: table,
                                allowingWhitespace: false),
                            // Padding ends the text: only the last piece may be short of three bytes per four.
                            end == input.count || count == (end - start) / 4 * 3
                        else { return nil }
                        total += count
                        decoded(start..<end)
                    }
                    return total
                }
            }
        }
        guard let written else { return nil }
        output.count = written
        return output
    }

    private static func decode(_ input: UnsafeBufferPointer<UInt8>, allowingWhitespace: Bool) -> Data? {
        var output = Data(count: input.count / 4 * 3 + 3)
        let written = output.withUnsafeMutableBytes { raw -> Int? in
            guard let out = raw.bindMemory(to: UInt8.self).baseAddress else { return input.isEmpty ? 0 : nil }
            return table.withUnsafeBufferPointer { table in decode(input, into: out, table: table, allowingWhitespace: allowingWhitespace) }
        }
        guard let written else { return nil }
        output.count = written
        return output
    }

    /// Decodes into `out`, which has room for `input.count / 4 * 3 + 3` bytes; returns how many
    /// were written, or nil for invalid input.
    private static func decode(
        _ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
        table: UnsafeBufferPointer<UInt8>, allowingWhitespace: Bool
    ) -> Int? {
        var written = 0
        var quad: UInt32 = 0
        var filled = 0
        var padding = 0
        var ended = false  // a quad with padding was completed: only white space may follow
        var i = 0
        let count = input.count
        while i < count {
            // Fast path: four alphabet characters make three bytes.
            if filled == 0, i + 4 <= count {
                let a = table[Int(input[i])]
                let b = table[Int(input[i + 1])]
                let c = table[Int(input[i + 2])]
                let d = table[Int(input[i + 3])]
                if a | b | c | d < 64 {
                    guard !ended else { return nil }
                    out[written] = a << 2 | b >> 4
                    out[written + 1] = b << 4 | c >> 2
                    out[written + 2] = c << 6 | d
                    written += 3
                    i += 4
                    continue
                }
            }
            let byte = input[i]
            i += 1
            let value = table[Int(byte)]
            if value == skip {
                guard allowingWhitespace else { return nil }
                continue
            }
            guard !ended else { return nil }
            if byte == UInt8(ascii: "=") {
                // Padding fills the last one or two places of a quad.
                guard filled >= 2 else { return nil }
                padding += 1
                quad <<= 6
            } else {
                guard value != invalid, padding == 0 else { return nil }
                quad = quad << 6 | UInt32(value)
            }
            filled += 1
            if filled == 4 {
                out[written] = UInt8(truncatingIfNeeded: quad >> 16)
                written += 1
                if padding < 2 {
                    out[written] = UInt8(truncatingIfNeeded: quad >> 8)
                    written += 1
                }
                if padding < 1 {
                    out[written] = UInt8(truncatingIfNeeded: quad)
                    written += 1
                }
                ended = padding > 0
                quad = 0
                filled = 0
            }
        }
        return filled == 0 ? written : nil
    }
}
