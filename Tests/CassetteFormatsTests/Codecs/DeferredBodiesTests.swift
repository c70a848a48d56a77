import CassetteTestSupport
import Foundation
import Testing

@testable import CassetteFormats

/// A stored cassette read with its large bodies left in the file compares with a recording
/// exactly as one read whole would: equal bytes find their placeholder, one byte off does not.
@Suite struct DeferredBodiesTests {
    static func randomBytes(_ count: Int, seed: UInt64) -> Data {
        var generator = SeededGenerator(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: generator.next()) }
        return Data(bytes)
    }

    /// A cassette with a binary response body, a text request body and a small body.
    static func document(binary: Data, text: String) -> CassetteDocument {
        CassetteDocument(interactions: [
            Interaction(
                request: .init(url: "https://e.com/big"),
                response: .init(
                    status: 200, headers: ["Content-Type": "application/octet-stream"],
                    body: .init(binary, contentType: "application/octet-stream"))),
            Interaction(
                request: .init(
                    method: "POST", url: "https://e.com/upload", headers: ["Content-Type": "text/plain"], body: .init(text: text)),
                response: .init(status: 201, body: .init(text: "small"))),
        ])
    }

    static func readDeferring(
        _ document: CassetteDocument, from minimum: Int
    ) throws -> (document: CassetteDocument, deferred: DeferredBodies) {
        try JSONCassetteCodec.decode(
            try JSONCassetteCodec.encode(document), file: "stored.json", release: nil, deferringBodiesFrom: minimum)
    }

    @Test func largeTextAndBase64BodiesBecomePlaceholdersSmallOnesAreRead() throws {
        let binary = Self.randomBytes(60_000, seed: 1)  // 80,000 bytes of base64
        // One line: text of several lines is written as an array of lines, which is read as usual.
        let text = String(repeating: "a long line ", count: 6_500)  // 78,000 bytes
        let read = try Self.readDeferring(Self.document(binary: binary, text: text), from: 70_000)
        let big = try #require(read.document.interactions[0].response?.body)
        let upload = read.document.interactions[1].request.body
        #expect(read.deferred.isPlaceholder(big) && big.form == .base64 && big.data != binary)
        #expect(read.deferred.isPlaceholder(upload) && upload.form == .text)
        #expect(read.deferred.size(of: big) == 60_000 && read.deferred.size(of: upload) == 78_000)
        #expect(read.document.interactions[1].response?.body.text == "small")
        // Below the minimum, everything is read.
        let whole = try Self.readDeferring(Self.document(binary: binary, text: text), from: 1 << 20)
        #expect(whole.deferred.isEmpty && whole.document == Self.document(binary: binary, text: text))
    }

    /// Sizes around the 768 KiB pieces of the comparison and around base64's groups of three.
    @Test(arguments: [70_000, 70_001, 70_002, 3 << 18, (3 << 18) + 1, (3 << 18) + 2, (3 << 20) + 5])
    func equalBytesFindTheirPlaceholderAndOneByteOffDoesNot(size: Int) throws {
        let binary = Self.randomBytes(size, seed: UInt64(size))
        let text = String(repeating: "x", count: size)
        let read = try Self.readDeferring(Self.document(binary: binary, text: text), from: 65_536)
        let big = try #require(read.document.interactions[0].response?.body)
        let upload = read.document.interactions[1].request.body
        #expect(read.deferred.isPlaceholder(big) && read.deferred.isPlaceholder(upload))

        #expect(read.deferred.placeholder(equalTo: .init(binary, contentType: "application/octet-stream")) == big)
        #expect(read.deferred.placeholder(equalTo: .init(text: text)) == upload)
        for position in [0, size / 2, size - 1] {
            var changed = binary
            changed[position] ^= 0x01
            #expect(
                read.deferred.placeholder(equalTo: .init(changed, contentType: "application/octet-stream")) == nil,
                "byte \(position) of \(size)")
            var changedText = Data(text.utf8)
            changedText[position] = UInt8(ascii: "y")
            #expect(read.deferred.placeholder(equalTo: .init(changedText)) == nil, "byte \(position) of \(size)")
        }
        #expect(read.deferred.placeholder(equalTo: .init(binary.dropLast())) == nil)
        #expect(read.deferred.placeholder(equalTo: .init(binary + Data([0]))) == nil)
        // The real bytes come back from the recording, in the form the file wrote them in.
        let restored = read.deferred.restored(big, from: .init(binary))
        #expect(restored.data == binary && restored.form == .base64)
        let small = try #require(read.document.interactions[1].response?.body)
        #expect(read.deferred.restored(small, from: .init(text: "other")) == small, "a body that was read stays as it is")
    }

    @Test func twoEqualBodiesShareAPlaceholder() throws {
        let binary = Self.randomBytes(100_000, seed: 9)
        var document = Self.document(binary: binary, text: "t")
        document.interactions.append(document.interactions[0])
        let read = try Self.readDeferring(document, from: 65_536)
        #expect(read.deferred.isPlaceholder(try #require(read.document.interactions[0].response?.body)))
        #expect(read.document.interactions[0].response?.body == read.document.interactions[2].response?.body)
        #expect(read.deferred.placeholder(equalTo: .init(binary)) == read.document.interactions[2].response?.body)
    }

    @Test func anErrorAfterTheBytesOfADeferredBodyIsCheckedAgainstItsRealSize() throws {
        var document = Self.document(binary: Self.randomBytes(100_000, seed: 3), text: "t")
        document.interactions[0].error = .init(code: .networkConnectionLost, afterBytes: 90_000)
        let read = try Self.readDeferring(document, from: 65_536)
        #expect(read.deferred.isPlaceholder(try #require(read.document.interactions[0].response?.body)))
        #expect(read.document.interactions[0].error?.afterBytes == 90_000)
        let tooFar = String(decoding: try JSONCassetteCodec.encode(document), as: UTF8.self)
            .replacingOccurrences(of: "\"afterBytes\": 90000", with: "\"afterBytes\": 100001")
        let error = try #require(throws: CassetteFormatError.self) {
            try JSONCassetteCodec.decode(Data(tooFar.utf8), file: "stored.json", release: nil, deferringBodiesFrom: 65_536)
        }
        #expect(error.problems.map(\.path?.description) == ["interactions[0].error.afterBytes"])
        #expect(error.problems.first?.message == "afterBytes (100001) is more than the response body holds (100000 bytes)")
    }

    @Test func invalidBase64IsNotDeferredAndStillReported() throws {
        let text =
            #"{"version":1,"interactions":[{"request":{"method":"GET","url":"https://e.com/"},"response":{"status":200,"body":{"base64":"\#(String(repeating: "A", count: 70_001))"}}}]}"#
        let error = try #require(throws: CassetteFormatError.self) {
            try JSONCassetteCodec.decode(Data(text.utf8), file: "bad.json", release: nil, deferringBodiesFrom: 65_536)
        }
        #expect(error.problems.map(\.path?.description) == ["interactions[0].response.body.base64"])
    }
}
