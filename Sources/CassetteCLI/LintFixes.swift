import Cassette
import Foundation

/// What `cassette lint --fix` changes in a cassette's text: only what is mechanical, each change a
/// replacement of the exact bytes a problem points at, so everything else stays as written (member
/// order, spacing, what the reader does not judge).
///
/// - A `Content-Length` that disagrees with its body (a lint warning) becomes the body's size.
/// - A misspelt error code with exactly one close match (`"timedOt"`, "did you mean "timedOut"?")
///   becomes that match.
///
/// A file with a syntax error is not fixed (nothing can be located in it); a problem whose bytes
/// are not what it names is left alone.
struct LintFixes {
    /// One replacement: `range` of the file's bytes becomes `text`.
    struct Fix {
        var range: Range<Int>
        var text: String
        /// `FILE:LINE:COLUMN: fixed: WHAT`, without the file.
        var line: Int
        var column: Int
        var summary: String
    }

    private let bytes: [UInt8]
    private let format: CassetteFormat

    init(data: Data, format: CassetteFormat) {
        bytes = [UInt8](data)
        self.format = format
    }

    /// The fixes for `problems` (when the file could not be read) or `warnings` (when it could).
    func fixes(for problems: [CassetteFormatError.Problem]) -> [Fix] {
        guard !problems.contains(where: { $0.path == nil }) else { return [] }  // a syntax error: nothing is located
        var fixes: [Fix] = []
        for problem in problems {
            guard let line = problem.line, let column = problem.column, let start = offset(line: line, column: column) else { continue }
            if let fix = errorCodeFix(problem, at: start) ?? contentLengthFix(problem, at: start) {
                fixes.append(Fix(range: fix.range, text: fix.text, line: line, column: column, summary: fix.summary))
            }
        }
        // Overlapping replacements cannot both be right: keep the first of each.
        var taken: [Fix] = []
        for fix in fixes where !taken.contains(where: { $0.range.overlaps(fix.range) }) { taken.append(fix) }
        return taken
    }

    /// `data` with `fixes` applied.
    func applying(_ fixes: [Fix]) -> Data {
        var bytes = bytes
        for fix in fixes.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(fix.range, with: Array(fix.text.utf8))
        }
        return Data(bytes)
    }

    // MARK: The fixes

    /// The two quoted words of `message` after `prefix` and `middle`: `unknown error code "X" (did
    /// you mean "Y"?)` gives X and Y. Nil when the message is not that one.
    private static func words(in message: String, after prefix: String, then middle: String) -> (String, String)? {
        guard message.hasPrefix(prefix) else { return nil }
        let rest = message.dropFirst(prefix.count)
        guard let close = rest.firstIndex(of: "\""), rest[rest.index(after: close)...].hasPrefix(middle) else { return nil }
        let second = rest[rest.index(after: close)...].dropFirst(middle.count)
        guard let end = second.firstIndex(of: "\"") else { return nil }
        return (String(rest[..<close]), String(second[..<end]))
    }

    private func errorCodeFix(_ problem: CassetteFormatError.Problem, at start: Int) -> (range: Range<Int>, text: String, summary: String)?
    {
        guard let (written, meant) = Self.words(in: problem.message, after: "unknown error code \"", then: " (did you mean \"")
        else { return nil }
        let quoted = format == .httpMessages ? written : "\"\(written)\""
        let replacement = format == .httpMessages ? meant : "\"\(meant)\""
        guard let range = token(quoted, at: start) else { return nil }
        return (range, replacement, "error code \"\(written)\" → \"\(meant)\"")
    }

    private func contentLengthFix(
        _ problem: CassetteFormatError.Problem, at start: Int
    ) -> (range: Range<Int>, text: String, summary: String)? {
        let prefix = "Content-Length is "
        guard problem.message.hasPrefix(prefix) else { return nil }
        let numbers = problem.message.dropFirst(prefix.count).split(separator: " ")
        guard numbers.count > 5, numbers[1] == "but", numbers[4] == "holds", Int(numbers[0]) != nil, Int(numbers[5]) != nil else {
            return nil
        }
        let (declared, size) = (String(numbers[0]), String(numbers[5]))
        let quoted = format == .httpMessages ? declared : "\"\(declared)\""
        let replacement = format == .httpMessages ? size : "\"\(size)\""
        guard let range = token(quoted, at: start) else { return nil }
        return (range, replacement, "Content-Length \(declared) → \(size) (the size of the body)")
    }

    /// The range of `expected` at byte `start`, when the file holds exactly that there.
    private func token(_ expected: String, at start: Int) -> Range<Int>? {
        let wanted = Array(expected.utf8)
        let end = start + wanted.count
        guard end <= bytes.count, Array(bytes[start..<end]) == wanted else { return nil }
        return start..<end
    }

    /// The byte offset of 1-based `line` and `column` (columns count Unicode scalars, as
    /// problems give them).
    private func offset(line: Int, column: Int) -> Int? {
        var currentLine = 1
        var index = 0
        while currentLine < line {
            guard let newline = bytes[index...].firstIndex(of: 0x0A) else { return nil }
            index = newline + 1
            currentLine += 1
        }
        var scalars = 1
        while scalars < column, index < bytes.count, bytes[index] != 0x0A {
            index += 1
            while index < bytes.count, bytes[index] & 0xC0 == 0x80 { index += 1 }
            scalars += 1
        }
        return scalars == column ? index : nil
    }
}
