import CassetteFormats
import Foundation
import Testing

/// A file the encoder wrote reads back and writes again to the very same bytes — with the field
/// names of the descriptor sets beside it (`*.protoset`), as a save writes them.
@Suite struct CanonicalFileTests {
    static let canonicalFiles =
        Paths.jsonFiles(in: Paths.cassettes) + Paths.jsonFiles(in: Paths.fixtures.appendingPathComponent("Canonical"))

    @Test func thereAreCanonicalFilesToCheck() {
        #expect(Self.canonicalFiles.count >= 4)
    }

    static func names(besides file: URL) throws -> ProtobufSchema? {
        let folder = file.deletingLastPathComponent()
        var schema = ProtobufSchema()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".protoset") {
            schema.add(try ProtobufSchema(descriptorSet: try Data(contentsOf: folder.appendingPathComponent(name))))
        }
        return schema.isEmpty ? nil : schema
    }

    @Test(arguments: canonicalFiles)
    func encodeOfDecodeIsByteIdentical(file: URL) throws {
        let original = try Data(contentsOf: file)
        let document = try JSONCassetteCodec.decode(original, file: file.lastPathComponent)
        let reencoded = try JSONCassetteCodec.encode(document, names: try Self.names(besides: file))
        if reencoded != original {
            let out = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reencoded-" + file.lastPathComponent)
            try? reencoded.write(to: out)
            Issue.record("\(file.lastPathComponent) re-encodes differently; the re-encoded file is at \(out.path)")
        }
    }
}
