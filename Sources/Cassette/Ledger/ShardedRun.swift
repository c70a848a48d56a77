import Foundation

extension Ledger.Run {
    /// The runs of a suite split over several machines (shards), as one run: every tape of every
    /// shard, each cassette matched by its place in the package (shards check the package out in
    /// other folders). With the suite's test list, the union covers the whole suite when every
    /// test ran in some shard (by each process's `--filter` and `--skip`); it is partial
    /// otherwise, naming the tests no shard ran and the shards whose ledgers it has (a shard whose
    /// tests open no tape leaves no ledger, and cannot be told from one that never ran). A shard cut short (a process without its end, an
    /// unreadable file) or run live keeps the union partial whatever the list says.
    ///
    /// - Parameters:
    ///   - runs: the last run of each shard's ledger.
    ///   - tests: the suite's tests as `swift test list` prints them (`App.FeedTests/loads()`), or nil.
    ///   - root: the package the report is about, here; nil leaves cassette paths as the shards wrote them.
    /// - Throws: ``Ledger/ReadError`` when the shards come from different packages.
    static func union(_ runs: [Ledger.Run], tests: [String]?, root: URL?) throws(Ledger.ReadError) -> Ledger.Run {
        let packages = Set(runs.flatMap { $0.tapes.compactMap(\.root) }.map { URL(fileURLWithPath: $0).lastPathComponent })
        if packages.count > 1 {
            throw Ledger.ReadError(
                description: "the ledgers come from different packages (\(packages.sorted().joined(separator: ", "))): "
                    + "give the ledgers of the shards of one package's suite")
        }
        var union = Ledger.Run(
            id: runs.map(\.id).joined(separator: " + "), started: runs.compactMap(\.started).min(), partial: nil,
            warnings: runs.flatMap(\.warnings), tapes: [], processes: runs.reduce(0) { $0 + $1.processes })
        union.shards = Array(Set(runs.flatMap(\.shards))).sorted()
        union.selections = runs.flatMap(\.selections)
        union.incomplete = runs.flatMap(\.incomplete)
        union.toolOpened = runs.flatMap(\.toolOpened)
        let rootPath = root?.standardizedFileURL.path
        for run in runs {
            for var tape in run.tapes {
                if let rootPath, let from = tape.root, from != rootPath {
                    tape.cassette = Self.moved(tape.cassette, from: from, to: rootPath)
                    tape.beneath = tape.beneath.map { Self.moved($0, from: from, to: rootPath) }
                    tape.root = rootPath
                }
                union.tapes.append(tape)
            }
        }
        if let tests {
            let matchers = union.selections.map { $0.matcher() }
            let notRun = tests.filter { test in !matchers.contains { $0(test) } }
            if !notRun.isEmpty {
                let shown = notRun.prefix(20).joined(separator: ", ") + (notRun.count > 20 ? ", and \(notRun.count - 20) more" : "")
                let found =
                    union.shards.isEmpty
                    ? "\(runs.count) run\(runs.count == 1 ? "" : "s")"
                    : "shard\(union.shards.count == 1 ? "" : "s") \(union.shards.joined(separator: ", "))"
                union.selected = [
                    "no shard ran \(notRun.count) of the suite's \(tests.count) tests: \(shown) (the ledgers hold \(found); "
                        + "a shard whose tests open no tape with CASSETTE_LEDGER leaves no ledger, so its tests count as not run)"
                ]
            }
        } else {
            union.selected = runs.flatMap(\.selected)
            if runs.count > 1, !union.selected.isEmpty {
                union.selected.append(
                    "to judge shards together, give the suite's test list (swift test list > tests.txt; --tests tests.txt)")
            }
        }
        let reasons = union.selected + union.incomplete
        union.partial = reasons.isEmpty ? nil : reasons.joined(separator: "; ")
        return union
    }

    /// `path`, written under the package folder `from`, under `to` instead.
    private static func moved(_ path: String, from: String, to: String) -> String {
        guard path.hasPrefix(from + "/") else { return path }
        return to + path.dropFirst(from.count)
    }
}

extension Ledger {
    /// The suite's tests from the output of `swift test list`: one test a line
    /// (`App.FeedTests/loads()`); blank lines are skipped.
    ///
    /// - Throws: ``ReadError`` naming the first line that is not a test, or an empty list.
    package static func testList(_ text: String, file: String) throws(ReadError) -> [String] {
        var tests: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let test = line.trimmingCharacters(in: .whitespaces)
            if test.isEmpty { continue }
            guard let slash = test.firstIndex(of: "/"), test[..<slash].contains("."), test.index(after: slash) < test.endIndex,
                !test.contains(" ") || test.contains("(")
            else {
                throw ReadError(
                    description: "\(file):\(number + 1): \(CassetteRules.quoted(test)) is not a test as `swift test list` prints it "
                        + "(Module.Suite/test); make the file with: swift test list > \((file as NSString).lastPathComponent)")
            }
            tests.append(test)
        }
        guard !tests.isEmpty else {
            throw ReadError(description: "\(file) lists no test; make it with: swift test list > \((file as NSString).lastPathComponent)")
        }
        return tests
    }
}
