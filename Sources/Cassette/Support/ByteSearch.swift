extension String {
    /// The offset in the UTF-8 bytes of the first `byte`, or nil. Scans the string's storage as
    /// raw bytes: `utf8.firstIndex(of:)` checks every index it makes, at several times the cost,
    /// and matching and redaction search every request's URL.
    func utf8Offset(of byte: UInt8) -> Int? {
        var bytes = self
        // `withUTF8` copies only a bridged string.
        return bytes.withUTF8 { $0.firstIndex(of: byte) }
    }

    /// Whether the UTF-8 bytes hold `byte`; see ``utf8Offset(of:)``.
    func utf8Contains(_ byte: UInt8) -> Bool { utf8Offset(of: byte) != nil }
}

extension String {
    /// Whether the UTF-8 bytes hold `needle`'s, compared byte for byte (no Unicode equivalence,
    /// no bridging through Foundation, which `contains(_:)` on a `String` costs).
    package func utf8Contains(_ needle: String) -> Bool { utf8Offset(of: needle) != nil }

    /// The offset in the UTF-8 bytes where `needle`'s bytes first start, or nil, compared as `utf8Contains(_:)` compares.
    func utf8Offset(of needle: String) -> Int? {
        var bytes = self
        var needle = needle
        return bytes.withUTF8 { haystack in needle.withUTF8 { haystack.utf8Offset(of: $0) } }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes hold `needle`'s, in a row.
    func utf8Contains(_ needle: UnsafeBufferPointer<UInt8>) -> Bool { utf8Offset(of: needle) != nil }

    /// Where `needle`'s bytes first start in these, in a row, or nil (0 for an empty needle).
    func utf8Offset(of needle: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = needle.first else { return 0 }
        guard needle.count <= count else { return nil }
        var start = 0
        let last = count - needle.count
        while start <= last {
            guard let found = self[start...last].firstIndex(of: first) else { return nil }
            if self[found..<(found + needle.count)].elementsEqual(needle) { return found }
            start = found + 1
        }
        return nil
    }
}
