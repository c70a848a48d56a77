import Foundation

/// A body pattern of ``Redaction/bodyPatterns``, compiled, with the budget every body's redaction
/// runs under: a pattern that backtracks without end (`(a|aa)+$` on 60 `a`s) is stopped at its
/// budget instead of holding its thread, and one the engine gives up on (ICU's backtracking stack
/// overflowing on `(?:[A-Za-z0-9]|-)+` over a million letters) fails as loudly — never read as "no
/// more matches".
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

    /// Why matching a pattern over a body did not finish: what is left of the body cannot be known
    /// to hold no secret.
    enum Failure: Error, Equatable, Sendable {
        /// It ran past the body's budget (``budget(length:)``, in seconds) and was stopped.
        case overBudget(TimeInterval)
        /// The regular expression engine reported an internal error and ended the search (ICU's
        /// backtracking stack or time limit).
        case engineError
    }

    /// The pattern as written.
    var pattern: String { expression.pattern }

    /// How long the redaction of a text of `length` UTF-16 units may run, every pattern and
    /// replacement together: a quarter of a second, and a second more for each 20 million (a
    /// linear pattern reads far faster).
    static func budget(length: Int) -> TimeInterval {
        0.25 + Double(length) / 20_000_000
    }

    /// The moment, in `DispatchTime` nanoseconds, a redaction of `text` that starts now must end by.
    static func deadline(for text: String) -> UInt64 {
        DispatchTime.now().uptimeNanoseconds + UInt64(budget(length: text.utf16.count) * 1e9)
    }

    /// The matches in `text`, or why matching did not finish. `reportProgress` calls back while a
    /// match runs, also on Linux, so a search past `deadline` is stopped; `reportCompletion` calls
    /// back once at the end with the engine's `internalError`, which otherwise ends the
    /// enumeration as if nothing more matched.
    func matches(in text: String, deadline: UInt64) -> Result<[NSTextCheckingResult], Failure> {
        var found: [NSTextCheckingResult] = []
        var failure: Failure?
        let range = NSRange(location: 0, length: text.utf16.count)
        expression.enumerateMatches(in: text, options: [.reportProgress, .reportCompletion], range: range) { match, flags, stop in
            if let match { found.append(match) }
            if flags.contains(.internalError) {
                failure = .engineError
                stop.pointee = true
            } else if DispatchTime.now().uptimeNanoseconds > deadline {
                failure = .overBudget(Self.budget(length: range.length))
                stop.pointee = true
            }
        }
        return failure.map { .failure($0) } ?? .success(found)
    }

    /// The matches in `text` under a budget of their own, or nil when matching did not finish.
    func matches(in text: String) -> [NSTextCheckingResult]? {
        try? matches(in: text, deadline: Self.deadline(for: text)).get()
    }
}
