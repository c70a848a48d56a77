/// A cassette that cannot be read, or a document that cannot be written, and every reason why.
///
/// Each ``Problem`` names the place (a ``JSONPath`` and, when read from a file, a line and column)
/// and says what was expected and what was found. ``description`` prints one line per problem in
/// the form editors and CI logs understand:
///
/// ```text
/// Cassettes/users.json:12:17: error: interactions[0].response.status: expected an HTTP status from 100 to 599, found 0
/// Cassettes/users.json: error: $: missing required field "version" (expected 1)
/// ```
public struct CassetteFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One thing wrong with a cassette.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// Where in the JSON document, or nil for a syntax error (the document has no shape yet).
        public var path: JSONPath?
        /// 1-based line, when the problem was found in a file.
        public var line: Int?
        /// 1-based column, counted in Unicode scalars, when the problem was found in a file.
        public var column: Int?
        /// What was expected and what was found.
        public var message: String

        /// A problem from its parts.
        package init(path: JSONPath?, line: Int? = nil, column: Int? = nil, message: String) {
            self.path = path
            self.line = line
            self.column = column
            self.message = message
        }

        /// `interactions[0].response.status: expected …`, or just the message without a path.
        public var description: String {
            path.map { "\($0): \(message)" } ?? message
        }

        /// The problem as a diagnostic line: `FILE:LINE:COLUMN: error: …` or `FILE: error: …`
        /// (`warning` instead of `error` for one of ``CassetteDocument/warnings()``).
        package func diagnostic(file: String, severity: String = "error") -> String {
            if let line, let column {
                return "\(file):\(line):\(column): \(severity): \(description)"
            }
            return "\(file): \(severity): \(description)"
        }
    }

    /// The file that was read, as the caller named it, or nil for data without a file.
    public var file: String?
    /// Every problem found, in document order. Never empty.
    public var problems: [Problem]

    /// An error from its parts.
    package init(file: String?, problems: [Problem]) {
        self.file = file
        self.problems = problems
    }

    /// One diagnostic line per problem.
    public var description: String {
        problems.map { $0.diagnostic(file: file ?? "<cassette>") }.joined(separator: "\n")
    }
}
