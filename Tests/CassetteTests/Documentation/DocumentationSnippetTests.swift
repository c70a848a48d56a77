import CassetteTestSupport
import Foundation
import Testing

// Starts processes (or reads the package's folder through them): Linux and macOS only.
#if os(Linux) || os(macOS)

/// Every Swift example in the README, `docs/` and the DocC articles compiles as it stands in the
/// document, type-checked against the package's built modules and stand-in modules
/// (`Fixtures/Snippets`: the reader's app, and the API of a client library a recipe imports, such
/// as AsyncHTTPClient's), as a reader's test target would compile it:
///
/// - an example marked `<!-- compiles -->` (the line before its fence) is complete — its imports
///   and declarations are all there, so a reader can copy it whole — and compiles with no warning.
///   The README's first example must be one of them;
/// - any other example is a fragment, compiled with the imports every test target has (Foundation,
///   Cassette, CassetteServer, CassetteTesting, Testing, and the app module unless it imports a
///   client library) and, when it is statements, as the body of an `async throws` function that
///   is given the names fragments assume: ``fragmentContext(withApp:)`` (a block of `func test…`
///   methods, as the body of an `XCTestCase` subclass). A warning that a value it makes
///   or a name it declares is never used is allowed there (a fragment shows a value, not its use);
/// - a package manifest (`// swift-tools-version` first) is type-checked against PackageDescription.
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
        let first = try #require(readme.first { !$0.snippet.code.hasPrefix("// swift-tools-version") })
        #expect(first.marked, "the README's first Swift example (line \(first.snippet.line)) is marked \(Self.marker)")
        #expect(first.snippet.code.contains("@Test(.cassette"))
    }

    /// The names a fragment that is statements may use without declaring them: what the text
    /// around it has set up (the test's tape, its server, the UI test's app, a delegate).
    /// (`app`, the app module's stand-in for XCUITest's application, only when the app module is imported.)
    static func fragmentContext(withApp: Bool) -> String {
        "tape: Tape, server: TapeServer, " + (withApp ? "app: XCUIApplication, " : "") + "myDelegate: any URLSessionDelegate"
    }

    /// The client libraries whose stand-ins the fragments may import.
    static let clientLibraries = ["AsyncHTTPClient", "Alamofire", "Get", "OpenAPIURLSession"]

    /// Whether a fragment's first line of code is a statement rather than a declaration.
    static func isStatements(_ code: [String]) -> Bool {
        guard let first = code.first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("//") }) else {
            return false
        }
        let declarations = ["@", "import ", "func ", "struct ", "final class ", "class ", "enum ", "extension ", "actor ", "#if"]
        return !declarations.contains { first.hasPrefix($0) }
    }

    /// A fragment as it is compiled: the common imports, its own, then its code (in a function
    /// when it is statements).
    static func compilable(_ snippet: Snippet) -> (source: String, wrapped: Bool) {
        let lines = snippet.code.components(separatedBy: "\n")
        let imports = lines.filter { $0.hasPrefix("import ") || $0.hasPrefix("@testable import ") }
        let code = lines.filter { !imports.contains($0) }
        let importsLibrary = imports.contains { line in clientLibraries.contains { line.hasSuffix("import " + $0) } }
        var source = """
            import Foundation
            #if canImport(FoundationNetworking)
            import FoundationNetworking
            #endif
            import Cassette
            import CassetteServer
            import CassetteTesting
            import Testing

            """
        if !importsLibrary { source += "@testable import MyApp\n" }
        source += imports.joined(separator: "\n") + "\n"
        let wrapped = isStatements(code)
        if code.first(where: { !$0.isEmpty && !$0.hasPrefix("//") })?.hasPrefix("func test") == true {
            // An XCTest method, shown without its class (a library target's DocC cannot name XCTest:
            // the iOS type-check would take the target for one that links it).
            source += "import XCTest\nimport CassetteXCTest\nfinal class Fragment: XCTestCase {\n" + code.joined(separator: "\n") + "\n}\n"
        } else if wrapped {
            source +=
                "func fragment(\(fragmentContext(withApp: !importsLibrary))) async throws {\n" + code.joined(separator: "\n") + "\n}\n"
        } else {
            source += code.joined(separator: "\n")
        }
        return (source, wrapped)
    }

    /// The warnings of `output` a fragment may have: a value it declares and does not use.
    static func unexpectedWarnings(in output: String, wrapped: Bool) -> [String] {
        output.components(separatedBy: "\n").filter { $0.contains("warning:") }.filter { line in
            !(wrapped && (line.contains("was never used") || line.contains("never mutated") || line.contains("is unused")))
        }
    }

    @Test func everyExampleCompilesAsItStands() throws {
        let all = try Self.documents.flatMap { try Self.blocks(in: $0) }
        let snippets = all.filter(\.marked).map(\.snippet)
        #expect(snippets.count >= 5, "\(snippets)")
        for block in all {
            // An ellipsis in a comment is prose; in code it stands for code left out.
            let code = block.snippet.code.components(separatedBy: "\n").map { $0.components(separatedBy: "//")[0] }
            #expect(!code.contains { $0.contains("…") }, "\(block.snippet) leaves something out (…): it would not compile")
        }

        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        // The package's modules are built next to the test bundle.
        let modules = BuiltProducts.url(of: "Modules")
        // The stand-ins: the reader's app, and the client libraries a recipe imports.
        for module in ["MyApp"] + Self.clientLibraries {
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

        // The fragments, and the manifests.
        let manifestAPI = URL(fileURLWithPath: try Self.swiftcPath()).deletingLastPathComponent()
            .appendingPathComponent("../lib/swift/pm/ManifestAPI").standardizedFileURL
        for (number, block) in all.filter({ !$0.marked }).enumerated() {
            let snippet = block.snippet
            let source = scratch.file("Fragment\(number).swift")
            if snippet.code.hasPrefix("// swift-tools-version") {
                try Data(snippet.code.utf8).write(to: source)
                let checked = try Self.swiftc(
                    [
                        "-typecheck", "-swift-version", "6", "-package-description-version", "6.0.0", "-I", manifestAPI.path,
                        "-module-name", "Manifest\(number)", source.path,
                    ],
                    in: scratch.url)
                #expect(checked.status == 0, "\(snippet) (a manifest) does not type-check:\n\(checked.output)")
                continue
            }
            let (code, wrapped) = Self.compilable(snippet)
            try Data(code.utf8).write(to: source)
            let checked = try Self.swiftc(
                [
                    "-typecheck", "-parse-as-library", "-swift-version", "6", "-module-name", "Fragment\(number)",
                    "-I", modules.path, "-I", scratch.url.path, source.path,
                ],
                in: scratch.url)
            #expect(checked.status == 0, "\(snippet) does not compile as a fragment:\n\(checked.output)\n\(code)")
            let warnings = Self.unexpectedWarnings(in: checked.output, wrapped: wrapped)
            #expect(warnings.isEmpty, "\(snippet) compiles with warnings:\n\(warnings.joined(separator: "\n"))")
        }
    }

    /// Where `swiftc` is, as `/usr/bin/env` finds it.
    static func swiftcPath() throws -> String {
        let found = try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["which", "swiftc"])
        return URL(fileURLWithPath: found.output.trimmingCharacters(in: .whitespacesAndNewlines)).resolvingSymlinksInPath().path
    }
}
#endif
