import Testing

@testable import CassetteCLI

/// `fault --dry-run`'s diff: the fewest lines removed and added, with a line of context.
@Suite struct LineChangeTests {
    /// A 200 turned into a 503 in an interaction as the tool writes it, with the scenario mark
    /// appended at its end: the status line and the mark, not the whole response twice.
    @Test func aStatusChangedAndAMarkAddedAreThreeLines() {
        let before = """
            {
              "request": { "method": "GET", "url": "https://api.example.com/feed" },
              "response": {
                "status": 200,
                "headers": { "Content-Type": "application/json" },
                "body": { "json": [1, 2, 3] }
              },
              "timing": { "firstByte": 0.01, "duration": 0.02 }
            }
            """
        let after = """
            {
              "request": { "method": "GET", "url": "https://api.example.com/feed" },
              "response": {
                "status": 503,
                "headers": { "Content-Type": "application/json" },
                "body": { "json": [1, 2, 3] }
              },
              "timing": { "firstByte": 0.01, "duration": 0.02 },
              "scenario": "status 503"
            }
            """
        #expect(
            LineChange(from: before, to: after).lines == [
                "    \"response\": {",
                "-     \"status\": 200,",
                "+     \"status\": 503,",
                "      \"headers\": { \"Content-Type\": \"application/json\" },",
                "…",
                "    },",
                "-   \"timing\": { \"firstByte\": 0.01, \"duration\": 0.02 }",
                "+   \"timing\": { \"firstByte\": 0.01, \"duration\": 0.02 },",
                "+   \"scenario\": \"status 503\"",
                "  }",
            ])
    }

    @Test func theSameTextPrintsNothing() {
        #expect(LineChange(from: "a\nb", to: "a\nb").lines == [])
    }

    /// On small random texts: the edits give back both sides, and there are exactly as many
    /// changes as the longest common subsequence leaves.
    @Test func theEditIsShortestAndGivesBackBothSides() {
        var seed: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for round in 0..<300 {
            let old = (0..<next(12)).map { _ in Substring(["a", "b", "c", "d"][next(4)]) }
            let new = (0..<next(12)).map { _ in Substring(["a", "b", "c", "d"][next(4)]) }
            guard let edits = LineChange.shortestEdit(old, new, largest: 1_000) else {
                Issue.record("round \(round): no edit found")
                continue
            }
            var fromOld: [Substring] = []
            var fromNew: [Substring] = []
            var changes = 0
            for edit in edits {
                switch edit {
                case .kept(let line):
                    fromOld.append(line)
                    fromNew.append(line)
                case .removed(let line):
                    fromOld.append(line)
                    changes += 1
                case .added(let line):
                    fromNew.append(line)
                    changes += 1
                }
            }
            #expect(fromOld == old && fromNew == new, "round \(round)")
            #expect(changes == old.count + new.count - 2 * Self.commonLength(old, new), "round \(round): \(old) → \(new)")
        }
    }

    /// Beyond the search's bound the middle is printed removed, then added: still every line.
    @Test func aChangeBeyondTheSearchIsTheMiddleRemovedThenAdded() {
        let old = (0..<3).map { Substring("old \($0)") }
        let new = (0..<3).map { Substring("new \($0)") }
        #expect(LineChange.shortestEdit(old, new, largest: 5) == nil)
        #expect(LineChange.shortestEdit(old, new, largest: 6)?.count == 6)
    }

    private static func commonLength(_ a: [Substring], _ b: [Substring]) -> Int {
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                table[i][j] = a[i] == b[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        return table[0][0]
    }
}
