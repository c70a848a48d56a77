import CassetteFormats
import Foundation
import Testing

/// Strings of 64 KiB or more are kept as bytes of the file until read (`JSONValue.longString`):
/// every place a cassette holds one reads exactly as a short one would.
@Suite struct LongStringTests {
    static let long = String(repeating: "0123456789abcdef", count: 8 * 1024)  // 128 KiB, one line
    static let binary = Data((0..<(96 * 1024)).map { UInt8(($0 * 7) % 256) })

    static func document() -> CassetteDocument {
        CassetteDocument(
            recordedWith: "Cassette tests",
            interactions: [
                Interaction(
                    request: .init(method: "POST", url: "https://a.example/text", headers: ["X-Long": long], body: .init(text: long)),
                    response: .init(
                        status: 200, headers: ["Content-Type": "application/octet-stream"],
                        body: .init(binary, contentType: "application/octet-stream"))),
                Interaction(
                    request: .init(
                        method: "POST", url: "https://a.example/json",
                        body: .init(Data(#"{"note":"\#(long)","n":1}"#.utf8), contentType: "application/json")),
                    response: .init(
                        status: 200, headers: ["Content-Type": "text/event-stream"],
                        stream: .init(chunks: [
                            .init(at: 0.1, event: ServerSentEvent(data: long)),
                            .init(at: 0.2, data: Data(long.utf8)),
                        ]))),
            ])
    }

    @Test(arguments: CassetteFormat.allCases)
    func longStringsReadBackExactlyInEveryFormat(_ format: CassetteFormat) throws {
        let document = Self.document()
        let read = try format.decode(try format.encode(document))
        #expect(read.interactions.map(\.request) == document.interactions.map(\.request), "\(format)")
        #expect(read.interactions.map(\.response?.body.data) == document.interactions.map(\.response?.body.data), "\(format)")
        if format != .har { #expect(read == document, "\(format)") }
    }

    @Test func aLongStringWithAnEscapeFarIntoItIsReadWhole() throws {
        let text = String(repeating: "x", count: 5 << 20) + "\"quoted\"\n" + String(repeating: "y", count: 1000)
        var escaped: [UInt8] = []
        JSONWriter.appendString(text, to: &escaped)
        let file =
            #"{"version":1,"interactions":[{"request":{"method":"POST","url":"https://a.example/","body":{"text":"#
            + String(decoding: escaped, as: UTF8.self) + #"}},"response":{"status":204}}]}"#
        let read = try JSONCassetteCodec.decode(Data(file.utf8))
        #expect(read.interactions[0].request.body.data == Data(text.utf8))
    }

    @Test func aLongStringOfTheWrongKindSaysSo() {
        let file =
            #"{"version":1,"interactions":[{"request":{"method":"GET","url":"https://a.example/"},"response":{"status":"#
            + "\"" + Self.long + "\"" + "}}]}"
        #expect {
            try JSONCassetteCodec.decode(Data(file.utf8), file: "long.json")
        } throws: { error in
            (error as? CassetteFormatError)?.description.contains(
                "interactions[0].response.status: expected an HTTP status like 200 (a whole number), found a string of 131072 bytes")
                == true
        }
    }
}
