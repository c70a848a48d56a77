import Cassette
import Foundation

/// `--ledger DIR` of `cassette report` and `cassette prune`: the suite ledger to read.
enum LedgerOption {
    static let usage = """
          --ledger DIR       The suite ledger the tests wrote. Default: CASSETTE_LEDGER, else
                             .build/cassette-ledger in the package above the current directory.
        """

    /// The ledger given, else the environment's, else the package's; nil when there is none.
    static func ledger(given: String?, environment: [String: String]) -> Ledger? {
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        func resolved(_ path: String) -> URL {
            let expanded = (path as NSString).expandingTildeInPath
            return expanded.hasPrefix("/")
                ? URL(fileURLWithPath: expanded, isDirectory: true)
                : current.appendingPathComponent(expanded, isDirectory: true).standardizedFileURL
        }
        if let given { return Ledger(folder: resolved(given)) }
        if let variable = environment[Ledger.environmentVariable], !variable.isEmpty { return Ledger(folder: resolved(variable)) }
        var folder = current
        while true {
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                return Ledger(folder: Ledger.defaultFolder(packageRoot: folder))
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }

    /// The cassette folders or files named on the command line, absolute.
    static func paths(_ operands: [String]) -> [URL] {
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        return operands.map { path in
            path.hasPrefix("/") ? URL(fileURLWithPath: path).standardizedFileURL : current.appendingPathComponent(path).standardizedFileURL
        }
    }
}
