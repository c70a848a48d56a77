import CassetteTestSupport
import Foundation
import Testing

// Reads the sources with `Regex` (macOS 13 / iOS 16, later than the package's platforms) and
// starts processes. Apple: none needed — the modules' arrows are the same on every platform,
// checked on Linux.
#if os(Linux)

/// The modules' arrows go one way, read from the sources: each module imports only the modules
/// below it (and the platform's), and what every test and an app link holds no sockets, no
/// server, no HTML and nothing only the tool calls. The compiler keeps a module from using what it does
/// not import; this keeps a module from importing what it must not.
@Suite struct ModuleArrowsTests {
    /// What each module may import of the package's own, lowest first.
    static let allowed: [String: Set<String>] = [
        "CassetteFormats": [],
        "Cassette": ["CassetteFormats"],
        "CassetteServer": ["Cassette", "CassetteFormats"],
        "CassetteTools": ["Cassette", "CassetteFormats"],
        "CassetteTesting": ["Cassette", "CassetteFormats"],
        "CassetteXCTest": ["Cassette", "CassetteFormats"],
        "CassetteCLI": ["Cassette", "CassetteFormats", "CassetteServer", "CassetteTools"],
    ]
    /// The platform's modules, which any module may import; `Testing` and `XCTest` only the test
    /// integrations.
    static let platform: Set<String> = ["Foundation", "FoundationNetworking", "Dispatch", "Glibc", "Musl", "Darwin", "ObjectiveC"]
    /// The one file that imports the standard library by name, for its SPI (`_forEachField`).
    static let standardLibrarySPI = "Cassette/Delivery/FieldRecords.swift"

    static let sources = PackagePaths.root.appendingPathComponent("Sources")

    /// The Swift files of `module`, with their text.
    static func files(of module: String) throws -> [(path: String, text: String)] {
        let folder = sources.appendingPathComponent(module)
        let paths = try FileManager.default.subpathsOfDirectory(atPath: folder.path)
        return try paths.filter { $0.hasSuffix(".swift") }.sorted().map { path in
            ("\(module)/\(path)", try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8))
        }
    }

    /// A line's code only: not its comment, not the text of a message (which may name `cassette serve`).
    static func code(_ line: Substring) -> String {
        String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").replacing(#/"[^"]*"/#, with: "\"\"")
    }

    /// The modules a file imports (`import X`, `@_exported import X`), on lines of their own.
    static func imports(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "import"), words[..<index].allSatisfy({ $0.hasPrefix("@") }),
                index + 1 < words.count
            else { return nil }
            return String(words[index + 1])
        }
    }

    @Test func everyModuleHasItsRow() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { !$0.hasPrefix(".") }
        #expect(Set(modules) == Set(Self.allowed.keys), "a module of Sources/ is missing from ModuleArrowsTests.allowed, or gone")
    }

    @Test(arguments: allowed.keys.sorted()) func importsOnlyWhatIsBelow(module: String) throws {
        let own = Self.allowed[module] ?? []
        let testing: Set<String> = module == "CassetteTesting" ? ["Testing"] : module == "CassetteXCTest" ? ["XCTest"] : []
        var found = 0
        for file in try Self.files(of: module) {
            for imported in Self.imports(in: file.text) {
                found += 1
                #expect(
                    own.contains(imported) || Self.platform.contains(imported) || testing.contains(imported)
                        || (imported == "Swift" && file.path == Self.standardLibrarySPI),
                    "\(file.path) imports \(imported), which \(module) may not (the arrows go: CassetteFormats ← Cassette ← CassetteServer, CassetteTools, CassetteTesting, CassetteXCTest ← CassetteCLI)"
                )
            }
        }
        #expect(found > 0, "no import read in \(module)")
    }

    /// The standard library's SPI is imported in one file, which says why; nowhere else.
    @Test func theStandardLibrarysSPIIsImportedInOneFile() throws {
        let importing = try Self.allowed.keys.sorted().flatMap { try Self.files(of: $0) }.filter {
            Self.imports(in: $0.text).contains("Swift")
        }
        #expect(importing.map(\.path) == [Self.standardLibrarySPI])
    }

    /// What a test links (the runtime, the formats below it, the test integration above it): no
    /// socket call, no name of what the server or the tool holds, and no HTML, even in a string.
    @Test(arguments: ["CassetteFormats", "Cassette", "CassetteTesting", "CassetteXCTest"])
    func whatATestLinksHoldsNoSocketNoHTMLAndNothingOnlyTheToolCalls(module: String) throws {
        let socketCall = #/(^|[^\w.])(socket|listen|accept|setsockopt|getifaddrs|getaddrinfo)\(/#
        let elsewhere =
            #/\b(TapeServer|WebSocketFrame|WebSocketHandshake|CassetteDiff|CassetteViewPage|LiveCheck|PrunePlan|SpawnedProcess)\b/#
        let markup = #/(?i)<(!doctype|html|script|style|body)\b/#
        for file in try Self.files(of: module) {
            for (number, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                #expect(!line.contains(markup), "\(file.path):\(number + 1) holds HTML: \(line)")
                let code = Self.code(line)
                #expect(!code.contains(socketCall), "\(file.path):\(number + 1) calls a socket function: \(line)")
                #expect(!code.contains(elsewhere), "\(file.path):\(number + 1) names what another module holds: \(line)")
            }
        }
    }

    /// `CassetteFormats` is data and codecs: no URLSession, no clock, no global state (a stored
    /// `static var`), as docs/Architecture.md says.
    @Test func theFormatsHoldNoSessionNoClockAndNoGlobalState() throws {
        let forbidden = #/\b(URLSession\w*|URLProtocol|Date\(\)|Date\.now|DispatchQueue|ProcessInfo)\b|static var \w+(\s*:[^{=]+)?\s*=/#
        for file in try Self.files(of: "CassetteFormats") {
            for (number, line) in file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = Self.code(line)
                #expect(!code.contains(forbidden), "\(file.path):\(number + 1) is not data or a codec: \(line)")
            }
        }
    }

    /// The read checks a line as the compiler would: a test of the reader itself.
    @Test func theImportReaderReadsEveryForm() {
        #expect(
            Self.imports(in: "import Foundation\n@_exported import CassetteFormats\n@testable import X\n// import Y\nlet importer = 1") == [
                "Foundation", "CassetteFormats", "X",
            ])
    }
}
#endif
