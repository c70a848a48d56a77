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
/// only import (FoundationNetworking, Glibc), and those that run on macOS too (`os(Linux) || os(macOS)`:
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
        let source = SourceLines(text).lines
        let lines = source.map(\.text)
        var found: [Branch] = []
        for (index, line) in lines.enumerated() where source[index].isCode && line.hasPrefix("#if ") {
            guard SourceLines.isLinuxOnly(SourceLines.condition(of: line)) else { continue }
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
            if body.allSatisfy({ $0.isEmpty || $0.hasPrefix("import ") }) { continue }
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
        let all = try SourceLines.tests().flatMap { Self.branches(in: $0.text, file: $0.path) }
        #expect(all.count >= 15, "the rule found the suite's Linux-only blocks: \(all)")
        #expect(
            all.filter { !$0.answered } == [],
            "a Linux-only block with no #else and no comment above it naming Apple (where its expectation is, or why none)")
    }
}
#endif
