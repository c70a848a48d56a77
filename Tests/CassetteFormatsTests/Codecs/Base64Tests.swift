import CassetteFormats
import CassetteTestSupport
import Foundation
import Testing

/// The base64 decoder the codecs use agrees with Foundation's, byte for byte and on what it refuses.
@Suite struct Base64Tests {
    @Test func itDecodesWhatFoundationEncodes() {
        var rng = SeededGenerator(seed: 64)
        for length in Array(0...40) + [1000, 65_537] {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) })
            let encoded = bytes.base64EncodedString()
            #expect(Base64.decode(encoded.utf8, allowingWhitespace: false) == bytes, "length \(length)")
            let wrapped = bytes.base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
            #expect(Base64.decode(wrapped.utf8, allowingWhitespace: true) == bytes, "wrapped, length \(length)")
        }
    }

    /// Decoding a few bytes of text at a time gives the same bytes, refuses the same texts, and
    /// reports each piece done, in order, covering the text.
    @Test func decodingInPiecesAgreesWithDecodingWhole() {
        var rng = SeededGenerator(seed: 65)
        for length in Array(0...40) + [1000, 65_537] {
            let encoded = Data(Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }).base64EncodedString().utf8)
            for chunk in [4, 8, 12, 1000, 1 << 20] {
                var done: [Range<Int>] = []
                let decoded = Base64.decode(encoded, inChunksOf: chunk) { done.append($0) }
                #expect(decoded == Base64.decode(encoded, allowingWhitespace: false), "length \(length), pieces of \(chunk)")
                #expect(
                    done.map(\.count).reduce(0, +) == encoded.count
                        && zip(done, done.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            }
        }
        for text in ["AB==AB==", "AB==ABCD", "ABCDAB=C", "ABC", "AB*DABCD", "AB DABCD"] {
            #expect(Base64.decode(Data(text.utf8), inChunksOf: 4) { _ in } == nil, "\(text)")
        }
    }

    @Test(arguments: ["A", "AB", "ABC", "A===", "AB==C", "AB==AB==", "AB*D", "AB D", "AB\nCD", "ABC=D"] as [EscapedText])
    func itRefusesWhatFoundationRefuses(text argument: EscapedText) {
        let text = argument.value
        #expect(Data(base64Encoded: text) == nil, "Foundation accepts \(text.debugDescription)")
        #expect(Base64.decode(text.utf8, allowingWhitespace: false) == nil)
    }

    /// Padding in the middle of a quad, or a quad of padding alone: FoundationNetworking's decoder
    /// accepts these; RFC 4648 does not, and neither does Cassette.
    @Test(arguments: ["AB=C", "===="])
    func itRefusesMisplacedPaddingThatCorelibsAccepts(text: String) {
        #expect(Base64.decode(text.utf8, allowingWhitespace: false) == nil)
    }

    @Test func whiteSpaceIsSkippedOnlyWhenAllowed() {
        #expect(Base64.decode(" aGVs\nbG8=\r\n".utf8, allowingWhitespace: true) == Data("hello".utf8))
        #expect(Base64.decode("aGVs bG8=".utf8, allowingWhitespace: false) == nil)
        #expect(Base64.decode("aGVsbG8=\n".utf8, allowingWhitespace: true) == Data("hello".utf8))
        #expect(Base64.decode("".utf8, allowingWhitespace: false) == Data())
    }
}
