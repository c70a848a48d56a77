import CassetteTestSupport
import Foundation
import Testing

// Reads the package's folder: Linux and macOS (an iOS test bundle has none). Apple: the same
// files, the same verdict — it runs on macOS too.
#if os(Linux) || os(macOS)

/// Every expectation the suite states for Linux alone (`#if canImport(FoundationNetworking)`,
/// `#if os(Linux)`) has its Apple counterpart in an `#else`, or a comment just above the `#if`
/// that names Apple and says where the Apple expectation is or why there is none — so that no
/// test states Linux's behaviour as every platform's by leaving Apple's out unseen. Blocks that
/// only import FoundationNetworking, and those that run on macOS too (`os(Linux) || os(macOS)`:
/// processes, which iOS cannot start), are not expectations.
@Suite struct PlatformBranchesTests {
    /// A Linux-only block: where it starts, and whether it has its Apple counterpart or says why not.
    struct Branch: Equatable, CustomStringConvertible {
        var file: String
        var line: Int
        var answered: Bool
        var description: String { "\(file):\(line)" }
    }

    /// The Linux-only blocks of `text`, read line by line with their nesting.
    static func branches(in text: String, file: String) -> [Branch] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        // The lines of multi-line string literals are text, not code.
        var inString = false
        let code = lines.map { line -> Bool in
            let toggles = line.components(separatedBy: "\"\"\"").count - 1
            defer { if toggles % 2 == 1 { inString.toggle() } }
            return !inString && toggles == 0
        }
        var found: [Branch] = []
        for (index, line) in lines.enumerated() where code[index] && line.hasPrefix("#if ") {
            let condition = line.dropFirst(4)
            guard condition.contains("canImport(FoundationNetworking)") || condition.contains("os(Linux)"),
                !condition.contains("os(macOS)"), !condition.hasPrefix("!")
            else { continue }
            var depth = 0
            var hasElse = false
            var body: [String] = []
            for inner in lines[(index + 1)...] {
                if inner.hasPrefix("#if ") { depth += 1 }
                if inner.hasPrefix("#endif") {
                    if depth == 0 { break }
                    depth -= 1
                }
                if depth == 0, inner.hasPrefix("#else") || inner.hasPrefix("#elseif") { hasElse = true }
                body.append(inner)
            }
            if body.allSatisfy({ $0.isEmpty || $0 == "import FoundationNetworking" }) { continue }
            // The comment just above: the `//` lines right before the `#if`.
            let above = lines[..<index].reversed().prefix { $0.hasPrefix("//") && !$0.hasPrefix("///") }
            let says = above.contains { $0.contains("Apple") }
            found.append(Branch(file: file, line: index + 1, answered: hasElse || says))
        }
        return found
    }

    @Test func theRuleReadsBlocksAsWritten() {
        let text = """
            #if canImport(FoundationNetworking)
            import FoundationNetworking
            #endif
            #if canImport(FoundationNetworking)
            #expect(a == 1)
            #else
            #expect(a == 2)
            #endif
            // Apple: none — downloads are answered there.
            #if os(Linux)
            #expect(b)
            #endif
            #if os(Linux) || os(macOS)
            #expect(process)
            #endif
            #if canImport(FoundationNetworking)
            #if DEBUG
            #else
            #endif
            #expect(c)
            #endif
            """
        #expect(
            Self.branches(in: text, file: "T.swift") == [
                Branch(file: "T.swift", line: 4, answered: true), Branch(file: "T.swift", line: 10, answered: true),
                Branch(file: "T.swift", line: 16, answered: false),
            ])
    }

    @Test func everyLinuxOnlyExpectationHasItsAppleCounterpartOrSaysWhyNot() throws {
        let tests = PackagePaths.root.appendingPathComponent("Tests")
        let paths = try FileManager.default.subpathsOfDirectory(atPath: tests.path).filter { $0.hasSuffix(".swift") }.sorted()
        var all: [Branch] = []
        for path in paths {
            let text = try String(contentsOf: tests.appendingPathComponent(path), encoding: .utf8)
            all += Self.branches(in: text, file: "Tests/" + path)
        }
        #expect(all.count >= 15, "the rule found the suite's Linux-only blocks: \(all)")
        #expect(
            all.filter { !$0.answered } == [],
            "a Linux-only block with no #else and no comment above it naming Apple (where its expectation is, or why none)")
    }
}
#endif
