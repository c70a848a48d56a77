import Foundation

extension StringProtocol {
    /// Whether `needle` occurs in the text, compared byte for byte (UTF-8): what a search for a
    /// media type's or a header's ASCII part needs. Foundation's `contains(_:)` on Linux goes
    /// through `NSString` and costs about 10,000 instructions a call, more than matching a request.
    package func containsBytes(_ needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard let first = needle.first else { return true }
        let bytes = Array(utf8)
        guard bytes.count >= needle.count else { return false }
        var index = 0
        while index <= bytes.count - needle.count {
            if bytes[index] == first, (1..<needle.count).allSatisfy({ bytes[index + $0] == needle[$0] }) { return true }
            index += 1
        }
        return false
    }
}
