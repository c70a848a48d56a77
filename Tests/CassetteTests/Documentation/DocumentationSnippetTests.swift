import CassetteTestSupport
import Foundation
import Testing

// Starts processes (or reads the package's folder through them): Linux and macOS only.
#if os(Linux) || os(macOS)

/// Every Swift example in the README, `docs/` and the DocC articles marked `<!-- compiles -->` (the line
/// before its fence) compiles as written: it is type-checked against the package's built modules
/// and stand-in modules (`Fixtures/Snippets`: the reader's app, and the API of a client library a
/// recipe imports, such as AsyncHTTPClient's), as a reader's test target would compile it. The README's first example must be one of them.
@Suite(.timingIsolated) struct DocumentationSnippetTests {
    static let marker = "<!-- compiles -->"

    /// A marked example: where it is, and its code.
    struct Snippet: CustomStringConvertible {
        var file: URL
        var line: Int
        var code: String
        var description: String { "\(file.lastPathComponent):\(line)" }
    }

    /// The README, the guide and the other documents in `docs/`, and every DocC article.
    static var documents: [URL] {
        let sources = PackagePaths.root.appendingPathComponent("Sources")
        let catalogs =
            FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL }
            .filter { $0.pathExtension == "md" && $0.deletingLastPathComponent().pathExtension == "docc" } ?? []
        let docs = PackagePaths.root.appendingPathComponent("docs")
        let pages = ((try? FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "md" }
        return [PackagePaths.root.appendingPathComponent("README.md")] + (pages + catalogs).sorted { $0.path < $1.path }
    }

    /// The Swift code blocks of `file`, each with the line of its fence and whether it is marked.
    static func blocks(in file: URL) throws -> [(snippet: Snippet, marked: Bool)] {
        let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
        var blocks: [(Snippet, Bool)] = []
        var index = 0
        while index < lines.count {
            guard lines[index].trimmingCharacters(in: .whitespaces) == "```swift" else {
                index += 1
                continue
            }
            let fence = index
            var code: [String] = []
            index += 1
            while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                code.append(lines[index])
                index += 1
            }
            index += 1
            let marked = fence > 0 && lines[fence - 1].trimmingCharacters(in: .whitespaces) == marker
            blocks.append((Snippet(file: file, line: fence + 1, code: code.joined(separator: "\n") + "\n"), marked))
        }
        return blocks
    }

    /// Runs `swiftc` with `arguments` in `folder`; its exit status and what it printed.
    static func swiftc(_ arguments: [String], in folder: URL) throws -> (status: Int32, output: String) {
        try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["swiftc"] + arguments, in: folder)
    }

    @Test func theREADMEsFirstExampleIsMarkedComplete() throws {
        let readme = try Self.blocks(in: PackagePaths.root.appendingPathComponent("README.md"))
        let first = try #require(readme.first { !$0.snippet.code.hasPrefix("// Package.swift") })
        #expect(first.marked, "the README's first Swift example (line \(first.snippet.line)) is marked \(Self.marker)")
        #expect(first.snippet.code.contains("@Test(.cassette"))
    }

    @Test func everyMarkedExampleCompilesAsWritten() throws {
        let snippets = try Self.documents.flatMap { try Self.blocks(in: $0) }.filter(\.marked).map(\.snippet)
        #expect(snippets.count >= 5, "\(snippets)")
        for snippet in snippets {
            #expect(!snippet.code.contains("…"), "\(snippet) leaves something out (…) but is marked complete")
        }

        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        // The package's modules are built next to the test bundle.
        let modules = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("Modules")
        // The stand-ins: the reader's app, and the client libraries a recipe imports.
        for module in ["MyApp", "AsyncHTTPClient"] {
            let source = PackagePaths.root.appendingPathComponent("Tests/CassetteTests/Fixtures/Snippets/\(module).swift")
            let built = try Self.swiftc(
                [
                    "-emit-module", "-enable-testing", "-parse-as-library", "-swift-version", "6", "-module-name", module,
                    "-emit-module-path", scratch.file("\(module).swiftmodule").path, source.path,
                ],
                in: scratch.url)
            try #require(built.status == 0, "the stand-in module \(module): \(built.output)")
        }

        for (number, snippet) in snippets.enumerated() {
            let source = scratch.file("Snippet\(number).swift")
            try Data(snippet.code.utf8).write(to: source)
            let checked = try Self.swiftc(
                [
                    "-typecheck", "-parse-as-library", "-swift-version", "6", "-module-name", "Snippet\(number)",
                    "-I", modules.path, "-I", scratch.url.path, source.path,
                ],
                in: scratch.url)
            #expect(checked.status == 0, "\(snippet) does not compile as written:\n\(checked.output)")
            #expect(!checked.output.contains("warning:"), "\(snippet) compiles with warnings:\n\(checked.output)")
        }
    }
}
#endif
