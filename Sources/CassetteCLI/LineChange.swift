/// What an edit changed in a text, line by line, as `fault --dry-run` prints it: the lines both
/// sides share at the start and at the end are left out, but for one line of context on each side
/// (`  `), and what is left is printed as removed (`- `) then added (`+ `). An edit of one line of a
/// 40-line interaction prints four lines, not eighty.
struct LineChange {
    /// The lines to print, each with its mark.
    let lines: [String]

    init(from before: String, to after: String, context: Int = 1) {
        let old = before.split(separator: "\n", omittingEmptySubsequences: false)
        let new = after.split(separator: "\n", omittingEmptySubsequences: false)
        var head = 0
        while head < old.count, head < new.count, old[head] == new[head] { head += 1 }
        var tail = 0
        while tail < old.count - head, tail < new.count - head, old[old.count - 1 - tail] == new[new.count - 1 - tail] { tail += 1 }
        let leading = old[max(0, head - context)..<head].map { "  " + $0 }
        let removed = old[head..<(old.count - tail)].map { "- " + $0 }
        let added = new[head..<(new.count - tail)].map { "+ " + $0 }
        let trailing = old[(old.count - tail)..<min(old.count, old.count - tail + context)].map { "  " + $0 }
        lines = leading + removed + added + trailing
    }
}
