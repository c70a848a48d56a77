import CassetteFormats
import Foundation
import Testing

/// `docs/cassette.schema.json`, the JSON Schema editors use for cassettes, agrees with the reader
/// on the names it lists, documents every member, and covers every member a canonical cassette
/// uses. (CI also validates every cassette fixture against it with Python's `jsonschema`:
/// `.ci/schema-check`.)
@Suite struct CassetteSchemaTests {
    static let schemaFile = Paths.packageRoot.appendingPathComponent("docs/cassette.schema.json")
    static let everyMember = Paths.fixtures.appendingPathComponent("Canonical/every-member.json")

    private static func schema() throws -> JSONNode {
        try JSONParser.parse(try Data(contentsOf: schemaFile))
    }

    private static func definition(_ name: String, in schema: JSONNode) throws -> JSONNode {
        try #require(schema.node(at: JSONPath.root.appending("$defs").appending(name)), "no $defs/\(name)")
    }

    /// The strings of the `enum` among `node`'s `anyOf` alternatives (or of `node` itself).
    private static func enumeration(in node: JSONNode) -> [String] {
        var alternatives = [node]
        if case .array(let options) = node.memberValue("anyOf")?.value { alternatives += options }
        for alternative in alternatives {
            if case .array(let values) = alternative.memberValue("enum")?.value { return values.compactMap(\.value.stringValue) }
        }
        return []
    }

    @Test func itIsADraft2020_12Schema() throws {
        #expect(try Self.schema().memberValue("$schema")?.value.stringValue == "https://json-schema.org/draft/2020-12/schema")
    }

    @Test func theErrorCodesAreTheReadersNames() throws {
        let code = try #require(
            Self.definition("error", in: Self.schema()).node(at: JSONPath.root.appending("properties").appending("code")))
        #expect(Self.enumeration(in: code) == Interaction.TransportError.Code.allNames)
        #expect(Self.enumeration(in: code).count == 49)
    }

    @Test func theDownloadSpeedsAreThePresets() throws {
        let latency = try Self.definition("latency", in: Self.schema())
        guard case .array(let forms) = latency.memberValue("anyOf")?.value else {
            Issue.record("latency has no anyOf")
            return
        }
        #expect(Self.enumeration(in: forms[0]) == ["instant", "recorded"])
        let speed = try #require(forms.compactMap { $0.node(at: JSONPath.root.appending("properties").appending("bytesPerSecond")) }.first)
        #expect(Self.enumeration(in: speed) == DownloadSpeed.presets.compactMap(\.name))
    }

    @Test func theWebSocketNamesAreTheModels() throws {
        let message = try Self.definition("message", in: Self.schema())
        let kind = try #require(message.node(at: JSONPath.root.appending("properties").appending("kind")))
        let from = try #require(message.node(at: JSONPath.root.appending("properties").appending("from")))
        #expect(Self.enumeration(in: kind) == Interaction.WebSocketMessage.Kind.allCases.map(\.rawValue))
        #expect(Self.enumeration(in: from) == Interaction.WebSocketMessage.Sender.allCases.map(\.rawValue))
    }

    /// Every member the schema names, with whether it (or the definition it refers to) has a description.
    private static func members(of node: JSONNode, in schema: JSONNode, path: String, into found: inout [(path: String, described: Bool)]) {
        switch node.value {
        case .object(let members):
            for member in members {
                if member.key == "properties", case .object(let properties) = member.value.value {
                    for property in properties {
                        var described = property.value.memberValue("description") != nil
                        if !described, let reference = property.value.memberValue("$ref")?.value.stringValue {
                            let name = String(reference.dropFirst("#/$defs/".count))
                            described = schema.node(at: JSONPath.root.appending("$defs").appending(name))?.memberValue("description") != nil
                        }
                        found.append((path + "." + property.key, described))
                    }
                }
                // A condition ("if", "not") names members only to test them.
                guard member.key != "if", member.key != "not" else { continue }
                Self.members(of: member.value, in: schema, path: path + "/" + member.key, into: &found)
            }
        case .array(let elements):
            for element in elements { Self.members(of: element, in: schema, path: path, into: &found) }
        default:
            break
        }
    }

    @Test func everyMemberHasADescription() throws {
        let schema = try Self.schema()
        var found: [(path: String, described: Bool)] = []
        Self.members(of: schema, in: schema, path: "", into: &found)
        #expect(found.count > 60)
        #expect(found.filter { !$0.described }.map(\.path) == [])
    }

    /// Every key of `node`, at any depth, outside JSON bodies and event data (which are the API's, not the format's).
    private static func keys(of node: JSONNode, into keys: inout Set<String>) {
        switch node.value {
        case .object(let members):
            for member in members {
                keys.insert(member.key)
                if member.key != "json", member.key != "data" { Self.keys(of: member.value, into: &keys) }
            }
        case .array(let elements):
            for element in elements { Self.keys(of: element, into: &keys) }
        default:
            break
        }
    }

    /// The canonical `every-member.json` uses every member the schema names (header names and
    /// the schema's own keywords aside), so `.ci/schema-check` validates each of them against a
    /// file the reader accepts, and the reader reads it.
    @Test func theEveryMemberFixtureUsesEveryMemberTheSchemaNames() throws {
        let schema = try Self.schema()
        var found: [(path: String, described: Bool)] = []
        Self.members(of: schema, in: schema, path: "", into: &found)
        let named = Set(found.map { String($0.path.split(separator: ".").last ?? "") })
        let data = try Data(contentsOf: Self.everyMember)
        var used = Set<String>()
        Self.keys(of: try JSONParser.parse(data), into: &used)
        #expect(named.subtracting(used).sorted() == [])
        let document = try JSONCassetteCodec.decode(data, file: Self.everyMember.lastPathComponent)
        #expect(document.schema == "../../../../docs/cassette.schema.json")
        #expect(document.interactions.count == 6)
    }

    // MARK: The "$schema" member

    @Test func aSchemaMemberIsReadAndWrittenFirst() throws {
        let text = """
            { "version": 1, "$schema": "https://example.com/cassette.schema.json", "interactions": [] }
            """
        let document = try JSONCassetteCodec.decode(Data(text.utf8), file: "a.json")
        #expect(document.schema == "https://example.com/cassette.schema.json")
        #expect(
            String(decoding: try JSONCassetteCodec.encode(document), as: UTF8.self) == """
                {
                  "$schema": "https://example.com/cassette.schema.json",
                  "version": 1,
                  "interactions": []
                }

                """)
        #expect(try JSONCassetteCodec.decode(Data(#"{ "version": 1, "interactions": [] }"#.utf8)).schema == nil)
    }

    @Test func aSchemaThatIsNotAStringIsAnErrorWithItsPlace() {
        let problems = BadInputTests.problems(#"{ "$schema": 1, "version": 1, "interactions": [] }"#, as: .json)
        #expect(problems.map(\.message) == ["expected the address of a JSON Schema, a string, found 1"])
        #expect(problems.map { $0.path?.description } == ["[\"$schema\"]"])
        #expect(problems.map(\.column) == [14])
    }

    /// Only JSON has a place for it: the other formats read and write the same document without it.
    @Test func otherFormatsDoNotKeepIt() throws {
        let document = CassetteDocument(
            schema: "s.json",
            interactions: [Interaction(request: .init(method: "GET", url: "https://a.example/"), response: .init(status: 204))])
        for format in [CassetteFormat.httpMessages, .har] {
            let read = try format.decode(try format.encode(document), file: nil)
            #expect(read.schema == nil)
            #expect(read.interactions == document.interactions)
        }
    }
}
