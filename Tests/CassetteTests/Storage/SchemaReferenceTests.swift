import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// A cassette's `"$schema"` (the JSON Schema editors use) survives every save, and a new cassette
/// names one only when the tape is told to (`Tape.Options.schemaReference`).
@Suite struct SchemaReferenceTests {
    static let reference = "../../docs/cassette.schema.json"

    private func record(_ mode: RecordMode, path: String, options: Tape.Options = Tape.Options(), in scratch: ScratchTape) async throws {
        let tape = try scratch.tape(mode: mode, options: options)
        let fetched = await Fetch.get(scratch.url(path), on: tape.session)
        #expect(fetched.status == 200)
        try tape.eject()
    }

    private func firstLines(of file: URL) throws -> [Substring] {
        Array(String(decoding: try Data(contentsOf: file), as: UTF8.self).split(separator: "\n").prefix(3))
    }

    @Test func aNewCassetteNamesNoSchemaByDefault() async throws {
        try await withScratchTape { scratch in
            try await record(.once, path: "/echo/one", in: scratch)
            #expect(try firstLines(of: scratch.file)[1] == "  \"version\": 1,")
            #expect(try CassetteFile.read(scratch.file).schema == nil)
        }
    }

    @Test func aNewCassetteNamesTheSchemaItIsToldTo() async throws {
        try await withScratchTape { scratch in
            var options = Tape.Options()
            options.schemaReference = Self.reference
            try await record(.once, path: "/echo/one", options: options, in: scratch)
            #expect(try firstLines(of: scratch.file) == ["{", "  \"$schema\": \"../../docs/cassette.schema.json\",", "  \"version\": 1,"])
        }
    }

    /// Appended to (`newEpisodes`) or recorded again (`all`), a cassette keeps the schema it names,
    /// whatever the tape's option says.
    @Test(arguments: [RecordMode.newEpisodes, .all])
    func aSavedCassetteKeepsItsSchema(mode: RecordMode) async throws {
        try await withScratchTape { scratch in
            try await record(.once, path: "/echo/one", in: scratch)
            try CassetteFile.rewrite(scratch.file) { document in document.schema = "mine.schema.json" }
            var options = Tape.Options()
            options.schemaReference = Self.reference
            try await record(mode, path: "/echo/two", options: options, in: scratch)
            let document = try CassetteFile.read(scratch.file)
            #expect(document.schema == "mine.schema.json")
            #expect(
                document.interactions.map { URL(string: $0.request.url)?.path }
                    == (mode == .all ? ["/echo/two"] : ["/echo/one", "/echo/two"]))
        }
    }
}
