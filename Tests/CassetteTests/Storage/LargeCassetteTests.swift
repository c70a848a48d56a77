import CassetteTestSupport
import Foundation
import Testing

@testable import Cassette

/// A cassette large enough to be read through a memory mapping (`MappedFile`, from 16 MiB) reads
/// exactly as one read whole, bodies included; a mistake in it is still reported at its line and
/// column, although the parser gave back the file's pages as it went.
@Suite(.timingIsolated) struct LargeCassetteTests {
    static func document() -> CassetteDocument {
        var random = SeededGenerator(seed: 99)
        let binary = Data((0..<(14 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) })
        let text = String(repeating: "a line of a large text body\n", count: 40_000)
        return CassetteDocument(
            recordedWith: "Cassette tests",
            interactions: [
                Interaction(
                    request: .init(method: "GET", url: "https://a.example/small"),
                    response: .init(
                        status: 200, headers: ["Content-Type": "application/json"],
                        body: .init(Data(#"{"id":1}"#.utf8), contentType: "application/json"))),
                Interaction(
                    request: .init(method: "GET", url: "https://a.example/big.bin"),
                    response: .init(
                        status: 200, headers: ["Content-Type": "application/octet-stream"],
                        body: .init(binary, contentType: "application/octet-stream"))),
                Interaction(
                    request: .init(method: "POST", url: "https://a.example/text", body: .init(text: text)),
                    response: .init(status: 200, headers: ["Content-Type": "text/plain"], body: .init(text: text))),
            ])
    }

    @Test func aMappedCassetteReadsExactlyAsOneReadWhole() throws {
        try withScratchTape { scratch in
            let file = scratch.file("large.json")
            let document = Self.document()
            try CassetteFile.write(document, to: file)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int)
            #expect(size >= MappedFile.threshold)
            #expect(try MappedFile.read(file).release != nil)

            #expect(try CassetteFile.read(file) == document)
            #expect(try JSONCassetteCodec.decode(Data(contentsOf: file)) == document)
            // Twice, from the same file: released pages are read again from it.
            #expect(try CassetteFile.read(file).interactions[1].response?.body.data == document.interactions[1].response?.body.data)
        }
    }

    @Test func aMistakeInAMappedCassetteIsReportedAtItsPlace() throws {
        try withScratchTape { scratch in
            let file = scratch.file("broken.json")
            var bytes = Array(try JSONCassetteCodec.encode(Self.document()))
            // Break the big base64 body near its end: the error is found after its start was released.
            let marker = Array(#""base64": ""#.utf8)
            let start =
                try #require((0..<(bytes.count - marker.count)).first { Array(bytes[$0..<($0 + marker.count)]) == marker }) + marker.count
            let end = try #require(bytes[start...].firstIndex(of: UInt8(ascii: "\"")))
            bytes[end - 10] = UInt8(ascii: "*")
            try Data(bytes).write(to: file)
            #expect {
                try CassetteFile.read(file)
            } throws: { error in
                let text = (error as? CassetteFormatError)?.description ?? "\(error)"
                return text.hasPrefix(file.path + ":")
                    && text.contains("interactions[1].response.body.base64: invalid base64: '*' at character")
            }
        }
    }
}
