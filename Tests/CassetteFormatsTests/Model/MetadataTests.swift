import CassetteFormats
import Foundation
import Testing

/// A cassette's metadata: written and read back by every format, losslessly, its mistakes named
/// with their place; a cassette without it reads as before.
@Suite struct MetadataTests {
    static let metadata: [String: MetadataValue] = [
        "apiVersion": "2026-10-01", "account": ["id": 42, "plan": "pro", "tags": ["a", "b"]], "ratio": 0.5, "retries": 3,
        "flag": true, "missing": nil, "whole": .number(3.0),
    ]

    static var document: CassetteDocument {
        var document = CassetteDocument(
            recordedWith: "Cassette 0.1.0",
            interactions: [Interaction(request: .init(url: "https://api.example.com/feed"), response: .init(status: 204))])
        document.metadata = metadata
        return document
    }

    @Test(arguments: CassetteFormat.allCases)
    func everyFormatKeepsIt(format: CassetteFormat) throws {
        let read = try format.decode(try format.encode(Self.document), file: "m.\(format.fileExtension)")
        #expect(read.metadata == Self.metadata)
        #expect(read.interactions == Self.document.interactions)
    }

    /// JSON → .http → HAR → JSON gives the same bytes.
    @Test func convertingAroundIsLossless() throws {
        let json = try JSONCassetteCodec.encode(Self.document)
        let http = try CassetteFormat.httpMessages.encode(try JSONCassetteCodec.decode(json))
        let har = try CassetteFormat.har.encode(try CassetteFormat.httpMessages.decode(http))
        #expect(try JSONCassetteCodec.encode(try CassetteFormat.har.decode(har)) == json)
    }

    @Test func eachFormatWritesItWhereItsReadersLook() throws {
        let text = { (format: CassetteFormat) in String(decoding: try format.encode(Self.document), as: UTF8.self) }
        #expect(
            try text(.json).contains(
                """
                  "metadata": {
                    "account": {
                      "id": 42,
                      "plan": "pro",
                      "tags": ["a", "b"]
                    },
                    "apiVersion": "2026-10-01",
                    "flag": true,
                    "missing": null,
                    "ratio": 0.5,
                    "retries": 3,
                    "whole": 3.0
                  },
                """))
        #expect(
            try text(.httpMessages).contains(
                #"# metadata: {"account":{"id":42,"plan":"pro","tags":["a","b"]},"apiVersion":"2026-10-01","flag":true,"missing":null,"ratio":0.5,"retries":3,"whole":3.0}"#
                    + "\n"))
        #expect(try text(.har).contains(#""_cassette": {"#))
        #expect(MetadataValue.object(["b": 1, "a": [true, nil]]).description == #"{"a":[true,null],"b":1}"#)
    }

    @Test func aCassetteWithoutMetadataHasNone() throws {
        for format in CassetteFormat.allCases {
            let plain = CassetteDocument(interactions: Self.document.interactions)
            let read = try format.decode(try format.encode(plain))
            #expect(read.metadata == [:])
            #expect(!String(decoding: try format.encode(plain), as: UTF8.self).contains("metadata"))
        }
    }

    /// A reserved key is refused where it is written, in every format, and by the writer.
    @Test func reservedKeysAreRefused() throws {
        var document = Self.document
        document.metadata["Cassette.version"] = 1
        #expect(throws: CassetteFormatError.self) { try JSONCassetteCodec.encode(document) }
        let http = """
            # version: 1
            # metadata: {"ok":1,"$id":"x"}

            GET https://api.example.com/feed

            HTTP/1.1 204 No Content


            """
        do {
            _ = try CassetteFormat.httpMessages.decode(Data(http.utf8), file: "m.http")
            Issue.record("a reserved key was read")
        } catch {
            #expect(
                error.problems.map(\.message) == [
                    #"metadata key "$id" is reserved: keys starting with "cassette" or "$" are Cassette's own; rename it"#
                ])
            #expect(error.problems.map(\.line) == [2])
        }
        let notJSON = http.replacingOccurrences(of: #"{"ok":1,"$id":"x"}"#, with: "{ok}")
        do {
            _ = try CassetteFormat.httpMessages.decode(Data(notJSON.utf8), file: "m.http")
            Issue.record("metadata that is not JSON was read")
        } catch {
            #expect(error.problems.first?.message.hasPrefix("the metadata is not JSON: expected a key in double quotes") == true)
        }
        let har =
            #"{ "log": { "version": "1.2", "creator": { "name": "Cassette", "version": "0.1.0" }, "_cassette": { "metadata": 7 }, "entries": [] } }"#
        do {
            _ = try CassetteFormat.har.decode(Data(har.utf8), file: "m.har")
            Issue.record("metadata that is not an object was read")
        } catch {
            #expect(
                error.problems.map(\.message) == [
                    #"expected the cassette's metadata as an object like { "apiVersion": "2026-10-01" }, found 7"#
                ])
            #expect(error.problems.map { $0.path?.description } == ["log._cassette.metadata"])
        }
    }
}

extension MetadataTests {
    /// Numbers a double would write otherwise are kept as written, through every format:
    /// `12345678901234567890123` became `1.2345678901234568e+22` and `1.10` became `1.1`; `1e400`,
    /// beyond a double, made the whole cassette unreadable.
    static let written = """
        { "version": 1, "metadata": { "big": 12345678901234567890123, "ratio": 1.10, "plain": 0.5, "count": 3, "kilo": 1E3, "huge": 1e400 },
          "interactions": [ { "request": { "method": "GET", "url": "https://api.example.com/feed" }, "response": { "status": 204 } } ] }
        """

    @Test(arguments: CassetteFormat.allCases)
    func numbersAreKeptAsWritten(format: CassetteFormat) throws {
        let read = try JSONCassetteCodec.decode(Data(Self.written.utf8))
        #expect(
            read.metadata == [
                "big": .numberLiteral("12345678901234567890123"), "ratio": .numberLiteral("1.10"), "plain": .number(0.5),
                "count": .integer(3), "kilo": .numberLiteral("1E3"), "huge": .numberLiteral("1e400"),
            ])
        let encoded = try format.encode(read)
        let text = String(decoding: encoded, as: UTF8.self)
        for literal in ["12345678901234567890123", "1.10", "1E3", "1e400"] {
            #expect(text.contains(literal), "\(format): \(literal) in \(text)")
        }
        #expect(try format.decode(encoded, file: "m.\(format.fileExtension)").metadata == read.metadata)
    }

    @Test func aLiteralThatIsNotANumberIsRefused() throws {
        var document = Self.document
        document.metadata = ["bad": .numberLiteral("1.2.3")]
        #expect(throws: CassetteFormatError.self) { try JSONCassetteCodec.encode(document) }
    }
}
