import Cassette
import Foundation

/// `--rules FILE`, the same for every command that opens a tape: the project's ``TapeRules``,
/// from the file given, else from `cassette-rules.json` in the cassette's folder, else none.
enum RulesOption {
    static func rules(given file: String?, folder: URL) throws -> TapeRules {
        if let file { return try TapeRules(contentsOf: URL(fileURLWithPath: file)) }
        return try TapeRules.inFolder(folder) ?? TapeRules()
    }
}
