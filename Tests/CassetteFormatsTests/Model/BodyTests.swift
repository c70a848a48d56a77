import CassetteFormats
import Foundation
import Testing

@Suite struct BodyTests {
    private func form(_ text: String, _ contentType: String?) -> Interaction.Body.Form {
        Interaction.Body(Data(text.utf8), contentType: contentType).form
    }

    @Test func choosesTheMostReadableFormThatKeepsTheBytes() {
        #expect(form(#"{"id":42}"#, "application/json; charset=utf-8") == .json)
        #expect(form(#"{"id":42}"#, "application/problem+json") == .json)
        #expect(form(#"{"id":42}"#, nil) == .json)
        #expect(form("42", "application/json") == .json)
        #expect(form("42", nil) == .text)  // a bare scalar is not guessed to be JSON
        #expect(form(#"{"id":42}"#, "text/plain") == .text)  // the media type says text
        #expect(form("{\n  \"id\": 42\n}\n", "application/json") == .text)  // pretty JSON is not compact
        #expect(form(#"{"a":1,"a":2}"#, "application/json") == .text)  // duplicate keys cannot be inlined
        #expect(form(#"{"s":"\u00e9"}"#, "application/json") == .text)  // escaped differently than we write
        #expect(form("héllo\r\n\tworld", "text/plain") == .text)
        #expect(form("nul\u{0}", "text/plain") == .base64)
        #expect(form("GIF89a", "image/gif") == .base64)  // binary media types stay base64
        #expect(form("<svg/>", "image/svg+xml") == .text)
        #expect(Interaction.Body(Data([0x61, 0xFF]), contentType: "text/plain").form == .base64)
        #expect(Interaction.Body.empty.isEmpty)
    }

    /// The media type is the Content-Type before its parameters, without the spaces and tabs
    /// around it, lower-cased; a value with other than ASCII is read the same way.
    @Test func theMediaTypeIsTheLowerCasedEssenceOfTheContentType() {
        #expect(Interaction.Body.mediaType(of: "Application/JSON ; charset=utf-8") == "application/json")
        #expect(Interaction.Body.mediaType(of: " \ttext/event-stream") == "text/event-stream")
        #expect(Interaction.Body.mediaType(of: "text/plain;charset=utf-8;x=1") == "text/plain")
        #expect(Interaction.Body.mediaType(of: "") == "")
        #expect(Interaction.Body.mediaType(of: "; charset=utf-8") == "")
        #expect(Interaction.Body.mediaType(of: "TEXT/HTML\u{00A0}") == "text/html")  // a no-break space is a space too
        #expect(Interaction.Body.mediaType(of: "Text/Ünïcode ; q=1") == "text/ünïcode")
        #expect(Interaction.Body.mediaType(of: "a\nb") == "a\nb")  // a line break is not trimmed
    }

    @Test func writtenAsRefusesFormsThatCannotHoldTheBytes() throws {
        let binary = Interaction.Body(Data([0xFF, 0x00]))
        #expect(binary.written(as: .text) == nil)
        #expect(binary.written(as: .json) == nil)
        #expect(binary.written(as: .base64)?.form == .base64)
        let json = Interaction.Body(Data(#"[1,2]"#.utf8))
        #expect(try #require(json.written(as: .text)).form == .text)
        #expect(json.written(as: .text) == json)  // equality is by bytes
    }

    @Test func formsAreWrittenAsTheFormatSays() throws {
        let document = CassetteDocument(interactions: [
            Interaction(
                request: .init(method: "POST", url: "https://a.example/", body: .init(Data(#"{"b":[1,2]}"#.utf8))),
                response: .init(status: 200, body: .init(text: "one\ntwo\n"))),
            Interaction(
                request: .init(url: "https://a.example/x"),
                response: .init(status: 200, body: .init(Data([0, 1, 2, 255])))),
        ])
        let text = String(decoding: try JSONCassetteCodec.encode(document), as: UTF8.self)
        #expect(text.contains(#""body": { "json": { "b": [1, 2] } }"#))
        #expect(text.contains(#""body": { "text": ["one\n", "two\n"] }"#))
        #expect(text.contains(#""body": { "base64": "AAEC/w==" }"#))
    }

    /// A body a test wants kept as base64 (a signed payload), though it would read as text.
    @Test func writtenAsBase64KeepsTheBytesAndIsWrittenAsBase64() throws {
        let body = Interaction.Body(text: "signed: héllo").writtenAsBase64
        #expect(body.form == .base64)
        #expect(body == Interaction.Body(text: "signed: héllo"))
        let document = CassetteDocument(interactions: [
            Interaction(request: .init(url: "https://a.example/x"), response: .init(status: 200, body: body))
        ])
        let data = try JSONCassetteCodec.encode(document)
        #expect(String(decoding: data, as: UTF8.self).contains(#""body": { "base64": "c2lnbmVkOiBow6lsbG8=" }"#))
        let read = try JSONCassetteCodec.decode(data)
        #expect(read.interactions[0].response?.body.data == Data("signed: héllo".utf8))
        #expect(read.interactions[0].response?.body.form == .base64)
    }
}
