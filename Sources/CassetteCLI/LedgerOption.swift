import Cassette
import Foundation

/// `--ledger DIR` of `cassette report` and `cassette prune`: the suite ledger to read.
enum LedgerOption {
    static let usage = """
          --ledger DIR       The suite ledger the tests wrote. Default: CASSETTE_LEDGER, else
                             .build/cassette-ledger in the package above the current directory.
                             For a suite split over machines (shards), repeat it, once per shard's
                             ledger, or give a folder holding the shards' ledger folders: their last
                             runs are judged together.
          --tests FILE       The suite's tests, as 'swift test list > FILE' prints them: shards
                             together cover the whole suite when every test ran in one of them.
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

    /// The ledgers given (a folder of shard ledgers standing for each of them), else the
    /// environment's or the package's one; nil when there is none.
    static func ledgers(given: [String], environment: [String: String]) -> [Ledger]? {
        guard !given.isEmpty else { return ledger(given: nil, environment: environment).map { [$0] } }
        var ledgers: [Ledger] = []
        for path in given {
            guard let ledger = ledger(given: path, environment: environment) else { continue }
            let shards = ledger.hasRuns ? [] : subfolders(of: ledger.folder).map { Ledger(folder: $0) }.filter(\.hasRuns)
            ledgers += shards.isEmpty ? [ledger] : shards
        }
        return ledgers
    }

    private static func subfolders(of folder: URL) -> [URL] {
        let entries = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.isDirectoryKey])) ?? []
        return entries.filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The suite's tests from `--tests FILE`, or nil when not given.
    static func tests(given: String?) -> Result<[String]?, Ledger.ReadError> {
        guard let given else { return .success(nil) }
        let text: String
        do {
            text = try String(contentsOf: URL(fileURLWithPath: given), encoding: .utf8)
        } catch {
            return .failure(Ledger.ReadError(description: "\(given): cannot read the test list: \(CassetteFile.reason(error))"))
        }
        do {
            return .success(try Ledger.testList(text, file: given))
        } catch {
            return .failure(error)
        }
    }

    /// The report of the ledgers and tests of a `report` or `prune` command line.
    static func report(
        _ list: ArgumentList, maximumAge: TimeInterval = SuiteReport.defaultMaximumAge, environment: [String: String]
    ) -> Result<SuiteReport, Ledger.ReadError> {
        guard let ledgers = ledgers(given: list.values["ledger"] ?? [], environment: environment), !ledgers.isEmpty else {
            return .failure(Ledger.ReadError(description: "no ledger: give --ledger DIR, or set CASSETTE_LEDGER"))
        }
        let tests: [String]?
        switch Self.tests(given: list.values["tests"]?.last) {
        case .success(let read): tests = read
        case .failure(let error): return .failure(error)
        }
        do {
            if ledgers.count == 1, tests == nil, let ledger = ledgers.first {
                return .success(try SuiteReport.make(ledger: ledger, cassettes: paths(list.operands), maximumAge: maximumAge))
            }
            return .success(try SuiteReport.make(ledgers: ledgers, cassettes: paths(list.operands), tests: tests, maximumAge: maximumAge))
        } catch let error as Ledger.ReadError {
            return .failure(error)
        } catch {
            return .failure(Ledger.ReadError(description: "\(error)"))
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
