import CassetteTestSupport
import Foundation

/// A Swift file as the architecture tests read it: line by line, trimmed, each line knowing
/// whether it is code (not a line of a multi-line string literal) and whether it compiles on
/// Linux alone (inside `#if os(Linux)`, `canImport(FoundationNetworking)` or `canImport(Glibc)`,
/// or in the `#else` of `canImport(Darwin)`, `!os(Linux)`, `!canImport(FoundationNetworking)`).
///
/// A branch that names macOS too (`os(Linux) || os(macOS)`) is not Linux's alone, and neither
/// is the `#else` of `os(macOS)`, which iOS compiles.
struct SourceLines {
    struct Line {
        /// From 1, as a compiler's message counts.
        var number: Int
        var text: String
        var isCode: Bool
        var isLinuxOnly: Bool
    }

    var lines: [Line]

    init(_ text: String) {
        let trimmed = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        var inString = false
        // Per open `#if`: whether the branch being read is Linux's alone, and whether its `#else` is.
        var open: [(branch: Bool, otherwise: Bool)] = []
        lines = trimmed.enumerated().map { index, text in
            let toggles = text.components(separatedBy: "\"\"\"").count - 1
            defer { if toggles % 2 == 1 { inString.toggle() } }
            let isCode = !inString && toggles == 0
            let isLinuxOnly = open.contains { $0.branch }
            if isCode {
                let condition = Self.condition(of: text)
                if text.hasPrefix("#if ") {
                    open.append((Self.isLinuxOnly(condition), Self.isAppleOnly(condition)))
                } else if text.hasPrefix("#elseif "), !open.isEmpty {
                    open[open.count - 1].branch = Self.isLinuxOnly(condition)
                } else if text.hasPrefix("#else"), !open.isEmpty {
                    open[open.count - 1].branch = open[open.count - 1].otherwise
                } else if text.hasPrefix("#endif"), !open.isEmpty {
                    open.removeLast()
                }
            }
            return Line(number: index + 1, text: text, isCode: isCode, isLinuxOnly: isLinuxOnly)
        }
    }

    /// The condition of an `#if` or `#elseif` line, without the directive and a trailing comment.
    static func condition(of directive: String) -> String {
        let afterDirective = directive.drop { $0 != " " }
        let withoutComment = afterDirective.components(separatedBy: "//")[0]
        return withoutComment.trimmingCharacters(in: .whitespaces)
    }

    /// `os(Linux)`, `canImport(FoundationNetworking)` or `canImport(Glibc)`, not negated and not
    /// with macOS beside it.
    static func isLinuxOnly(_ condition: String) -> Bool {
        guard !condition.hasPrefix("!"), !condition.contains("os(macOS)") else { return false }
        return ["os(Linux)", "canImport(FoundationNetworking)", "canImport(Glibc)"].contains { condition.contains($0) }
    }

    /// A condition whose `#else` is Linux's: Apple's Darwin, or Linux's negated.
    static func isAppleOnly(_ condition: String) -> Bool {
        ["canImport(Darwin)", "!os(Linux)", "!canImport(FoundationNetworking)"].contains(condition)
    }

    /// Every Swift file under `Tests/`, by its path from the package's root, in order.
    static func tests() throws -> [(path: String, text: String)] {
        let tests = PackagePaths.root.appendingPathComponent("Tests")
        let paths = try FileManager.default.subpathsOfDirectory(atPath: tests.path).filter { $0.hasSuffix(".swift") }.sorted()
        return try paths.map { path in
            ("Tests/" + path, try String(contentsOf: tests.appendingPathComponent(path), encoding: .utf8))
        }
    }
}
