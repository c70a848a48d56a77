import Cassette
import CassetteTestSupport
import Foundation
import Testing

// Starts processes (or reads the package's folder through them): Linux and macOS only.
#if os(Linux) || os(macOS)

/// The sharded-CI recipe the README and the guide give whole: the same block in both, naming the
/// variables the ledger reads, and its shell line dealing every suite to exactly one shard.
@Suite(.timingIsolated) struct ShardedCIRecipeTests {
    static let marker = "<!-- sharded-ci-recipe"

    /// The YAML block after the marker in `file`.
    static func recipe(in file: String) throws -> String {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent(file), encoding: .utf8)
        let after = try #require(text.range(of: marker), "\(file) has no \(marker) block")
        let start = try #require(text.range(of: "```yaml\n", range: after.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
        return String(text[start.upperBound..<end.lowerBound])
    }

    @Test func theREADMEAndTheGuideGiveTheSameRecipe() throws {
        let readme = try Self.recipe(in: "README.md")
        #expect(readme == (try Self.recipe(in: "docs/Guide.md")))
        #expect(readme.contains("\(Ledger.shardVariable)=${{ matrix.shard }} \(Ledger.environmentVariable)=ledger swift test"))
        #expect(readme.contains("swift package cassette report --ledger ledgers --tests tests.txt Cassettes"))
        #expect(readme.contains("shard: [1, 2, 3]"))
    }

    /// The recipe's `suites=$(…)` line as written, run for each shard of a matrix of 2 and of 3
    /// (GitHub's `strategy.job-index` from 0, `strategy.job-total`) over a test list: every suite
    /// in exactly one shard, and each shard's `--filter` selecting its suites' tests and no other.
    @Test(arguments: [2, 3]) func itsShardsTogetherHoldEverySuiteOnce(shards: Int) throws {
        let line = try #require(
            try Self.recipe(in: "README.md").split(separator: "\n").first { $0.contains("suites=$(") }
        ).trimmingCharacters(in: .whitespaces)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recipe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let suites = [
            "AppTests.AccountTests", "AppTests.FeedTests", "AppTests.ProfileTests", "AppTests.SearchTests", "AppTests.XCTestSuite",
        ]
        let tests = suites.flatMap { ["\($0)/first()", "\($0)/second()"] }
        try Data((tests.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent("tests.txt"))
        var dealt: [String] = []
        for shard in 1...shards {
            let script =
                line.replacingOccurrences(of: "${{ matrix.shard }}", with: "\(shard)")
                .replacingOccurrences(of: "${{ strategy.job-index }}", with: "\(shard - 1)")
                .replacingOccurrences(of: "${{ strategy.job-total }}", with: "\(shards)") + "\nprintf '%s' \"$suites\""
            let (status, output) = try ChildProcess.run(executable: URL(fileURLWithPath: "/bin/sh"), ["-c", script], in: folder)
            #expect(status == 0, "\(output)")
            let mine = output.split(separator: "|").map(String.init)
            #expect(!mine.isEmpty, "shard \(shard) of \(shards) got no suite")
            #expect(!script.contains("${{"), "a variable the test does not set: \(script)")
            let filter = try Regex("^(\(output))/")
            #expect(tests.filter { $0.contains(filter) } == tests.filter { mine.contains(String($0.split(separator: "/")[0])) })
            dealt += mine
        }
        #expect(dealt.sorted() == suites)
    }
}
#endif
