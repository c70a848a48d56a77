/// What an edit changed in a text, line by line, as `fault --dry-run` prints it: a line diff (the
/// fewest lines removed and added, Myers' algorithm), each changed line marked `- ` (removed) or
/// `+ ` (added), with `context` unchanged lines around each change marked `  `, and `…` where
/// unchanged lines between two changes are left out. Turning a 200 into a 503 and marking the
/// scenario prints the status line removed and added and the mark added, not the interaction
/// twice.
struct LineChange {
    /// The lines to print, each with its mark.
    let lines: [String]

    /// The most changes the diff looks for between the lines both sides share at the start and at
    /// the end; a larger change is printed as all of that middle removed, then added.
    static let largestSearch = 1_000

    init(from before: String, to after: String, context: Int = 1) {
        let old = before.split(separator: "\n", omittingEmptySubsequences: false)
        let new = after.split(separator: "\n", omittingEmptySubsequences: false)
        var head = 0
        while head < old.count, head < new.count, old[head] == new[head] { head += 1 }
        var tail = 0
        while tail < old.count - head, tail < new.count - head, old[old.count - 1 - tail] == new[new.count - 1 - tail] { tail += 1 }
        let middleOld = Array(old[head..<(old.count - tail)])
        let middleNew = Array(new[head..<(new.count - tail)])
        let middle =
            Self.shortestEdit(middleOld, middleNew, largest: Self.largestSearch)
            ?? middleOld.map { Edit.removed($0) } + middleNew.map { Edit.added($0) }
        let edits = old[..<head].map { Edit.kept($0) } + middle + old[(old.count - tail)...].map { Edit.kept($0) }
        lines = Self.printed(edits, context: context)
    }

    enum Edit: Equatable {
        case kept(Substring)
        case removed(Substring)
        case added(Substring)
    }

    /// The changed lines with `context` kept lines around each run of them; `…` for the kept
    /// lines left out between two runs.
    private static func printed(_ edits: [Edit], context: Int) -> [String] {
        let changed = edits.indices.filter { if case .kept = edits[$0] { false } else { true } }
        guard !changed.isEmpty else { return [] }
        var shown = Set<Int>()
        for index in changed {
            for near in max(0, index - context)...min(edits.count - 1, index + context) { shown.insert(near) }
        }
        var lines: [String] = []
        var previous: Int?
        for index in shown.sorted() {
            if let previous, index > previous + 1 { lines.append("…") }
            switch edits[index] {
            case .kept(let line): lines.append("  " + line)
            case .removed(let line): lines.append("- " + line)
            case .added(let line): lines.append("+ " + line)
            }
            previous = index
        }
        return lines
    }

    /// The fewest removals and additions that turn `old` into `new` (Myers, "An O(ND) Difference
    /// Algorithm and Its Variations", 1986), removals before additions where both are equally
    /// short; nil when that takes more than `largest` of them.
    static func shortestEdit(_ old: [Substring], _ new: [Substring], largest: Int) -> [Edit]? {
        let (n, m) = (old.count, new.count)
        let bound = min(n + m, largest)
        let offset = bound + 1
        // The furthest x reached on each diagonal k = x - y, for each number of changes d.
        var furthest = [Int](repeating: 0, count: 2 * bound + 3)
        var trace: [[Int]] = []
        for d in 0...bound {
            trace.append(furthest)
            for k in stride(from: -d, through: d, by: 2) {
                var x =
                    k == -d || (k != d && furthest[offset + k - 1] < furthest[offset + k + 1])
                    ? furthest[offset + k + 1] : furthest[offset + k - 1] + 1
                var y = x - k
                while x < n, y < m, old[x] == new[y] {
                    x += 1
                    y += 1
                }
                furthest[offset + k] = x
                if x >= n, y >= m { return backtrack(trace, old, new, offset: offset) }
            }
        }
        return nil
    }

    private static func backtrack(_ trace: [[Int]], _ old: [Substring], _ new: [Substring], offset: Int) -> [Edit] {
        var (x, y) = (old.count, new.count)
        var reversed: [Edit] = []
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            let furthest = trace[d]
            let k = x - y
            let previousK =
                k == -d || (k != d && furthest[offset + k - 1] < furthest[offset + k + 1]) ? k + 1 : k - 1
            let previousX = d == 0 ? 0 : furthest[offset + previousK]
            let previousY = d == 0 ? 0 : previousX - previousK
            while x > previousX, y > previousY {
                reversed.append(.kept(old[x - 1]))
                x -= 1
                y -= 1
            }
            if d > 0 {
                reversed.append(x == previousX ? .added(new[previousY]) : .removed(old[previousX]))
                (x, y) = (previousX, previousY)
            }
        }
        return reversed.reversed()
    }
}
