import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `@Test(arguments:)` with the `.cassette` trait: one cassette per argument, named after it.
@Suite struct ParameterizedCassetteTests {
    /// Shared by the cases of one run, so that their cassettes sit side by side.
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cassette-parameterized-\(UUID().uuidString)").path

    /// Each case records its own cassette through the trait, then replays it offline.
    @Test(arguments: ["swift", "kotlin", "rust"])
    func eachArgumentRecordsAndReplaysItsOwnCassette(language: String) async throws {
        let test = try #require(Test.current)
        let testCase = try #require(Test.Case.current)
        let server = try LoopbackServer()
        defer { server.stop() }
        let expected = URL(fileURLWithPath: Self.folder)
            .appendingPathComponent("ParameterizedCassetteTests/eachArgumentRecordsAndReplaysItsOwnCassette/\(language).json")

        var recording = CassetteTrait.cassette(folder: Self.folder, mode: .once, options: Tape.Options().quiet)
        recording.settings.environment = [:]  // records under CI too
        try await recording.provideScope(for: test, testCase: testCase) {
            let tape = try #require(Tape.current)
            #expect(tape.file.standardizedFileURL.path == expected.standardizedFileURL.path)
            #expect(await Fetch.get(server.baseURL + "/echo?q=\(language)", on: tape.session).status == 200)
        }
        #expect(FileManager.default.fileExists(atPath: expected.path))
        let stored = try JSONCassetteCodec.decode(Data(contentsOf: expected)).interactions
        #expect(stored.map(\.request.url) == [server.baseURL + "/echo?q=\(language)"], "each cassette holds only its own case")

        try await CassetteTrait.cassette(folder: Self.folder, mode: .none).provideScope(for: test, testCase: testCase) {
            let tape = try #require(Tape.current)
            let replayed = await Fetch.get(server.baseURL + "/echo?q=\(language)", on: tape.session)
            #expect(replayed.status == 200 && replayed.text.contains("q=\(language)"))
        }
        #expect(server.received.count == 1, "the replay did not reach the server")
    }

    /// Committed cassettes, one per argument, replayed through the trait as a test would use it
    /// (recorded against a loopback server on a port that is long gone: hence `ignoringPort`).
    @Test(
        .cassette(folder: PackagePaths.cassettes.path, mode: .none, matching: .default.ignoringPort()),
        arguments: [Role.admin, .guest], [1, 22])
    func theTraitReplaysTheCassetteOfEachCase(role: Role, page: Int) async throws {
        let tape = try #require(Tape.current)
        #expect(tape.file.lastPathComponent == "\(role.rawValue)-\(page).json")
        #expect(tape.file.deletingLastPathComponent().lastPathComponent == "theTraitReplaysTheCassetteOfEachCase")
        let fetched = await Fetch.get("http://127.0.0.1:1/echo?role=\(role.rawValue)&page=\(page)", on: tape.session)
        #expect(fetched.status == 200 && fetched.text.contains("role=\(role.rawValue)&page=\(page)"), "\(fetched)")
    }

    enum Role: String, Sendable { case admin, guest }

    struct Query: Sendable, CustomTestStringConvertible {
        var text: String
        var testDescription: String { "query \(text)" }
    }

    final class Session: Sendable {}

    @Test(arguments: [Query(text: "a/b c?")]) func aTestDescriptionNamesTheCassetteFileSafely(query: Query) throws {
        let name = try ArgumentCassetteName.name(base: "S/t", test: try #require(Test.current), testCase: try #require(Test.Case.current))
        #expect(name == "S/t/query_a_b_c")
    }

    @Test(arguments: [String(repeating: "long ", count: 30)]) func aLongNameIsShortenedWithAHash(text: String) throws {
        let name = try ArgumentCassetteName.name(base: "S/t", test: try #require(Test.current), testCase: try #require(Test.Case.current))
        #expect(name.hasPrefix("S/t/long_long_long_") && name.count == "S/t/".count + 60 + 1 + 16)
        #expect(
            name
                == (try ArgumentCassetteName.name(base: "S/t", test: try #require(Test.current), testCase: try #require(Test.Case.current)))
        )
    }

    @Test(arguments: [Session()]) func anArgumentWithoutAStableDescriptionSaysWhatToWrite(session: Session) throws {
        #expect {
            try ArgumentCassetteName.name(
                base: "ParameterizedCassetteTests/anArgument", test: try #require(Test.current),
                testCase: try #require(Test.Case.current))
        } throws: { error in
            (error as? CassetteError)?.description
                == "cannot name a cassette after session → CassetteTests.ParameterizedCassetteTests.Session of the "
                + "parameterized test anArgumentWithoutAStableDescriptionSaysWhatToWrite(session:): it is an instance of a class without a "
                + "description of its own, so every case would get the same name (Session). Give the argument's type a stable testDescription "
                + "(CustomTestStringConvertible), or name the cassette yourself: .cassette(\"anArgumentWithoutAStableDescriptionSaysWhatToWrite\") "
                + "gives every case that one cassette, and withCassette(\"anArgumentWithoutAStableDescriptionSaysWhatToWrite/\\(…)\") inside the test one per case."
        }
    }

    @Test func valuesBecomeStableFileSafeNames() {
        func named(_ value: Any) -> String? { try? ArgumentCassetteName.describe(value).get() }
        #expect(named(Role.admin) == "admin")
        #expect(named(42) == "42" && named(true) == "true" && named(3.5) == "3.5")
        #expect(ArgumentCassetteName.fileSafe(named(Query(text: "x")) ?? "") == "query_x")
        #expect(ArgumentCassetteName.fileSafe("../../etc/passwd") == "etc_passwd")
        #expect(ArgumentCassetteName.fileSafe("User(id: 1, name: \"Ada\")") == "User_id_1_name_Ada")
        #expect(ArgumentCassetteName.fileSafe("日本") == "_")
        #expect(named(Session()) == nil)
        #expect(named("at 0x00007f1234567890") == nil, "a memory address")
        #expect(named("") == nil)
    }
}
