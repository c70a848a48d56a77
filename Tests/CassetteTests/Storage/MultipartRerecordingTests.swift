import Foundation
import Testing

@testable import Cassette

/// Re-recording compares a large body where the cassette stores it (``DeferredBodies``), but a
/// part of a multipart body is read whole: as a placeholder, an unchanged upload of a large file
/// compared unequal to itself, and re-recording the same traffic rewrote the cassette.
@Suite struct MultipartRerecordingTests {
    /// A `POST` of `part` as a file in a multipart form, answered by `response`.
    static func upload(of part: Data, answered response: Interaction.Response, scenario: String? = nil) -> Interaction {
        var form = Data("--b0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n".utf8)
        form += Data("Content-Type: application/octet-stream\r\n\r\n".utf8) + part + Data("\r\n--b0undary--\r\n".utf8)
        return Interaction(
            request: .init(
                method: "POST", url: "https://api.example/upload", headers: ["Content-Type": "multipart/form-data; boundary=b0undary"],
                body: .init(form, contentType: "multipart/form-data; boundary=b0undary")),
            response: response, scenario: scenario)
    }

    @Test func anUnchangedLargeMultipartUploadLeavesTheCassetteAsItWas() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("upload.json")
        let part = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
        let interaction = Self.upload(of: part, answered: .init(status: 201, body: .init(text: "stored")))
        #expect(interaction.request.body.form == .multipart)
        try CassetteFile.write(CassetteDocument(interactions: [interaction]), to: file)
        let written = try Data(contentsOf: file)

        let again = try CassetteFile.save([interaction], replacing: true, to: file)
        #expect(!again.saved, "the same upload again: the file is not written")
        #expect(again.changes == nil)
        #expect(try Data(contentsOf: file) == written)
    }
}
