import CassetteFormats
import Foundation
import Testing

/// Inputs fuzzing found to lose or break data on a round trip: each one now decodes, re-encodes
/// and decodes to an equal document, in its own format and through the others.
@Suite struct RoundTripEdgeTests {
    /// `document` written in `format`, read back, written in every other format and read back:
    /// equal every time.
    static func survivesEveryFormat(_ document: CassetteDocument, _ comment: Comment? = nil) throws {
        for first in CassetteFormat.allCases {
            let once = try first.decode(first.encode(document))
            #expect(once == document, "\(first) changed it: \(comment.map(String.init(describing:)) ?? "")")
            for second in CassetteFormat.allCases {
                #expect(try second.decode(second.encode(once)) == document, "\(first) then \(second)")
            }
        }
    }

    @Test(arguments: [nil, "Cassette", "Cassette 0.1.0", "Tool ", " Tool", "A B C", "x  1", "Tool 1 ", "Cassette "])
    func everyRecordedWithComesBack(_ recordedWith: String?) throws {
        let document = CassetteDocument(
            recordedWith: recordedWith,
            interactions: [
                Interaction(request: .init(url: "https://a.example/"), response: .init(status: 200))
            ])
        try Self.survivesEveryFormat(document, "recordedWith \(String(describing: recordedWith))")
    }

    @Test func aHARCreatorWithATrailingSpaceKeepsIt() throws {
        let har = #"{ "log": { "version": "1.2", "creator": { "name": "Tool ", "version": "" }, "entries": [] } }"#
        let document = try HARCassetteCodec.decode(Data(har.utf8))
        #expect(document.recordedWith == "Tool ")
        #expect(try HARCassetteCodec.decode(HARCassetteCodec.encode(document)).recordedWith == "Tool ")
    }

    @Test func aWindowsCheckoutOfAnHTTPCassetteReadsAsTheOriginal() throws {
        let document = CassetteDocument(
            recordedWith: "Cassette 0.1.0",
            interactions: [
                Interaction(
                    request: .init(
                        method: "POST", url: "https://a.example/notes", headers: ["Content-Type": "text/plain"],
                        body: .init(text: "line one\nline two\n")),
                    response: .init(status: 201, headers: ["Content-Type": "application/json"], body: .init(text: #"{"ok":true}"#)),
                    timing: .init(firstByte: 0.1, duration: 0.2)),
                Interaction(request: .init(url: "https://a.example/down"), error: .init(code: .init(name: "timedOut")!)),
            ])
        let lf = try HTTPMessageCassetteCodec.encode(document)
        let crlf = Data(String(decoding: lf, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
        let read = try HTTPMessageCassetteCodec.decode(crlf)
        #expect(read == document)
        #expect(read.recordedWith == "Cassette 0.1.0")  // not "Cassette 0.1.0\r"
        #expect(read.interactions[0].request.body.data == Data("line one\nline two\n".utf8))
    }

    @Test func aPastedCRLFResponseInAnLFFileKeepsItsBytes() throws {
        // Only a file converted whole loses its \r: a pasted `curl -i` keeps the body it showed.
        let text = "### \nGET https://a.example/\n\nHTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nA\r\nB\n\n"
        let read = try HTTPMessageCassetteCodec.decode(Data(text.utf8))
        #expect(read.interactions[0].response?.body.data == Data("A\r\nB".utf8))
    }

    @Test func valuesAWriterCannotWriteBackAreRefusedWhenRead() throws {
        // Read before, then unwritable: a timing with its duration before its first byte, and a
        // HAR time so large that it printed as `inf`.
        let reversed =
            #"{ "log": { "version": "1.2", "creator": { "name": "T", "version": "1" }, "entries": [ { "request": { "method": "GET", "url": "https://a.example/" }, "response": { "status": 200 }, "timings": { "send": 0, "wait": 1, "receive": 0 }, "_cassette": { "timing": { "firstByte": 2, "duration": 1 } } } ] } }"#
        #expect(throws: CassetteFormatError.self) { try HARCassetteCodec.decode(Data(reversed.utf8)) }
        let huge =
            #"{ "log": { "version": "1.2", "creator": { "name": "T", "version": "1" }, "entries": [ { "request": { "method": "GET", "url": "https://a.example/" }, "response": { "status": 200 }, "timings": { "send": 0, "wait": 1e308, "receive": 0 } } ] } }"#
        #expect(throws: CassetteFormatError.self) { try HARCassetteCodec.decode(Data(huge.utf8)) }
    }

    @Test func theGeneratedCorpusSurvivesEveryPairOfFormats() throws {
        var generator = InteractionGenerator(seed: 20)
        for _ in 0..<5 {
            try Self.survivesEveryFormat(generator.document(count: 40))
        }
    }
}
