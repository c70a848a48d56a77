import Foundation

extension StringProtocol {
    /// Whether `needle` occurs in the text, compared byte for byte (UTF-8): what a search for a
    /// media type's or a header's ASCII part needs. Foundation's `contains(_:)` on Linux goes
    /// through `NSString` and costs about 10,000 instructions a call, more than matching a request.
    package func containsBytes(_ needle: String) -> Bool {
        var needle = needle
        return needle.withUTF8 { pattern in
            // A native string's bytes in place; any other copied once.
            utf8.withContiguousStorageIfAvailable { occurs(pattern, in: $0) }
                ?? Array(utf8).withUnsafeBufferPointer { occurs(pattern, in: $0) }
        }
    }
}

/// Whether `pattern` occurs in `bytes`.
private func occurs(_ pattern: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let first = pattern.first else { return true }
    guard bytes.count >= pattern.count else { return false }
    var index = 0
    while index <= bytes.count - pattern.count {
        if bytes[index] == first, (1..<pattern.count).allSatisfy({ bytes[index + $0] == pattern[$0] }) { return true }
        index += 1
    }
    return false
}

extension Data {
    /// Whether this data holds exactly `bytes`, compared in place (iterating a `Data` calls into
    /// Foundation for each byte on Linux).
    package func holds(exactly bytes: [UInt8]) -> Bool {
        count == bytes.count
            && withUnsafeBytes { stored in
                bytes.withUnsafeBytes { other in
                    guard let a = stored.baseAddress, let b = other.baseAddress else { return true }
                    return memcmp(a, b, bytes.count) == 0
                }
            }
    }
}
