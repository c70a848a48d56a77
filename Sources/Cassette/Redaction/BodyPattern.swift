import Foundation

/// A body pattern of ``Redaction/bodyPatterns``, compiled, with the budget every match of it runs
/// under: a pattern that backtracks without end (`(a|aa)+$` on 60 `a`s) is stopped at its budget
/// instead of holding its thread.
///
/// Foundation alone: the fuzz target `body_patterns` (Fuzz/run) compiles this file with its own.
/// Thread-safe: `NSRegularExpression` is immutable and documented as safe to share between threads.
struct BodyPattern: @unchecked Sendable {
    let expression: NSRegularExpression

    /// - Throws: why `pattern` is not a regular expression, in the platform's words.
    init(_ pattern: String) throws(Problem) {
        do {
            expression = try NSRegularExpression(pattern: pattern)
        } catch {
            throw Problem(reason: (error as NSError).localizedDescription)
        }
    }

    /// Why a pattern is not a regular expression.
    struct Problem: Error {
        let reason: String
    }

    /// The pattern as written.
    var pattern: String { expression.pattern }

    /// How long one match may run on a text of `length` UTF-16 units: a quarter of a second, and a
    /// second more for each 20 million (a linear pattern reads far faster).
    static func budget(length: Int) -> TimeInterval {
        0.25 + Double(length) / 20_000_000
    }

    /// The matches in `text`, or nil when matching ran past its budget (``budget(length:)``) and was
    /// stopped: `reportProgress` calls back while a match runs, also on Linux.
    func matches(in text: String) -> [NSTextCheckingResult]? {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(Self.budget(length: text.utf16.count) * 1e9)
        var found: [NSTextCheckingResult] = []
        var stopped = false
        expression.enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) { match, _, stop in
            if let match { found.append(match) }
            if DispatchTime.now().uptimeNanoseconds > deadline {
                stopped = true
                stop.pointee = true
            }
        }
        return stopped ? nil : found
    }
}
