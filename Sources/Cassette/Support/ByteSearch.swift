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
