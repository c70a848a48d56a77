import CassetteFormats
import Foundation
import Testing

/// A file the encoder wrote reads back and writes again to the very same bytes.
@Suite struct CanonicalFileTests {
    static let canonicalFiles =
        Paths.jsonFiles(in: Paths.cassettes) + Paths.jsonFiles(in: Paths.fixtures.appendingPathComponent("Canonical"))

    @Test func thereAreCanonicalFilesToCheck() {
        #expect(Self.canonicalFiles.count >= 4)
    }

    @Test(arguments: canonicalFiles)
    func encodeOfDecodeIsByteIdentical(file: URL) throws {
        let original = try Data(contentsOf: file)
        let document = try JSONCassetteCodec.decode(original, file: file.lastPathComponent)
        let reencoded = try JSONCassetteCodec.encode(document)
        if reencoded != original {
            let out = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reencoded-" + file.lastPathComponent)
            try? reencoded.write(to: out)
            Issue.record("\(file.lastPathComponent) re-encodes differently; the re-encoded file is at \(out.path)")
        }
    }
}
