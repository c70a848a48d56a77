import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette
@testable import CassetteServer
@testable import CassetteTesting

/// One answer to "which file is cassette `x`": a tape, `withCassette`, the `.cassette` trait and the
/// folder server resolve every name of the table (``CassetteNames``) to the same file, or refuse
/// it the same way. (`cassette fault --as-copy` runs the same table in `FaultCommandTests`.)
@Suite struct CassetteStoreTests {
    /// What a caller made of a name: the file relative to the folder, or the refusal's text.
    enum Outcome: Equatable, CustomStringConvertible {
        case file(String)
        case refused(String)

        var description: String {
            switch self {
            case .file(let file): return file
            case .refused(let why): return "refused: \(why)"
            }
        }
    }

    static func outcome(in folder: URL, _ open: () async throws -> URL) async -> Outcome {
        do {
            let file = try await open().standardizedFileURL.path
            let root = folder.standardizedFileURL.path + "/"
            return file.hasPrefix(root) ? .file(String(file.dropFirst(root.count))) : .file(file)
        } catch {
            return .refused("\(error)")
        }
    }

    static func expected(_ row: (name: String, file: String?)) -> Outcome {
        row.file.map(Outcome.file) ?? .refused("\(CassetteError.invalidCassetteName(row.name))")
    }

    @Test(arguments: CassetteNames.table.indices)
    func everyCallerResolvesANameAlike(_ index: Int) async throws {
        let row = CassetteNames.table[index]
        let test = try #require(Test.current)
        try await withScratchTape { scratch in
            let folder = try CassetteNames.folder(in: scratch.url)
            let path = folder.path
            // No request is sent: the tapes say nothing of the empty cassettes they save.
            let quiet = Tape.Options(expectsRequests: false).quiet
            let byTape = await Self.outcome(in: folder) {
                let tape = try Tape(named: row.name, folder: path, mode: .once, options: quiet, environment: .tests)
                defer { _ = try? tape.eject() }
                return tape.file
            }
            let byWithCassette = await Self.outcome(in: folder) {
                try withCassette(row.name, folder: path, mode: .once, options: quiet, environment: .tests) { tape in tape.file }
            }
            let byTrait = await Self.outcome(in: folder) {
                var trait = CassetteTrait.cassette(row.name, folder: path, mode: .once, options: quiet)
                trait.settings.environment = [:]
                let seen = Locked<URL?>(nil)
                try await trait.provideScope(for: test, testCase: nil) { seen.withLock { $0 = Tape.current?.file } }
                return try #require(seen.withLock { $0 })
            }
            let byServer = await Self.outcome(in: folder) {
                let server = try TapeServer(folder: path, mode: .once, tapeOptions: quiet, environment: .tests)
                defer { server.stop() }
                try server.load(row.name)
                return try #require(server.tape?.file)
            }
            let expected = Self.expected(row)
            #expect(byTape == expected, "Tape(named:) \(row.name)")
            #expect(byWithCassette == expected, "withCassette \(row.name)")
            #expect(byTrait == expected, "the trait \(row.name)")
            #expect(byServer == expected, "the folder server \(row.name)")
        }
    }

    /// The listing agrees: what it lists is what names find, never the hidden file, the rules file
    /// or a link out of the folder… which the listing follows as a file it was given (a folder
    /// scan takes a link to a file for the file), so only the name is refused.
    @Test func theListingListsWhatNamesFind() throws {
        try withScratchTape { scratch in
            let folder = try CassetteNames.folder(in: scratch.url)
            let listed = try #require(CassetteStore(folder: folder).list()).cassettes.map {
                String($0.dropFirst(folder.path.count + 1))
            }
            #expect(listed == ["Nested/deep.json", "both.http", "both.json", "escape.json", "haronly.har", "httponly.http", "plain.json"])
        }
    }
}
