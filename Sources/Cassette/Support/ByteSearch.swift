extension String {
    /// The offset in the UTF-8 bytes of the first `byte`, or nil. Scans the string's storage as
    /// raw bytes: `utf8.firstIndex(of:)` checks every index it makes, at several times the cost,
    /// and matching and redaction search every request's URL.
    func utf8Offset(of byte: UInt8) -> Int? {
        if let found = utf8.withContiguousStorageIfAvailable({ $0.firstIndex(of: byte) }) { return found }
        return utf8.firstIndex(of: byte).map { utf8.distance(from: utf8.startIndex, to: $0) }
    }

    /// Whether the UTF-8 bytes hold `byte`; see ``utf8Offset(of:)``.
    func utf8Contains(_ byte: UInt8) -> Bool { utf8Offset(of: byte) != nil }
}
