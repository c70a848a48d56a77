import Foundation

extension StringProtocol {
    /// `trimmingCharacters(in: .whitespaces)` — spaces and tabs, and Unicode's other spaces — with
    /// the bytes looked at first: a header field's value is trimmed on every request `TapeServer`
    /// reads, and Foundation's trimming cost more than the rest of reading its head. Only a value
    /// with a byte beyond ASCII at either end after its spaces and tabs (a no-break or an
    /// ideographic space, say, or any other character) goes to Foundation, so the answer is the same.
    package func trimmingWhitespace() -> String {
        let text = Substring(self)
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while start < end {
            let last = bytes.index(before: end)
            guard bytes[last] == 0x20 || bytes[last] == 0x09 else { break }
            end = last
        }
        if start < end, bytes[start] >= 0x80 || bytes[bytes.index(before: end)] >= 0x80 {
            return trimmingCharacters(in: .whitespaces)
        }
        return String(text[start..<end])
    }
}
