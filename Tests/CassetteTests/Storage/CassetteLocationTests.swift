import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a named cassette lives: `folder:`, `CASSETTE_FOLDER`, the package's `Cassettes/`, or
/// `Cassettes/` beside a test file that has no package above it; and replay from a bundle.
@Suite struct CassetteLocationTests {
    /// A scratch tree: `package/Package.swift`, `package/Tests/AppTests/AppTests.swift`, and
    /// `project/AppTests/AppTests.swift` without any `Package.swift` above it.
    struct Tree {
        let scratch: ScratchFolder
        var packageTest: String { scratch.url.appendingPathComponent("package/Tests/AppTests/AppTests.swift").path }
        var projectTest: String { scratch.url.appendingPathComponent("project/AppTests/AppTests.swift").path }

        init() throws {
            scratch = try ScratchFolder()
            let manager = FileManager.default
            for folder in ["package/Tests/AppTests", "project/AppTests"] {
                try manager.createDirectory(at: scratch.url.appendingPathComponent(folder), withIntermediateDirectories: true)
            }
            try Data("// swift-tools-version:6.0\n".utf8).write(to: scratch.url.appendingPathComponent("package/Package.swift"))
        }

        func path(_ relative: String) -> String { scratch.url.appendingPathComponent(relative).standardizedFileURL.path }
    }

    static func resolved(
        _ name: String, folder: String? = nil, bundle: Bundle? = nil, filePath: String,
        environment: [String: String] = [:]
    ) throws -> String {
        try CassetteLocation.file(named: name, folder: folder, bundle: bundle, filePath: filePath, environment: environment).file
            .standardizedFileURL.path
    }

    @Test func theFourWaysAFolderIsFound() throws {
        let tree = try Tree()
        defer { tree.scratch.remove() }
        // 3. The package's Cassettes/ folder.
        #expect(try Self.resolved("Users/fetch", filePath: tree.packageTest) == tree.path("package/Cassettes/Users/fetch.json"))
        // 4. No Package.swift above: Cassettes/ beside the test file.
        #expect(try Self.resolved("Users/fetch", filePath: tree.projectTest) == tree.path("project/AppTests/Cassettes/Users/fetch.json"))
        // 2. CASSETTE_FOLDER: relative to the package root, or to the test file's folder without one; or absolute.
        #expect(
            try Self.resolved("fetch.har", filePath: tree.packageTest, environment: ["CASSETTE_FOLDER": "Recordings"])
                == tree.path("package/Recordings/fetch.har"))
        #expect(
            try Self.resolved("fetch", filePath: tree.projectTest, environment: ["CASSETTE_FOLDER": "Recordings"])
                == tree.path("project/AppTests/Recordings/fetch.json"))
        #expect(
            try Self.resolved("fetch", filePath: tree.projectTest, environment: ["CASSETTE_FOLDER": tree.path("shared")])
                == tree.path("shared/fetch.json"))
        // 1. folder: wins over the variable; relative to the test file's folder, or absolute.
        #expect(
            try Self.resolved("fetch", folder: "Fixtures", filePath: tree.packageTest, environment: ["CASSETTE_FOLDER": "Recordings"])
                == tree.path("package/Tests/AppTests/Fixtures/fetch.json"))
        #expect(try Self.resolved("fetch", folder: "../Shared", filePath: tree.packageTest) == tree.path("package/Tests/Shared/fetch.json"))
        #expect(try Self.resolved("fetch", folder: tree.path("elsewhere"), filePath: tree.projectTest) == tree.path("elsewhere/fetch.json"))
    }

    /// A folder that starts with `~` is in the home folder, given in code or in `CASSETTE_FOLDER`;
    /// a `~` anywhere else is part of a relative name. (An absolute folder is taken as it is, without
    /// the test file's folder being worked out.)
    @Test func aTildeIsTheHomeFolderOnlyAtTheStart() throws {
        let tree = try Tree()
        defer { tree.scratch.remove() }
        let home = URL(fileURLWithPath: NSHomeDirectory()).standardizedFileURL.path
        #expect(try Self.resolved("fetch", folder: "~/Recordings", filePath: tree.packageTest) == home + "/Recordings/fetch.json")
        #expect(
            try Self.resolved("fetch", filePath: tree.projectTest, environment: ["CASSETTE_FOLDER": "~/Recordings"])
                == home + "/Recordings/fetch.json")
        #expect(
            try Self.resolved("fetch", folder: "a~b", filePath: tree.packageTest) == tree.path("package/Tests/AppTests/a~b/fetch.json"))
    }

    @Test func aTapeRecordsBesideATestFileWithoutAPackage() async throws {
        let tree = try Tree()
        defer { tree.scratch.remove() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let tape = try Tape(named: "Users/status", filePath: tree.projectTest, environment: .tests)
        _ = try await tape.session.data(from: URL(string: server.baseURL + "/status/200")!)
        #expect(try tape.eject().saved)
        #expect(FileManager.default.fileExists(atPath: tree.path("project/AppTests/Cassettes/Users/status.json")))
    }

    /// A device run: the folder is out of reach, the cassette ships in the test bundle.
    @Test func aCassetteInTheBundleReplaysAndRefusesToRecord() async throws {
        let tree = try Tree()
        defer { tree.scratch.remove() }
        let resources = tree.scratch.url.appendingPathComponent("AppTests.bundle/Cassettes/Users", isDirectory: true)
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: PackagePaths.examples.appendingPathComponent("users-api.json"),
            to: resources.appendingPathComponent("fetch.json"))
        let bundle = try #require(Bundle(path: tree.path("AppTests.bundle")))

        let tape = try Tape(named: "Users/fetch", bundle: bundle, filePath: tree.projectTest, mode: .once, environment: .tests)
        #expect(tape.file.standardizedFileURL.path == resources.appendingPathComponent("fetch.json").standardizedFileURL.path)
        let (data, response) = try await tape.session.data(from: URL(string: "https://api.example.com/users/42?fields=name,email")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"id":42,"name":"Ada Lovelace","email":"ada@example.com"}"#)
        _ = try tape.eject()

        #expect(throws: CassetteError.readOnlyCassette(file: resources.appendingPathComponent("fetch.json").path, mode: .newEpisodes)) {
            try Tape(named: "Users/fetch", bundle: bundle, filePath: tree.projectTest, mode: .newEpisodes, environment: .tests)
        }
        let message = CassetteError.readOnlyCassette(file: "/b/fetch.json", mode: .all).description
        #expect(message.hasPrefix("cassette /b/fetch.json was found in the test bundle, which cannot be written, and record mode \"all\""))
        // The folder wins when the cassette is there.
        let fromFolder = try Tape(
            named: "users-api", folder: PackagePaths.examples.path, bundle: bundle, filePath: tree.projectTest,
            mode: .none, environment: .tests)
        #expect(
            fromFolder.file.standardizedFileURL.path
                == PackagePaths.examples.appendingPathComponent("users-api.json").standardizedFileURL.path)
        _ = try fromFolder.eject()
    }

    /// A tape that cannot write its folder says where it tried and how to give it one.
    @Test func aSaveThatCannotWriteItsFolderSaysWhatToDo() async throws {
        let tree = try Tree()
        defer { tree.scratch.remove() }
        let server = try LoopbackServer()
        defer { server.stop() }
        // A file where the folder should be: no one, not even root, can create the folder.
        try Data().write(to: tree.scratch.url.appendingPathComponent("blocked"))
        let tape = try Tape(named: "fetch", folder: tree.path("blocked/Cassettes"), filePath: tree.projectTest, environment: .tests)
        _ = try await tape.session.data(from: URL(string: server.baseURL + "/status/200")!)
        let error = #expect(throws: CassetteError.self) { try tape.eject() }
        let text = error?.description ?? ""
        #expect(text.hasPrefix("could not save cassette \(tree.path("blocked/Cassettes/fetch.json")): cannot create the folder"))
        #expect(
            text.hasSuffix(
                " Recording needs a writable folder: point folder: (or CASSETTE_FOLDER) at one. On a device, where the "
                    + "source tree is out of reach, record on the Mac or in the simulator and ship the cassette in the test bundle's resources (bundle:)."
            ))
    }
}
