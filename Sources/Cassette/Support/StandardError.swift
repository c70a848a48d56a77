import Foundation

/// Lines for a person reading the test log, where no test framework can take them: the one place
/// the library writes to standard error.
package enum StandardError {
    package static func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// `Cassette warning: text`.
    static func warn(_ text: String) {
        write("Cassette warning: " + text)
    }
}
