import CassetteFormats
import Foundation
import Testing

/// `multipart/form-data` bodies: parsed into parts, written part by part in JSON (and as HAR
/// `params`), read back to the same bytes, refused with a place when a hand edit is wrong.
@Suite struct MultipartTests {
    static let boundary = "alamofire.boundary.3f9c2a7d1e6b4850"
    static let contentType = "multipart/form-data; boundary=\(boundary)"
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF])

    /// What Alamofire's `MultipartFormData` sends: CRLF line ends, `Content-Disposition` then
    /// `Content-Type`, a CRLF after the closing delimiter.
    static func body(boundary: String = boundary, title: String = "Holiday", order: [Int] = [0, 1, 2]) -> Data {
        let parts = [
            "Content-Disposition: form-data; name=\"title\"\r\n\r\n\(title)",
            "Content-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"tags\":[\"sea\",\"sun\"],\"year\":2026}",
        ]
        var data = Data()
        for index in order {
            data += Data("--\(boundary)\r\n".utf8)
            if index < 2 {
                data += Data(parts[index].utf8)
            } else {
                data +=
                    Data("Content-Disposition: form-data; name=\"photo\"; filename=\"beach.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
                    + png
            }
            data += Data("\r\n".utf8)
        }
        return data + Data("--\(boundary)--\r\n".utf8)
    }

    @Test func aClientsBodyParsesIntoItsParts() throws {
        let multipart = try Multipart.parse(Self.body(), contentType: Self.contentType)
        #expect(multipart.boundary == Self.boundary)
        #expect(multipart.parts.map(\.name) == ["title", "meta", "photo"])
        #expect(multipart.parts.map(\.filename) == [nil, nil, "beach.png"])
        #expect(multipart.parts.map(\.contentType) == [nil, "application/json", "image/png"])
        #expect(multipart.parts[0].body == Data("Holiday".utf8))
        #expect(multipart.parts[2].body == Self.png)
        #expect(multipart.serialized() == Self.body())
        #expect(Interaction.Body(Self.body(), contentType: Self.contentType).form == .multipart)
    }

    @Test func aQuotedBoundaryAndOneFoundInTheBodyParseToo() throws {
        let quoted = try Multipart.parse(Self.body(), contentType: "multipart/form-data; boundary=\"\(Self.boundary)\"")
        #expect(quoted.parts.count == 3)
        let found = try Multipart.parse(Self.body(), contentType: nil)
        #expect(found.boundary == Self.boundary && found.parts.count == 3)
    }

    @Test func bareLineFeedsAPreambleAndAnEpilogueParseButAreKeptAsText() throws {
        let lf = Data(String(decoding: Self.body(order: [0, 1]), as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n").utf8)
        let parsed = try Multipart.parse(lf, contentType: Self.contentType)
        #expect(parsed.parts.map(\.name) == ["title", "meta"])
        #expect(parsed.parts[0].body == Data("Holiday".utf8))
        // Not the canonical layout: written as text, so the bytes stay exactly as they were.
        #expect(Interaction.Body(lf, contentType: Self.contentType).form == .text)
        let framed = Data("a preamble\r\n".utf8) + Self.body() + Data("an epilogue".utf8)
        #expect(try Multipart.parse(framed, contentType: Self.contentType).parts.count == 3)
        #expect(Interaction.Body(framed, contentType: Self.contentType).form == .base64)  // the PNG bytes are not text
    }

    @Test(arguments: [
        (
            "no boundary anywhere", Data("hello".utf8), "multipart/form-data",
            "no boundary: the Content-Type has no boundary parameter and the body does not open with \"--\""
        ),
        ("another boundary", body(), "multipart/form-data; boundary=other", "the boundary \"other\" never appears in the body"),
        (
            "never closed", Data("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx".utf8), "multipart/form-data; boundary=b",
            "part 1 is not closed: no \"--b\" after it"
        ),
        (
            "headers never end", Data("--b\r\nContent-Disposition: form-data; name=\"a\"".utf8), "multipart/form-data; boundary=b",
            "part 1: its header fields never end (no empty line)"
        ),
        (
            "not a header", Data("--b\r\nnot a header\r\n\r\nx\r\n--b--\r\n".utf8), "multipart/form-data; boundary=b",
            "part 1: \"not a header\" is not a header field"
        ),
    ])
    func aBodyThatIsNotMultipartSaysWhy(_ name: String, _ data: Data, _ contentType: String, _ expected: String) {
        #expect(throws: Multipart.ParseError(description: expected)) { try Multipart.parse(data, contentType: contentType) }
        #expect(Interaction.Body(data, contentType: contentType).form != .multipart)
    }

    // MARK: JSON

    @Test func aJSONCassetteWritesThePartsReadably() throws {
        let document = Self.document(Self.body(order: [0, 1]))
        let encoded = String(decoding: try JSONCassetteCodec.encode(document), as: UTF8.self)
        let expected = """
                    "body": {
                      "multipart": {
                        "boundary": "\(Self.boundary)",
                        "parts": [
                          { "name": "title", "text": "Holiday" },
                          {
                            "name": "meta",
                            "contentType": "application/json",
                            "json": { "tags": ["sea", "sun"], "year": 2026 }
                          }
                        ]
                      }
                    }
            """
        #expect(encoded.contains(expected), "\(encoded)")
        let decoded = try JSONCassetteCodec.decode(Data(encoded.utf8))
        #expect(decoded.interactions[0].request.body.data == Self.body(order: [0, 1]))
        #expect(decoded.interactions[0].request.body.form == .multipart)
        #expect(try JSONCassetteCodec.encode(decoded) == Data(encoded.utf8))
    }

    @Test func aBinaryPartIsBase64AndTheRestStaysText() throws {
        let encoded = String(decoding: try JSONCassetteCodec.encode(Self.document(Self.body())), as: UTF8.self)
        #expect(encoded.contains("\"filename\": \"beach.png\""))
        #expect(encoded.contains("\"base64\": \"\(Self.png.base64EncodedString())\""))
        #expect(try JSONCassetteCodec.decode(Data(encoded.utf8)).interactions[0].request.body.data == Self.body())
    }

    /// A hand edit of one part (a new title, a part moved up) gives the body a client would send.
    @Test func aHandEditedPartGivesTheBodyAClientWouldSend() throws {
        let encoded = String(decoding: try JSONCassetteCodec.encode(Self.document(Self.body())), as: UTF8.self)
        let edited = encoded.replacingOccurrences(of: "\"text\": \"Holiday\"", with: "\"text\": \"Winter\"")
        let decoded = try JSONCassetteCodec.decode(Data(edited.utf8))
        #expect(decoded.interactions[0].request.body.data == Self.body(title: "Winter"))
    }

    @Test func partsNotInTheClientLayoutKeepTheirHeadersAsWritten() throws {
        let data = Data("--b\r\nContent-Type: text/plain\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi\r\n--b--\r\n".utf8)
        let body = Interaction.Body(data, contentType: "multipart/form-data; boundary=b")
        #expect(body.form == .multipart)
        let part = try #require(try Multipart.parse(data, contentType: nil).parts.first)
        #expect(part.keepsHeadersAsWritten && part.name == "note" && part.contentType == "text/plain")
        let encoded = String(
            decoding: try JSONCassetteCodec.encode(Self.document(data, contentType: "multipart/form-data; boundary=b")), as: UTF8.self)
        #expect(encoded.contains(#""Content-Disposition": "form-data; name=\"note\"""#))
        #expect(!encoded.contains(#""name": "note""#))
        #expect(try JSONCassetteCodec.decode(Data(encoded.utf8)).interactions[0].request.body.data == data)
    }

    @Test(arguments: [
        (
            #"{"boundary": "b", "parts": [{"name": "a\"b", "text": "x"}]}"#,
            #"interactions[0].request.body.multipart.parts[0].name: "a\"b" cannot be written between quotes in Content-Disposition"#
        ),
        (
            #"{"boundary": "b", "parts": [{"name": "a", "text": "x", "base64": "eA=="}]}"#,
            #"interactions[0].request.body.multipart.parts[0]: a part's body is written in exactly one form; found "text" and "base64""#
        ),
        (
            #"{"boundary": "", "parts": [{"name": "a"}]}"#,
            #"interactions[0].request.body.multipart.boundary: expected a boundary of 1 to 70 characters, found 0"#
        ),
        (#"{"boundary": "b", "parts": []}"#, #"interactions[0].request.body.multipart.parts: a multipart body needs at least one part"#),
        (
            #"{"boundary": "b", "parts": [{"filename": "a.png", "text": "x"}]}"#,
            #"interactions[0].request.body.multipart.parts[0]: a part with a "filename" or "contentType" needs a "name""#
        ),
        (
            #"{"boundary": "b", "parts": [{"name": "a", "headers": {"Content-Disposition": "form-data; name=\"a\""}}]}"#,
            #"interactions[0].request.body.multipart.parts[0]: this part's "headers" hold its Content-Disposition"#
        ),
        (
            #"{"boundary": "b", "parts": [{"name": "a", "texts": "x"}]}"#,
            #"interactions[0].request.body.multipart.parts[0].texts: unknown field "texts" (did you mean "text"?)"#
        ),
    ])
    func aWrongHandEditSaysWhereAndWhat(_ multipart: String, _ expected: String) {
        let file = """
            {"version": 1, "interactions": [{"request": {"method": "POST", "url": "https://a.example/upload",
              "body": {"multipart": \(multipart)}}, "response": {"status": 200}}]}
            """
        #expect {
            try JSONCassetteCodec.decode(Data(file.utf8), file: "edited.json")
        } throws: { error in
            let text = (error as? CassetteFormatError)?.description ?? ""
            return text.contains(expected) && text.hasPrefix("edited.json:")
        }
    }

    // MARK: HAR and HTTP messages

    @Test func HARCarriesTheTextAndThePartsAsParams() throws {
        let data = Self.body(order: [0, 1])
        let har = try HARCassetteCodec.encode(Self.document(data))
        let root = try #require(try JSONSerialization.jsonObject(with: har) as? [String: Any])
        let entries = try #require((root["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let postData = try #require((entries[0]["request"] as? [String: Any])?["postData"] as? [String: Any])
        #expect(postData["text"] as? String == String(decoding: data, as: UTF8.self))
        let params = try #require(postData["params"] as? [[String: String]])
        #expect(
            params == [
                ["name": "title", "value": "Holiday"],
                ["name": "meta", "contentType": "application/json", "value": #"{"tags":["sea","sun"],"year":2026}"#],
            ])
        #expect(try HARCassetteCodec.decode(har).interactions[0].request.body.data == data)
    }

    @Test func HARWithOnlyParamsBuildsTheBodyAndDisagreeingParamsAreRefused() throws {
        func har(_ postData: String) -> Data {
            Data(
                """
                {"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": [{
                  "startedDateTime": "2026-11-23T10:00:00.000Z", "time": 1,
                  "request": {"method": "POST", "url": "https://a.example/upload", "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [{"name": "Content-Type", "value": "\(Self.contentType)"}], "queryString": [], "headersSize": -1, "bodySize": -1,
                    "postData": \(postData)},
                  "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [], "headers": [],
                    "content": {"size": 0, "mimeType": ""}, "redirectURL": "", "headersSize": -1, "bodySize": 0},
                  "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}}]}}
                """.utf8)
        }
        let onlyParams =
            #"{"mimeType": "\#(Self.contentType)", "params": [{"name": "title", "value": "Holiday"}, {"name": "meta", "contentType": "application/json", "value": "{\"tags\":[\"sea\",\"sun\"],\"year\":2026}"}]}"#
        #expect(try HARCassetteCodec.decode(har(onlyParams)).interactions[0].request.body.data == Self.body(order: [0, 1]))

        let text = String(decoding: Self.body(order: [0, 1]), as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\\r\\n")
            .replacingOccurrences(of: "\"", with: "\\\"")
        let disagreeing =
            #"{"mimeType": "\#(Self.contentType)", "text": "\#(text)", "params": [{"name": "title", "value": "Winter"}, {"name": "meta", "contentType": "application/json", "value": "{}"}]}"#
        #expect {
            try HARCassetteCodec.decode(har(disagreeing), file: "edited.har")
        } throws: { error in
            (error as? CassetteFormatError)?.description.contains(
                #"log.entries[0].request.postData.params: "params" and "text" disagree about this multipart body; edit one of them and delete the other"#
            ) == true
        }
    }

    @Test func anHTTPMessageCassetteKeepsAMultipartBodyAsItsText() throws {
        let data = Self.body(order: [0, 1])
        let encoded = try HTTPMessageCassetteCodec.encode(Self.document(data))
        #expect(String(decoding: encoded, as: UTF8.self).contains("Content-Disposition: form-data; name=\"title\"\r\n\r\nHoliday\r\n"))
        #expect(try HTTPMessageCassetteCodec.decode(encoded).interactions[0].request.body.data == data)
    }

    static func document(_ body: Data, contentType: String = contentType) -> CassetteDocument {
        CassetteDocument(interactions: [
            Interaction(
                request: .init(
                    method: "POST", url: "https://a.example/upload", headers: ["Content-Type": contentType],
                    body: .init(body, contentType: contentType)),
                response: .init(status: 200))
        ])
    }
}
